#!/bin/bash
# One device call: ncu's per-SASS-instruction warp-state sampling (SourceCounters) of a few validation
# launches, to set the simulator's per-PC stalls beside the GPU's.  From the repository root, $OUT set:
#     bash benchmarks/micro/pcsamp/run_device.sh "parboil/stencil:small hecbench/nbody:default"
# For each program:size, $OUT/<name>.csv: ncu --page source --csv --print-source sass of its first launch.
export PYTHONPATH=$PWD
for ps in ${1:-"parboil/stencil:small"}; do
  p=${ps%%:*}; s=${ps##*:}; n=$(echo "$p" | tr / _)__$s
  timeout 120 ncu --section SourceCounters --section WarpStateStats -c 1 -f -o /tmp/$n \
      python3 -m gpusim hw run "$p" --size "$s" --repeats 1 > $OUT/$n.log 2>&1
  echo "$n: ncu rc=$?"
  ncu -i /tmp/$n.ncu-rep --page source --csv --print-source sass > $OUT/$n.csv 2> $OUT/$n.err
  echo "$n: export rc=$? lines=$(wc -l < $OUT/$n.csv)"
  cp /tmp/$n.ncu-rep $OUT/ 2>/dev/null
done
ncu --version | tail -1
