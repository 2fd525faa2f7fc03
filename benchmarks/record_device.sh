#!/bin/bash
# One device call of the validation-corpus recording (issue 14): records of the suite programs through CuPy
# and ncu, at ncu's default clock control (base) or free-running (boost: CLOCK=none, few metrics).
#   SUITES="polybench/ shoc/" CLOCK=base bash benchmarks/record_device.sh      # on the lent machine, $OUT set
#   LECTURE=1 CLOCK=none bash benchmarks/record_device.sh                      # the lecture programs instead
# Writes $OUT/records$TAG.tgz (the JSON/npz records) and $OUT/record.log; prints a summary last.
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
CLOCK=${CLOCK:-base}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,pstate --format=csv,noheader
mkdir -p $OUT/rec
END=$(( $(date +%s) + ${BUDGET:-420} ))     # start no new program after this, across restarts
args=(--out $OUT/rec --max-threads 0 --clock-control $CLOCK --repeats ${REPEATS:-10})
[ -d "$RESUME" ] && cp -r $RESUME/. $OUT/rec/        # records already made: --skip-existing passes them over
if [ -n "$LECTURE" ]; then
  sel=()
else
  sel=(--suites); for g in $SUITES; do sel+=(--program "$g"); done
fi
for attempt in 1 2 3 4 5 6; do      # exit code 3: an illegal address killed the CUDA context; a new process goes on
  left=$(( END - $(date +%s) )); [ $left -gt 0 ] || break
  python3 -m gpusim.hw.record "${sel[@]}" "${args[@]}" --time-budget $left --skip-existing >> $OUT/record.log 2>&1
  rc=$?; [ $rc -eq 3 ] || break
done
echo "record rc=$rc"
tar czf $OUT/records${TAG}.tgz -C $OUT rec && rm -rf $OUT/rec
grep -c ": ok" $OUT/record.log; grep -i "fail\|error\|budget" $OUT/record.log | head -20; tail -3 $OUT/record.log
