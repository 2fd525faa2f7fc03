#!/bin/bash
# One device call: calibration microbenchmarks, records of every program (CuPy + ncu), GPU tests.
# Run on the lent machine from the repository root with $OUT set; carries .whl (wheels of what the
# machine lacks: it has no network).
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
python3 -c "import cupy, sys, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__, sys.version.split()[0])"
which ncu; ncu --version | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,pstate --format=csv
timeout ${CAL_S:-120} python3 benchmarks/calibrate.py --out $OUT/calibration.json > $OUT/calibrate.log 2>&1
echo "calibrate rc=$?"; tail -c 2500 $OUT/calibrate.log
timeout ${REC_S:-380} python3 -m gpusim.hw.record --out $OUT/h100 --max-threads 16777216 \
    --time-budget ${REC_BUDGET:-330} > $OUT/record.log 2>&1
echo "record rc=$?"; grep -c '\.json\|: ok' $OUT/record.log; grep -i "fail\|error" $OUT/record.log | head -20
tar czf $OUT/golden.tgz -C $OUT h100 && rm -rf $OUT/h100
timeout ${TEST_S:-75} python3 -m pytest -m gpu tests/hw/test_live_gpu.py tests/programs/test_real_gpu.py -q \
    -p no:cacheprovider > $OUT/pytest.log 2>&1
echo "pytest rc=$?"; tail -25 $OUT/pytest.log
