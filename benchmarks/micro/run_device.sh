#!/bin/bash
# One device call for the microbenchmark campaign (issue 14, item 2).  From the repository root on the
# lent GPU machine, $OUT set, with this folder's files (micro.py, harness.py, micro.cu, micro.cubin, micro.build.json)
# carried in $D:
#     bash .device/microbench/run_device.sh
# Each section runs under its own timeout; records go to /tmp/mb and are packed into $OUT/micro.tgz after
# every section, so a section that times out loses only itself.  SECTIONS="..." runs a subset; the
# second campaign was SECTIONS="info sweep2 latency2 carveout2 points2", the third
# SECTIONS="info sweep3 carveout3 points3".
set -u
D=${D:-.device/microbench}
R=/tmp/mb
mkdir -p $R
export PYTHONUNBUFFERED=1
PY="python3 $D/micro.py --cubin $D/micro.cubin --rec $R"
pack() { tar czf $OUT/micro.tgz -C /tmp mb 2>/dev/null; }
T0=$(date +%s)
sec() {
    local name=$1 lim=$2; shift 2
    echo "== $name (limit ${lim}s, t=$(( $(date +%s) - T0 ))s)"
    timeout -k 5 $lim "$@" > $R/$name.log 2>&1
    echo "   rc=$?  $(tail -1 $R/$name.log | cut -c1-200)"
    pack
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit,pstate --format=csv
ncu --version | tail -1
python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__)"
for s in ${SECTIONS:-info targets clocks carveout sweep latency atomics points}; do
    case $s in
        info)     sec info 60 $PY info ;;
        targets)  sec targets 75 $PY targets ;;
        clocks)   sec clocks 80 $PY clocks ;;
        carveout) sec carveout 60 $PY carveout ;;
        sweep)    sec sweep ${SWEEP_S:-150} $PY sweep --budget $(( ${SWEEP_S:-150} - 20 )) ;;
        latency)  sec latency 35 $PY latency ;;
        atomics)  sec atomics 45 $PY atomics ;;
        points)   sec points ${POINTS_S:-60} $PY points ;;
        sweep2)   sec sweep2 90 $PY sweep2 --budget 70 ;;
        latency2) sec latency2 30 $PY latency2 ;;
        carveout2) sec carveout2 60 $PY carveout2 ;;
        points2)  sec points2 75 $PY points2 ;;
        sweep3)   sec sweep3 60 $PY sweep3 --budget 45 ;;
        carveout3) sec carveout3 60 $PY carveout3 ;;
        points3)  sec points3 90 $PY points3 ;;
    esac
done
echo "== summary (t=$(( $(date +%s) - T0 ))s)"
$PY summary > $OUT/summary.txt 2>&1; pack
head -c 9000 $OUT/summary.txt
