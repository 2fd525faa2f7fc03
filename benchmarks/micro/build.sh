#!/bin/bash
# Build micro.cubin (sm_90) from micro.cu with the local nvcc, and record how (micro.build.json).
# The cubin is a build product (not committed); run_device.sh expects it next to micro.py.
set -euo pipefail
cd "$(dirname "$0")"
OUTDIR=${1:-.}
mkdir -p "$OUTDIR"
nvcc -cubin -arch=sm_90 -O3 -lineinfo -Xptxas -v -o "$OUTDIR/micro.cubin" micro.cu 2> "$OUTDIR/micro.ptxas.log"
python3 - "$OUTDIR" <<'PY'
import hashlib, json, subprocess, sys, datetime, re
out = sys.argv[1]
v = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-2:]
log = open(f"{out}/micro.ptxas.log").read()
spills = {}
for m in re.finditer(r"Function properties for (\S+)\n\s+(\d+) bytes stack frame, (\d+) bytes spill stores", log):
    if int(m.group(3)):
        spills[m.group(1)] = int(m.group(3))
json.dump({"nvcc": " / ".join(v), "flags": "-cubin -arch=sm_90 -O3 -lineinfo",
           "source_sha256": hashlib.sha256(open("micro.cu", "rb").read()).hexdigest(),
           "built": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "kernels_with_spills": spills}, open(f"{out}/micro.build.json", "w"), indent=1)
print("built", out + "/micro.cubin;", len(spills), "kernels spill (skipped by the driver)")
PY
