#!/bin/bash
# Per-launch GPU durations of the example apps under Nsight Compute (base clock, caches kept across launches).
set -u
cd "$(dirname "$0")/../.."   # the repository root
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader > $OUT/nvidia_smi.txt
date -u +%FT%TZ > $OUT/date.txt
ncu --version > $OUT/ncu_version.txt
for app in jacobi2d fdtd2d bfs; do
  for size in small medium large; do
    timeout 150 ncu --csv --metrics gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size \
      --cache-control none --clock-control base \
      python examples/apps/$app.py --size $size > $OUT/${app}_${size}.csv 2> $OUT/${app}_${size}.err
    echo "$app $size rc=$? lines=$(wc -l < $OUT/${app}_${size}.csv)"
  done
done
