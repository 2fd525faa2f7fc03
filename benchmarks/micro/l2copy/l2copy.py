"""Far L2 lines copied near the reader (l2copy.cu): run on the GPU machine, one call.

    python3 l2copy.py --cubin l2copy.cubin --out DIR          # DIR/l2copy.json
    python3 l2copy.py --cubin l2copy.cubin launch SPEC.json   # (ncu's child) launch each case once
    python3 l2copy.py --cubin l2copy.cubin --out DIR each     # section each alone (chase_each)

On the GPU machine l2copy.py, ../onecall.py and ../walk/walk.py go in one folder with the cubin.

Build (CUDA 13.0; the cubin is a build product, not committed):

    nvcc -cubin -arch=sm_90 -O3 -o l2copy.cubin l2copy.cu

Cases: the warmer is block 1..131 of a 132-block launch (each on its own SM) or block 0 itself.  Section
``clock``: per case 5 launches, each on 2048 lines never read before (no copy left from an earlier launch):
the chaser's and the warmer's SM and the chase's cycles per load.  Section ``ncu``: each case once under ncu
(L2 flushed before the launch, the warming inside it): L2 sectors read, from the fabric, hit rate.  Section
``each`` (``chase_each``): every load's cycles, on cold lines (DRAM) or after a warmer (L2), 4 KB apart, fresh
lines every launch: percentiles and the full distribution, where a near/far split shows as two modes.
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import onecall  # the ncu section, the command line, the provenance

CUBIN = "l2copy.cubin built from l2copy.cu (nvcc 13.0 -cubin -arch=sm_90 -O3)"
NCU_METRICS = ["gpc__cycles_elapsed.max", "lts__t_sectors_op_read.sum", "lts__t_sectors_srcunit_ltcfabric.sum",
               "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum"]
BLOCKS = 132
LINES = 2048                    # lines per chase (256 KB)
WORDS_PER_LINE = 32
REGIONS = BLOCKS * 7            # a fresh region for every launch: 5 timed + 1 warm-up per case, and ncu's


def cases() -> list[dict]:
    return [{"kernel": "copy_chase", "warm_block": w} for w in range(BLOCKS)]


def make_buffers(cp) -> dict:
    rng = np.random.default_rng(7)
    order = rng.permutation(LINES)
    nxt = np.empty(LINES, np.int64)
    nxt[order] = np.roll(order, -1)              # a single cycle through every line
    words = np.zeros(REGIONS * LINES * WORDS_PER_LINE, np.uint32)
    for r in range(REGIONS):
        base = r * LINES
        words[(base + np.arange(LINES)) * WORDS_PER_LINE] = (base + nxt) * WORDS_PER_LINE
    return {"chain": cp.asarray(words), "flag": cp.zeros(1, cp.uint32), "out": cp.zeros(4, cp.uint32),
            "next_region": [0], "order0": int(order[0])}


def launch_case(mod, cp, case: dict, bufs: dict) -> dict:
    region = bufs["next_region"][0] % REGIONS
    bufs["next_region"][0] += 1
    start = np.uint32((region * LINES + bufs["order0"]) * WORDS_PER_LINE)
    bufs["flag"].fill(0)
    bufs["out"].fill(0)
    fn = mod.get_function(case["kernel"])
    fn((BLOCKS,), (32,), (bufs["chain"], start, np.int32(LINES), np.int32(case["warm_block"]), bufs["flag"],
                          bufs["out"]))
    out = bufs["out"].get()
    return {"chaser_sm": int(out[0]), "warmer_sm": int(out[1]), "cycles_per_load": float(out[2]) / LINES}


def section_clock(mod, cp) -> list[dict]:
    bufs = make_buffers(cp)
    rows = []
    for case in cases():
        launch_case(mod, cp, case, bufs)                   # warm-up (module load)
        runs = [launch_case(mod, cp, case, bufs) for _ in range(5)]
        med = statistics.median(r["cycles_per_load"] for r in runs)
        rows.append({**case, "runs": runs, "cycles_per_load_median": med})
        print(f"warm block {case['warm_block']:3d}: SMs {[(r['chaser_sm'], r['warmer_sm']) for r in runs]} "
              f"{med:.1f} cycles per load", flush=True)
    return rows


EACH_STRIDE_WORDS = 1024        # chase_each: lines 4 KB apart, 8 MB a region (fits the L2 once warmed)
EACH_REGIONS = 128              # 1 GB: every launch on lines never read before


def section_each(mod, cp) -> list[dict]:
    """chase_each: each load's cycles, block 0 alone on cold lines (DRAM) or after a warmer (L2), per launch."""
    rng = np.random.default_rng(11)
    order = rng.permutation(LINES)
    nxt = np.empty(LINES, np.int64)
    nxt[order] = np.roll(order, -1)
    words = np.zeros(EACH_REGIONS * LINES * EACH_STRIDE_WORDS, np.uint32)
    for r in range(EACH_REGIONS):
        base = r * LINES
        words[(base + np.arange(LINES)) * EACH_STRIDE_WORDS] = (base + nxt) * EACH_STRIDE_WORDS
    chain = cp.asarray(words)
    del words
    flag, out = cp.zeros(1, cp.uint32), cp.zeros(4, cp.uint32)
    times = cp.zeros(LINES, cp.uint32)
    fn = mod.get_function("chase_each")
    rows = []
    plan = [-1] * 8 + [w for w in range(1, 17) for _ in range(2)]
    for i, warm in enumerate(plan):
        region = (i + 1) % EACH_REGIONS                 # region 0: the module's warm-up launch
        start = np.uint32((region * LINES + int(order[0])) * EACH_STRIDE_WORDS)
        flag.fill(0)
        out.fill(0)
        fn((BLOCKS,), (32,), (chain, start, np.int32(LINES), np.int32(warm), flag, out, times,
                              np.uint32(0xFFFFFFFF)))
        t = times.get().astype(int)
        o = out.get()
        pct = {f"p{q}": float(np.percentile(t, q)) for q in (10, 25, 50, 75, 90)}
        rows.append({"warm_block": warm, "chaser_sm": int(o[0]), "warmer_sm": int(o[1]) if warm > 0 else None,
                     **pct, "mean": float(t.mean()), "cycles": t.tolist()})
        print(f"chase_each warm {warm:3d} SM {int(o[0])}/{int(o[1])}: " +
              " ".join(f"{k} {v:.0f}" for k, v in pct.items()) + f" mean {t.mean():.1f}", flush=True)
    return rows


def main() -> int:
    rec = onecall.main(doc=__doc__, name="l2copy", script=str(Path(__file__).resolve()), cases=cases,
                       make_buffers=make_buffers, launch_case=launch_case, section_clock=section_clock,
                       ncu_metrics={"ncu": NCU_METRICS}, kernel_prefix="copy_", cubin_note=CUBIN)
    if rec is None:
        return 0
    if "each" in sys.argv:
        import cupy as cp
        mod = cp.RawModule(path=str(Path(sys.argv[sys.argv.index("--cubin") + 1])))
        rec["each"] = section_each(mod, cp)
        out = Path(sys.argv[sys.argv.index("--out") + 1]) / "l2copy.json"
        out.write_text(json.dumps(rec, indent=1))
    meds = sorted(r["cycles_per_load_median"] for r in rec.get("clock", []))
    if meds:
        print(f"cycles per load over the {len(meds)} warmers: min {meds[0]:.1f}, median "
              f"{statistics.median(meds):.1f}, max {meds[-1]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
