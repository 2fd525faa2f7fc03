"""Which short ``if`` bodies ptxas predicates, against the rule of :mod:`gpusim.timing.ifconvert`.

    python benchmarks/ifconvert_vs_sass.py          # needs ptxas and nvdisasm (pip install -e .[sass]), no GPU

For every forward conditional branch over one basic block (no branch, exit, barrier or branch target in it; not
to an exit) in the bundled and suite programs, it assembles the PTX (``ptxas -arch=sm_90 -lineinfo``, each
instruction carrying its own PTX line) and reads the SASS of the body's lines (``nvdisasm -g``): the body is
if-converted when most of its SASS instructions carry a predicate (``@P0``/``@!P0``).  It prints, per body
length (PTX instructions, and after :mod:`gpusim.timing.fusion`), how many kept their branch and how many were
predicated, and how often the rule (at most :data:`gpusim.timing.ifconvert.MAX_BODY` PTX instructions) agrees.
"""
from __future__ import annotations

import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def predicates_by_line(ptx: str) -> dict[str, dict[int, list[str]]]:
    """{kernel: {PTX line: [predicate of each SASS instruction ('' when none)]}}."""
    from gpusim.cuda import sass
    out: dict = collections.defaultdict(lambda: collections.defaultdict(list))
    for kernel, line, predicate, _ in sass.sass_instructions(sass.disassemble(ptx)):
        out[kernel][line].append(predicate)
    return out


def main() -> int:
    import programs
    from gpusim.cuda import sass
    from gpusim.errors import GpusimError, ToolMissingError
    from gpusim.functional.recorder import static_instruction
    from gpusim.timing.fusion import plan_fusion
    from gpusim.timing.ifconvert import MAX_BODY
    from isa import parse_ptx
    tools = sass.find_tools()
    if tools is None:
        raise ToolMissingError("ptxas and nvdisasm are not installed (pip install -e .[sass], or a CUDA toolkit)")
    rows = []
    for name in programs.names() + programs.suite_names():
        ptx = programs.get(name).ptx_path.read_text()
        try:
            preds = predicates_by_line(ptx)
        except GpusimError:
            print(f"not assembled: {name}")
            continue
        for kernel, k in parse_ptx(ptx).kernels.items():
            static = [static_instruction(i) for i in k.instructions]
            targets = {i.branch_target for i in static if i.branch_target >= 0}
            plan = plan_fusion(static)
            for i in static:
                t = i.branch_target
                if not (i.is_branch and i.guard_reg >= 0 and t > i.pc + 1 and i.opcode.startswith("bra")) \
                        or static[t].is_exit:
                    continue
                body = static[i.pc + 1:t]
                if any(b.is_branch or b.is_exit or b.is_barrier or b.is_membar or b.pc in targets for b in body):
                    continue
                got = [p for b in body for p in preds[kernel].get(b.ptx_line, [])]
                if not got:
                    continue
                fused = sum(not plan.drop[b.pc] for b in body) + sum(b.pc in plan.wide_adds for b in body)
                rows.append((len(body), fused, sum(map(bool, got)) > len(got) / 2))
    for title, col in (("PTX instructions", 0), ("after the fusion pass", 1)):
        by = collections.defaultdict(lambda: [0, 0])
        for r in rows:
            by[r[col]][int(r[2])] += 1
        print(f"body length ({title}): kept the branch / predicated")
        print("  " + ", ".join(f"{n}: {a}/{b}" for n, (a, b) in sorted(by.items())))
    agree = sum((r[0] <= MAX_BODY) == r[2] for r in rows)
    short = [r for r in rows if r[0] <= MAX_BODY]
    print(f"\n{len(rows)} bodies; the rule (<= {MAX_BODY} PTX instructions) agrees on {agree} "
          f"({100 * agree / max(1, len(rows)):.0f}%): of the {len(short)} it predicates ptxas predicated "
          f"{sum(r[2] for r in short)}, of the {len(rows) - len(short)} it keeps ptxas kept "
          f"{sum(not r[2] for r in rows if r[0] > MAX_BODY)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
