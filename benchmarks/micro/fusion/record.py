"""Record what ptxas makes of ``fusion.ptx``: the SASS of each PTX line, as ``tests/golden/h100/micro/fusion/``
``fusion.sass`` (``nvdisasm -g`` of the module assembled with each instruction's own PTX line as its line
information, :func:`gpusim.cuda.sass.mark_ptx_lines`), and print, per kernel, the SASS instructions of its
section beside the count :mod:`gpusim.timing.fusion` predicts.  Needs ``ptxas`` and ``nvdisasm`` (a CUDA
toolkit, or ``pip install -e .[sass]``), no GPU.

    python benchmarks/micro/fusion/record.py            # print the comparison
    python benchmarks/micro/fusion/record.py --write    # and (re)write the record
"""
from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
PTX = Path(__file__).with_name("fusion.ptx")
RECORD = ROOT / "tests" / "golden" / "h100" / "micro" / "fusion" / "fusion.sass"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"write {RECORD.relative_to(ROOT)}")
    a = ap.parse_args(argv)
    from gpusim.cuda import sass
    listing = sass.disassemble(PTX.read_text())
    ptxas = sass.find_tools()[0]
    version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    if a.write:
        RECORD.parent.mkdir(parents=True, exist_ok=True)
        RECORD.write_text(f"// {PTX.relative_to(ROOT)}: ptxas -arch=sm_90 -lineinfo ({version}), nvdisasm -g -c; "
                          f"{datetime.date.today()}\n" + listing)
        print(f"wrote {RECORD.relative_to(ROOT)}")
    by_line = sass.parse_nvdisasm(listing)
    print(f"{'kernel':8s} {'SASS':>5s} {'model':>5s} {'PTX':>5s}")
    for kernel, (ptx_n, model_n) in model_counts(PTX.read_text()).items():
        print(f"{kernel:8s} {sass_count(by_line, PTX.read_text(), kernel):5d} {model_n:5d} {ptx_n:5d}")
    return 0


def sections(ptx: str) -> dict[str, set[int]]:
    """Kernel name -> the PTX lines between its ``// section`` and ``// end section`` comments."""
    out: dict[str, set[int]] = {}
    kernel, inside = None, False
    for n, line in enumerate(ptx.splitlines(), 1):
        s = line.strip()
        if s.startswith(".visible .entry"):
            kernel = s.split()[2].split("(")[0]
        elif s == "// section":
            inside = True
            out[kernel] = set()
        elif s == "// end section":
            inside = False
        elif inside and s and not s.startswith("//"):
            out[kernel].add(n)
    return out


def model_counts(ptx: str) -> dict[str, tuple[int, int]]:
    """Kernel name -> (PTX instructions in its section, the instructions gpusim.timing.fusion issues for
    them: the PCs it keeps, and two for each 64-bit add)."""
    from gpusim.functional.recorder import static_instruction
    from gpusim.timing.fusion import plan_fusion
    from isa import parse_ptx
    module = parse_ptx(ptx)
    out = {}
    for kernel, lines in sections(ptx).items():
        static = [static_instruction(i) for i in module.kernels[kernel].instructions]
        plan = plan_fusion(static)
        on = [p for p, ins in enumerate(static) if ins.ptx_line in lines]
        out[kernel] = (len(on), sum(not plan.drop[p] for p in on) + sum(p in plan.wide_adds for p in on))
    return out


def sass_count(by_line: dict, ptx: str, kernel: str) -> int:
    """SASS instructions ptxas attributes to the lines of ``kernel``'s section, but the constant-bank loads
    (``LDC``, ``ULDC``) of the ``ld.param`` before it, which ptxas puts at their first reader."""
    return sum(not op.startswith(("LDC", "ULDC")) for n in sections(ptx)[kernel]
               for op in by_line.get(kernel, {}).get(n, []))


if __name__ == "__main__":
    sys.exit(main())
