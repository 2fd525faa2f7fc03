#!/bin/bash
# One device call: build intpipe.cubin, time every kernel (intpipe.json), list its SASS, and count the
# instructions each pipe executed under Nsight Compute (ncu.csv).  From the repository root, $OUT set:
#     bash benchmarks/micro/intpipe/run_device.sh
set -u
D=benchmarks/micro/intpipe
nvcc -cubin -arch=sm_90 -O3 -o /tmp/intpipe.cubin $D/intpipe.cu 2> $OUT/nvcc.log
nvcc --version | tail -2 >> $OUT/nvcc.log
cuobjdump -sass /tmp/intpipe.cubin > $OUT/intpipe.sass 2>&1
python3 $D/intpipe.py --cubin /tmp/intpipe.cubin --out $OUT
ncu --query-metrics > $OUT/ncu_query.txt 2>&1
WANT="sm__inst_executed_pipe_alu sm__inst_executed_pipe_fma sm__inst_executed_pipe_fmaheavy sm__inst_executed_pipe_fmalite
      sm__inst_executed_pipe_fma_type_fp32 sm__inst_executed_pipe_fp16 sm__inst_executed_pipe_uniform sm__inst_executed
      sm__pipe_alu_cycles_active sm__pipe_fma_cycles_active sm__pipe_fmaheavy_cycles_active sm__pipe_fmalite_cycles_active
      sm__cycles_elapsed"
M=""
for m in $WANT; do grep -q "^$m " $OUT/ncu_query.txt && M="$M$m.sum,"; done
echo "metrics: $M"
timeout 300 ncu --metrics "${M%,}" --csv python3 $D/intpipe.py --cubin /tmp/intpipe.cubin --once > $OUT/ncu.csv 2> $OUT/ncu.err
echo "ncu rc=$? lines=$(wc -l < $OUT/ncu.csv)"
