"""Regenerate the apps' PTX from their CUDA C with the local CUDA toolkit (the PTX is checked in, so running
the apps needs no compiler):  python examples/apps/regenerate.py"""
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLAGS = ["-arch=compute_90", "-ptx", "-lineinfo"]


def main() -> int:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        print("nvcc is not on the PATH (it comes with the CUDA toolkit)", file=sys.stderr)
        return 1
    for cu in sorted(HERE.glob("*.cu")):
        out = cu.with_suffix(".ptx")
        subprocess.run([nvcc, *FLAGS, str(cu.name), "-o", out.name], check=True, cwd=HERE)
        # the source by its bare name, so errors find it beside the PTX wherever the repository is
        out.write_text(re.sub(r'(\.file\s+1\s+")[^"]*/([^"/]+\.cu")', r"\1\2", out.read_text()))
        print(f"{cu.name} -> {out.name}  (nvcc {' '.join(FLAGS)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
