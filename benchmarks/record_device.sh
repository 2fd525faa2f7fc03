#!/bin/bash
# One device call of the validation-corpus recording (issue 14): records of the suite programs through CuPy
# and ncu, at ncu's default clock control (base) or free-running (boost: CLOCK=none, few metrics).
#   SUITES="polybench/ shoc/" CLOCK=base bash benchmarks/record_device.sh      # on the lent machine, $OUT set
#   LECTURE=1 CLOCK=none bash benchmarks/record_device.sh                      # the lecture programs instead
# Writes $OUT/records.tgz (the JSON/npz records) and $OUT/record.log; prints a summary last.
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
CLOCK=${CLOCK:-base}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,pstate --format=csv,noheader
mkdir -p $OUT/rec
args=(--out $OUT/rec --max-threads 0 --clock-control $CLOCK --time-budget ${BUDGET:-420} --repeats ${REPEATS:-10})
if [ -n "$LECTURE" ]; then
  python3 -m gpusim.hw.record "${args[@]}" > $OUT/record.log 2>&1
else
  prog=(); for g in $SUITES; do prog+=(--program "$g"); done
  python3 -m gpusim.hw.record --suites "${prog[@]}" "${args[@]}" > $OUT/record.log 2>&1
fi
echo "record rc=$?"
tar czf $OUT/records.tgz -C $OUT rec && rm -rf $OUT/rec
grep -c ": ok" $OUT/record.log; grep -i "fail\|error\|budget" $OUT/record.log | head -20; tail -3 $OUT/record.log
