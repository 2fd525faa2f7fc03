"""Sampled estimates against full detail on the validation's own launches: two ``gpusim validate --out`` files
of the same model, one that timed a launch sampled and one that timed it in full detail.

    python benchmarks/sample_vs_full.py                       # 2ad15dd's results against the run at dc95eb2
    python benchmarks/sample_vs_full.py --sampled OLD.json --full NEW.json

``--sampled`` / ``--full`` take a file, or ``REV:PATH`` for a file as committed (read with ``git show``). The
defaults compare the base-clock results (``--clock boost``: the boost-clock ones) as committed at 2ad15dd (the
model of dc95eb2, 5M-30M warp instructions now in full detail; a later model moved some) with those of the run
at dc95eb2 (as committed at a2cf877), which sampled every launch above 5M warp instructions (now: above 30M).
For each launch sampled in the first and in full detail in the second: the sample's distance from full detail,
its stated bound, and both against the H100. The last lines: the median and largest distance, how many within
3% / 10% / over 25%, and the bound's misses.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = {"base": "gpusim/hw/validation_h100.json", "boost": "gpusim/hw/validation_h100_boost.json"}


def read(spec: str) -> dict:
    """A results file: a path, or ``REV:PATH`` as committed at REV."""
    if ":" in spec and not Path(spec).exists():
        text = subprocess.run(["git", "show", spec], cwd=ROOT, check=True, capture_output=True, text=True).stdout
        return json.loads(text)
    return json.loads(Path(spec).read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clock", choices=tuple(FILES), default="base")
    ap.add_argument("--sampled", help="results that sampled the launches (default: the run at dc95eb2, as committed at a2cf877)")
    ap.add_argument("--full", help="results that timed them in full detail (default: as committed at 2ad15dd, "
                                   "the same model as the sampled ones)")
    a = ap.parse_args()
    sampled = read(a.sampled or f"a2cf877:{FILES[a.clock]}")
    full = read(a.full or f"2ad15dd:{FILES[a.clock]}")
    by_name = {r["name"]: r for r in sampled["records"]}
    rows = []
    for f in full["records"]:
        s = by_name.get(f["name"])
        if (s is None or s["cycles_sim"] is None or s["sampled_bound_pct"] is None or f["cycles_sim"] is None
                or f["sampled_bound_pct"] is not None):
            continue
        rows.append((100 * (s["cycles_sim"] / f["cycles_sim"] - 1), s["sampled_bound_pct"], f, s))
    if not rows:
        print("no launch is sampled in the first file and timed in full detail in the second")
        return
    print(f"{'launch':44s} {'warp inst':>10s} {'H100':>10s} {'full':>10s} {'full err':>8s} {'sampled':>10s} "
          f"{'smp err':>8s} {'smp-full':>8s} {'bound':>6s}")
    for d, bound, f, s in sorted(rows, key=lambda r: -abs(r[0])):
        hw = f["cycles_hw"]
        print(f"{f['name']:44s} {f['inst_hw'] / 1e6:9.1f}M {hw:10,.0f} {f['cycles_sim']:10,.0f} "
              f"{100 * (f['cycles_sim'] / hw - 1):+7.1f}% {s['cycles_sim']:10,.0f} {100 * (s['cycles_sim'] / hw - 1):+7.1f}% "
              f"{d:+7.1f}% {bound:5.0f}%{'' if abs(d) <= bound else '  outside the bound'}")
    dist = [abs(r[0]) for r in rows]
    n = len(rows)
    full_err = [abs(r[2]["cycles_sim"] / r[2]["cycles_hw"] - 1) * 100 for r in rows]
    smp_err = [abs(r[3]["cycles_sim"] / r[2]["cycles_hw"] - 1) * 100 for r in rows]
    print(f"{n} launches; sampled against full detail: median {statistics.median(dist):.1f}%, largest "
          f"{max(dist):.1f}%; within 3%: {sum(x <= 3 for x in dist)}, within 10%: {sum(x <= 10 for x in dist)}, "
          f"over 25%: {sum(x > 25 for x in dist)}; outside the stated bound: {sum(abs(r[0]) > r[1] for r in rows)}")
    print(f"against the H100: full detail MAPE {statistics.mean(full_err):.1f}% (over 25%: "
          f"{sum(x > 25 for x in full_err)}), sampled MAPE {statistics.mean(smp_err):.1f}% (over 25%: "
          f"{sum(x > 25 for x in smp_err)})")


if __name__ == "__main__":
    main()
