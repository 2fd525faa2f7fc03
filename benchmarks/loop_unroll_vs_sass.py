"""The timing model's loop-unrolling rule against what ptxas really unrolls, over every bundled PTX file.

    python benchmarks/loop_unroll_vs_sass.py             # needs ptxas and nvdisasm (pip install -e .[sass])
    python benchmarks/loop_unroll_vs_sass.py --list      # every loop, not only the disagreements

For every loop of every kernel whose body is one basic block ending in a branch back to its first instruction
(no barrier, memory barrier, atomic or exit inside) and that loads from global or local memory, the rule of
:func:`gpusim.timing.loop_unroll.find_unrolled_loops` says unrolled or not; ptxas says unrolled when the SASS
holds at least 4 copies of the body's first load (an unrolled body, plus its remainder copies).  Prints the
2 x 2 table and the loops where the two differ.  No GPU needed.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def kernel_trace(module, kernel):
    """A trace of ``kernel``'s static code alone (no rows): what the unrolling rule reads."""
    from gpusim.functional.recorder import static_instruction
    from gpusim.timing.synthetic import make_trace
    from isa.link import link
    prog = link(module, kernel)
    static = [static_instruction(i) for i in prog.instructions]
    trace = make_trace([{"opcode": "ret", "unit": s.unit, "latency_class": s.latency_class} for s in static],
                       warp_pcs=[[]])
    return dataclasses.replace(trace, instructions=static)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="print every loop")
    a = ap.parse_args(argv)
    from gpusim.cuda import sass
    from gpusim.timing.decode import _block_leaders, _is_fence
    from gpusim.timing.loop_unroll import (
        _LOAD_SPACES,
        MAX_BODY_INSTRUCTIONS,
        find_unrolled_loops,
    )
    from isa.parser import load_ptx
    if sass.find_tools() is None:
        print("ptxas and nvdisasm are not installed (pip install -e .[sass])", file=sys.stderr)
        return 2
    table = {(r, p): 0 for r in (True, False) for p in (True, False)}
    differ = []
    for path in sorted((ROOT / "programs").rglob("*.ptx")):
        try:
            module = load_ptx(path)
            by_line = sass.sass_by_ptx_line(path.read_text())
        except Exception as e:  # noqa: BLE001 - a file ptxas or the parser rejects is left out, and said so
            print(f"{path.relative_to(ROOT)}: left out ({str(e).splitlines()[0][:80]})", file=sys.stderr)
            continue
        for kernel in module.kernels.values():
            if kernel.error is not None:
                continue
            trace = kernel_trace(module, kernel)
            instrs = trace.instructions
            rule = {lp.first for lp in find_unrolled_loops(trace, 4)}
            leader = set(_block_leaders(trace).tolist())
            lines = by_line.get(kernel.name, {})
            for ins in instrs:
                t = ins.branch_target
                if not ins.is_branch or t < 0 or t > ins.pc or ins.pc - t > MAX_BODY_INSTRUCTIONS:
                    continue
                body = instrs[t:ins.pc]
                if not body or any(p in leader for p in range(t + 1, ins.pc + 1)) or any(map(_is_fence, body)):
                    continue
                loads = [b for b in body if b.is_load and not b.is_store and b.mem_space in _LOAD_SPACES]
                if not loads:
                    continue
                copies = sum(1 for op in lines.get(loads[0].ptx_line, []) if op.startswith("LD"))
                ptxas = copies >= 4
                mine = t in rule
                table[(mine, ptxas)] += 1
                row = (f"{path.relative_to(ROOT)}:{body[0].ptx_line} {kernel.name}: {len(body)} instructions, "
                       f"{len(loads)} loads, nounroll {body[0].no_unroll}; rule {'unrolls' if mine else 'keeps'}, "
                       f"ptxas made {copies} copies of the first load")
                if a.list or mine != ptxas:
                    differ.append(row)
    print("| rule \\ ptxas | unrolled | kept rolled |\n| --- | ---: | ---: |")
    print(f"| unrolls | {table[(True, True)]} | {table[(True, False)]} |")
    print(f"| keeps rolled | {table[(False, True)]} | {table[(False, False)]} |")
    agree = table[(True, True)] + table[(False, False)]
    print(f"\nagree on {agree} of {sum(table.values())} loops\n")
    print("\n".join(differ))
    return 0


if __name__ == "__main__":
    sys.exit(main())
