"""Which pipe ptxas's SASS sends a kernel's instructions to: the integer ALU pipe, the FMA pipe (``IMAD`` and
its ``.IADD``/``.MOV``/``.SHL`` forms, which ptxas uses to move integer adds and moves off the ALU pipe), and
the rest, per bundled or suite program (ptxas and nvdisasm needed: ``pip install -e .[sass]``; no GPU).

    python benchmarks/sass_pipes.py blur conv1d_basic parboil/stencil

The model sends every integer instruction to one ``int`` pipe; this prints how far ptxas splits them
(``gpusim/hw/README.md``, "ptxas splits integer adds and moves between the ALU and the FMA pipe").
"""
from __future__ import annotations

import argparse
from collections import Counter

import programs
from gpusim.cuda.sass import disassemble, sass_instructions

# SASS opcodes (the part before the first dot) by pipe, after Nsight Compute's pipe table (sm_90)
ALU = {"ISETP", "LOP3", "IADD3", "LEA", "SHF", "MOV", "SEL", "PLOP3", "PRMT", "FLO", "POPC", "BREV", "IABS",
       "IMNMX", "FSETP", "FSEL", "FMNMX", "P2R", "R2P", "VIMNMX"}
FMA = {"IMAD", "FFMA", "FADD", "FMUL", "HFMA2", "HADD2", "HMUL2", "IDP", "IMUL"}
SKIP = {"NOP"}


def split(name: str) -> tuple[Counter, Counter, Counter]:
    ptx = programs.get(name).ptx_path.read_text()
    alu, fma, other = Counter(), Counter(), Counter()
    for _kernel, _line, _pred, op in sass_instructions(disassemble(ptx)):
        base = op.split(".")[0]
        if base in SKIP:
            continue
        form = op if base == "IMAD" else base
        (alu if base in ALU else fma if base in FMA else other)[form] += 1
    return alu, fma, other


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="+", help="bundled programs or suite programs (<suite>/<name>)")
    a = ap.parse_args()
    for name in a.names:
        alu, fma, other = split(name)
        n = sum(alu.values()) + sum(fma.values()) + sum(other.values())
        print(f"{name}: {n} SASS instructions (NOPs left out)")
        for label, c in (("ALU pipe", alu), ("FMA pipe", fma), ("other", other)):
            items = ", ".join(f"{k} {v}" for k, v in c.most_common())
            print(f"  {label:9s} {sum(c.values()):4d}: {items}")


if __name__ == "__main__":
    main()
