"""What ptxas does, against the records: instruction counts and merged accesses, per suite.

    python benchmarks/ptxas_passes.py                    # records of at most 1M measured warp instructions
    python benchmarks/ptxas_passes.py --max-warp-inst 1e7 --golden tests/golden/h100/

For each H100 record it emulates the launch once and prints, per suite, the geometric mean of
simulated / measured ``smsp__inst_executed.sum`` with the PTX as recorded ("PTX"), after the timing model's
merged vector accesses ("merged", :mod:`gpusim.timing.vector_merge`), after the h100 preset's passes without
the fusion of integer instructions and if-conversion ("passes"), with fusion ("+fusion",
:mod:`gpusim.timing.fusion`) and with both ("+if-conversion", :mod:`gpusim.timing.ifconvert`; then also their
mean |log| per suite), and, where ptxas and nvdisasm are
installed, what the real SASS gives: each PTX line's SASS count times its executions ("SASS lines",
:mod:`gpusim.cuda.sass`).  It also checks the merge rule against ptxas: the groups the rule makes and the
groups ptxas made (a vector LDS/STS on a member's line) for every program launched, and the warp-aggregated
atomics rule (:mod:`isa.aggregate`) against ptxas's SASS for every atomic of every program.  No GPU needed.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--golden", nargs="+", default=[str(ROOT / "tests" / "golden" / "h100")])
    ap.add_argument("--max-warp-inst", type=float, default=1e6)
    a = ap.parse_args(argv)

    import numpy as np

    import gpusim
    import programs
    from gpusim.cuda import sass
    from gpusim.errors import GpusimError
    from gpusim.hw.validate import find_records
    from gpusim.config import load_gpu
    from gpusim.timing import apply_passes, merge_groups, unrolled_loops
    from gpusim.timing.vector_merge import find_merge_groups, merge_vector_accesses
    h100 = load_gpu("h100")

    tools = sass.find_tools()
    refs, _ = find_records(a.golden, "base", max_warp_inst=a.max_warp_inst)
    refs = [r for r in refs if not r.left_out and r.inst_hw]
    ratios: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    rule_vs_sass = {"both": 0, "rule only": [], "sass only": []}
    seen_kernels = set()
    failed: list[tuple[str, str]] = []
    t0 = time.perf_counter()
    for i, r in enumerate(refs, 1):
        spec = programs.get(r.program)
        try:
            res = gpusim.run(spec.ptx_path, launch=spec.path, size=r.size, seed=r.seed, mode="emulate",
                             record_trace=True)
        except GpusimError as e:
            failed.append((r.name, str(e).splitlines()[0]))
            print(f"[{i}/{len(refs)}] {r.name}: not emulated: {failed[-1][1]}", file=sys.stderr, flush=True)
            continue
        trace = res.trace
        groups = find_merge_groups(trace)
        merged = merge_vector_accesses(trace, groups)
        row = ratios[r.suite]
        row["PTX"].append(trace.n_instructions / r.inst_hw)
        row["merged"].append(merged.n_instructions / r.inst_hw)
        g, loops = merge_groups(trace, h100), unrolled_loops(trace, h100)
        for col, fuse, ifc in (("passes", False, 0), ("+fusion", True, 0),
                               ("+if-conversion", True, h100.if_convert_max_instructions)):
            timed = apply_passes(trace, g, loops, h100.fold_constant_operands, h100.expand_integer_division, fuse,
                                 ifc)
            row[col].append(timed.n_instructions / r.inst_hw)
        if tools:
            lines = sass.sass_by_ptx_line(spec.ptx_path.read_text()).get(trace.kernel, {})
            row["SASS lines"].append(sass.sass_instructions_executed(trace, lines) / r.inst_hw)
            if (r.program, trace.kernel) not in seen_kernels:
                seen_kernels.add((r.program, trace.kernel))
                made = {tuple(trace.instructions[p].ptx_line for p in g.pcs) for g in groups}
                ptxas = {tuple(trace.instructions[p].ptx_line for p in g.pcs)
                         for g in find_merge_groups(trace, decide=sass.merge_decider(trace, lines))}
                rule_vs_sass["both"] += len(made & ptxas)
                rule_vs_sass["rule only"] += [(r.program, x) for x in made - ptxas]
                rule_vs_sass["sass only"] += [(r.program, x) for x in ptxas - made]
        print(f"[{i}/{len(refs)}] {r.name}: PTX {trace.n_instructions / r.inst_hw:.3f}, merged "
              f"{merged.n_instructions / r.inst_hw:.3f}", file=sys.stderr, flush=True)

    def geo(v):
        return f"{math.exp(np.mean(np.log(v))):.3f}" if v else "-"
    cols = ["PTX", "merged", "passes", "+fusion", "+if-conversion"] + (["SASS lines"] if tools else [])
    print(f"simulated / measured smsp__inst_executed.sum, geometric mean per suite ({len(refs)} records of at most "
          f"{a.max_warp_inst:g} warp instructions; {time.perf_counter() - t0:.0f} s)\n")
    print("| suite | records | " + " | ".join(cols) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in cols) + " |")
    for suite in sorted(ratios, key=lambda s: (s != "lecture", s.lower())):
        print(f"| {suite} | {len(ratios[suite]['PTX'])} | " + " | ".join(geo(ratios[suite][c]) for c in cols) + " |")
    allv = {c: [x for s in ratios.values() for x in s[c]] for c in cols}
    print(f"| all | {len(allv['PTX'])} | " + " | ".join(geo(allv[c]) for c in cols) + " |")
    steps = ("passes", "+fusion", "+if-conversion")
    print("\nmean |log(simulated / measured)| per suite: the timing model's passes without fusion and "
          "if-conversion, with fusion (gpusim.timing.fusion), and with both (gpusim.timing.ifconvert):\n")
    print("| suite | records | " + " | ".join(steps) + " |\n| --- | ---: | ---: | ---: | ---: |")
    for suite in sorted(ratios, key=lambda s: (s != "lecture", s.lower())):
        print(f"| {suite} | {len(ratios[suite]['PTX'])} | " + " | ".join(
            f"{np.mean(np.abs(np.log(ratios[suite][c]))):.3f}" for c in steps) + " |")
    print(f"| all | {len(allv['PTX'])} | " + " | ".join(
        f"{np.mean(np.abs(np.log(allv[c]))):.3f}" for c in steps) + " |")
    for name, why in failed:
        print(f"not emulated: {name}: {why}")
    if tools:
        wide, widened = 0, []
        for name in programs.names() + programs.suite_names():
            try:
                w, ws = sass.wide_global_accesses(programs.get(name).ptx_path.read_text())
            except GpusimError as e:
                print(f"not assembled: {name}: {str(e).splitlines()[-1]}")
                continue
            wide += w
            widened += [(name, *x) for x in ws]
        print(f"\nglobal accesses of 8/16 bytes per lane in the SASS of every bundled and suite program: {wide}, of "
              f"them on scalar 32-bit PTX lines (merged by ptxas): {len(widened)} {widened[:5] or ''}")
        print(f"merge rule vs ptxas ({len(seen_kernels)} kernels): {rule_vs_sass['both']} groups both, "
              f"rule only {rule_vs_sass['rule only'] or 'none'}, ptxas only {rule_vs_sass['sass only'] or 'none'}")
        n_atom, n_agg, atom_differ = sass.aggregation_rule_vs_ptxas(
            {name: programs.get(name).ptx_path.read_text() for name in programs.names() + programs.suite_names()})
        print(f"warp-aggregation rule vs ptxas (isa.aggregate): {n_atom} atomics, {n_agg} aggregated by ptxas, "
              f"the rule differs on {atom_differ or 'none'}")
    else:
        print("\nptxas/nvdisasm not installed: no SASS column, no check of the merge rule")
    return 0


if __name__ == "__main__":
    sys.exit(main())
