"""Loads in flight, ptxas against the timing model: per kernel, the most global/local loads one thread has
issued whose values it has not yet read, within one basic block, in ptxas's SASS and in the order the
timing model issues (``instruction_schedule = "hoist"``: :func:`gpusim.timing.decode.static_schedule` after
the h100 preset's passes).  No GPU needed; ptxas and nvdisasm must be installed (``pip install -e .[sass]``).

    python benchmarks/hoist_vs_sass.py                      # every bundled and suite program
    python benchmarks/hoist_vs_sass.py hecbench/nbody blur  # some

How many loads a warp keeps in flight sets a latency-bound loop's pace: HeCBench nbody's loop, unrolled 4
times, has 16 loads; ptxas issues 8 of them (two records) before the first use and the model 16
(``decode.MAX_LIVE_LOADS``); on one SM (benchmarks/micro/lrcwalk, g1_together) the model with 16 in
flight takes 1.69M cycles, with 8 2.60M, the H200 2.68M.

SASS side: basic blocks split at labels and after branches and exits; an ``LDG``/``LDL`` counts from its
issue until an instruction reads (or overwrites) one of its destination registers.  Model side: the same
over the timed trace's segments (atomics are not loads).  Simplifications: register operands are read off
the text (the first register operand of a non-store is its destination); a block ptxas splits or merges
differently from the PTX's is compared by the kernel's largest figure only.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_REG = re.compile(r"\bR(\d+)\b")
_SASS = re.compile(r"\*/\s+(@!?U?P\w+\s+)?([A-Z][\w.]*)\s*(.*?);")
_ENDS_BLOCK = ("BRA", "EXIT", "BAR", "RET", "CALL", "BSYNC", "WARPSYNC")


def parse_sass_blocks(text: str) -> dict[str, list[list[tuple[str, str]]]]:
    """Per kernel, the basic blocks of an ``nvdisasm`` listing (:func:`gpusim.cuda.sass.disassemble`) or a
    ``cuobjdump -sass`` one (which has no labels: its blocks end only at branches)."""
    kernels: dict[str, list[list[tuple[str, str]]]] = {}
    cur = None
    for ln in text.splitlines():
        m = re.match(r"\s*\.text\.(\S+):", ln) or re.match(r"\s*Function : (\S+)", ln)
        if m:
            cur = kernels.setdefault(m.group(1), [[]])
            continue
        if cur is None:
            continue
        if re.match(r"^\.L_x_\d+:", ln.strip()):
            cur.append([])
            continue
        m = _SASS.search(ln)
        if m:
            cur[-1].append((m.group(2), m.group(3)))
            if m.group(2).startswith(_ENDS_BLOCK):
                cur.append([])
    return kernels


def _width(op: str) -> int:
    return 4 if ".128" in op else 2 if ".64" in op else 1


def sass_max_in_flight(blocks) -> int:
    best = 0
    for block in blocks:
        live: dict[int, set[int]] = {}
        for k, (op, args) in enumerate(block):
            regs = [int(x) for x in _REG.findall(args)]
            store = op.startswith(("ST", "RED", "ATOM"))
            dst = set() if store or not regs else {regs[0]}
            touched = set(regs if store else regs[1:]) | dst
            for j in [j for j, rs in live.items() if rs & touched]:
                del live[j]
            if op.startswith(("LDG", "LDL")) and regs:
                live[k] = set(range(regs[0], regs[0] + _width(op)))
            best = max(best, len(live))
    return best


def model_max_in_flight(trace) -> int:
    from gpusim.timing.decode import _LIVE_LIMITED, _block_leaders, static_schedule
    ins = trace.instructions
    order_of = static_schedule(trace)
    bounds = [*_block_leaders(trace, through_if_converted=True).tolist(), len(ins)]
    best = 0
    for b0, b1 in zip(bounds, bounds[1:]):
        live: dict[int, set[int]] = {}
        for pc in order_of.get(b0, range(b0, b1)):
            i = ins[pc]
            touched = set(i.src_regs) | set(i.dst_regs)
            for j in [j for j, rs in live.items() if rs & touched]:
                del live[j]
            if i.is_load and not i.is_store and not i.is_atomic and i.mem_space in _LIVE_LIMITED:
                live[pc] = set(i.dst_regs)
            best = max(best, len(live))
    return best


def timed_trace(trace, gpu):
    """``trace`` after the ptxas-like passes the preset ``gpu`` applies before timing (merged accesses,
    unrolled loops, folded constants, expanded divisions, fused integer instructions, if-conversion)."""
    from gpusim.timing import apply_passes, merge_groups, unrolled_loops
    return apply_passes(trace, merge_groups(trace, gpu), unrolled_loops(trace, gpu), gpu.fold_constant_operands,
                        gpu.expand_integer_division, gpu.fuse_alu_instructions, gpu.if_convert_max_instructions)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*", help="program names (default: every bundled and suite program)")
    a = ap.parse_args(argv)
    import gpusim
    import programs
    from gpusim.config import load_gpu
    from gpusim.cuda import sass
    from gpusim.errors import GpusimError
    if not sass.find_tools():
        print("ptxas and nvdisasm are needed: pip install -e .[sass]", file=sys.stderr)
        return 2
    h100 = load_gpu("h100")
    names = a.programs or programs.names() + programs.suite_names()
    same = more = fewer = 0
    print("| program | kernel | SASS | model |\n| --- | --- | ---: | ---: |")
    for name in names:
        spec = programs.get(name)
        size = "small" if "small" in spec.sizes else spec.default_size
        try:
            tr = gpusim.run(spec.ptx_path, launch=spec.path, size=size, mode="emulate", record_trace=True).trace
        except GpusimError as e:
            print(f"{name}: not emulated: {str(e).splitlines()[0]}", file=sys.stderr)
            continue
        timed = timed_trace(tr, h100)
        s = sass_max_in_flight(parse_sass_blocks(sass.disassemble(spec.ptx_path.read_text())).get(tr.kernel, []))
        m = model_max_in_flight(timed)
        same, more, fewer = same + (m == s), more + (m > s), fewer + (m < s)
        print(f"| {name} | {tr.kernel} | {s} | {m} |", flush=True)
    print(f"\n{same + more + fewer} kernels: the same in {same}, the model more in {more}, fewer in {fewer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
