#!/bin/bash
# One device call: a launch's cycles under ncu with its caches flushed (ncu's default, as the validation
# records) and left warm by the launch before it (--cache-control none), at ncu's locked base clock.
#     bash benchmarks/micro/pcsamp/warm_vs_cold.sh parboil/stencil small     # $OUT/<name>_{all,none}.csv
p=$1; s=$2; n=$(echo "$p" | tr / _)__$s
M=gpc__cycles_elapsed.max,dram__sectors_read.sum,lts__t_sector_hit_rate.pct,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
for cc in all none; do
  timeout 120 ncu --cache-control $cc --metrics $M --csv --page raw --print-units base \
      python3 -m gpusim hw run "$p" --size "$s" --repeats 3 > $OUT/${n}_$cc.csv 2> $OUT/${n}_$cc.err
  echo "$n cache-control $cc: rc=$?"
  grep -o '"gpc__cycles_elapsed.max".*' $OUT/${n}_$cc.csv | head -1
  python3 - "$OUT/${n}_$cc.csv" <<'PY'
import csv, io, sys
lines = [l for l in open(sys.argv[1]) if l.startswith('"')]
rows = list(csv.DictReader(io.StringIO("".join(lines))))
for r in rows[1:]:
    print({k: r[k] for k in r if k.startswith(("gpc__", "dram__", "lts__", "smsp__"))})
PY
done
