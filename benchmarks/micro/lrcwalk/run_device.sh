#!/bin/bash
# One device call: assemble lrcwalk.cubin from the committed PTX, list its SASS, run every case under ncu.
# From the repository root, $OUT set:   bash benchmarks/micro/lrcwalk/run_device.sh
set -u
D=benchmarks/micro/lrcwalk
ptxas -arch=sm_90 -O3 $D/lrcwalk.ptx -o /tmp/lrcwalk.cubin 2> $OUT/ptxas.log
cuobjdump -sass /tmp/lrcwalk.cubin > $OUT/lrcwalk.sass 2>&1
python3 $D/lrcwalk.py --cubin /tmp/lrcwalk.cubin --out $OUT
