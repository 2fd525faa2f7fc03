"""The model against the H100's under-load microbenchmarks (``tests/golden/h100/micro/``), point by point:
the stream curves (bandwidth against warps per SM, ILP, access width; DRAM- or L2-resident; the chip or one
SM) and the global atomics rates (one address, a few words, distinct words, warp-aggregated), each rebuilt
as a synthetic trace by :mod:`gpusim.hw.micro_model` and timed on the ``h100-boost`` preset (the sweeps ran
outside ncu, at 1980 MHz); and one thread's loads in flight (``walk.json``: the walks of
``benchmarks/micro/walk/walk.cu``, their PTX run through the emulator and the ``h100`` preset against ncu's
``gpc__cycles_elapsed.max`` at its base clock).

Tolerance: 25% on every point here (the runs are ~1-4% of the recorded ~1 ms windows, so the first latency
weighs a few percent).  ``benchmarks/micro/model_curves.py`` prints the whole curves.
"""
import json
import sys
from pathlib import Path

import pytest

from gpusim.hw.micro_model import StreamPoint, simulate_atomics, simulate_stream

MICRO = Path(__file__).resolve().parents[1] / "golden" / "h100" / "micro"
WALK = Path(__file__).resolve().parents[2] / "benchmarks" / "micro" / "walk"
TOLERANCE = 0.25


def _sweep_row(group, op, vec, ilp, warps):
    rows = json.loads((MICRO / "sweep.json").read_text())["rows"]
    return next(r for r in rows if r["group"] == group and r["op"] == op and r["vec"] == vec
                and r["ilp"] == ilp and r["warps_per_active_sm"] == warps)


@pytest.mark.parametrize("group, op, vec, ilp, warps", [
    ("chip_dram_v4", "read", 4, 1, 1),        # latency-bound: Little's law on the DRAM latency
    ("chip_dram_v4", "copy", 4, 1, 4),        # reads and writes
    ("sm1_dram_v4", "read", 4, 4, 16),        # one SM, DRAM latency x loads in flight
    ("sm1_l2_v4", "read", 4, 8, 32),          # one SM from L2: the crossbar port / issue
    ("sm1_l2_v4", "gather", 4, 4, 32),        # one SM, random sectors from L2: a miss line per SM cycle
])
def test_stream_bandwidth_matches_the_h100_sweep(group, op, vec, ilp, warps):
    row = _sweep_row(group, op, vec, ilp, warps)
    sim = simulate_stream(StreamPoint.of_row(row), target_bytes=3e6)["gbps"]
    assert sim == pytest.approx(row["gbps"], rel=TOLERANCE), f"simulated {sim:.1f} GB/s, H100 {row['gbps']} GB/s"


def _l1size_row(smem):
    rows = json.loads((MICRO / "sweep3.json").read_text())["rows"]
    return next(r for r in rows if r["group"] == "sm1_l1size" and r["op"] == "read" and r["mem"] == "dram"
                and r["smem"] == smem)


def _l1size_points():
    wide = simulate_stream(StreamPoint("read", "dram", 16, 8, 32, 1), target_bytes=4e6)["gbps"]
    narrow = simulate_stream(StreamPoint("read", "dram", 16, 8, 32, 1, blocks_per_sm=1),
                             target_bytes=4e6, shared_bytes=228 * 1024 - 1024)["gbps"]
    return wide, narrow


def test_the_in_flight_limit_is_the_l1_the_carve_out_leaves():
    """One SM, 32 warps x 8 independent 16-byte DRAM loads: at a 224 KB shared-memory carve-out (28 KB of L1)
    the SM keeps 224 lines in flight and reaches about a third of what it reaches with the full L1 (sweep3:
    66.6 vs 214.2 GB/s, a ratio of 0.31)."""
    wide, narrow = _l1size_points()
    assert wide == pytest.approx(_l1size_row(0)["gbps"], rel=TOLERANCE)
    assert narrow / wide == pytest.approx(_l1size_row(229376)["gbps"] / _l1size_row(0)["gbps"], rel=TOLERANCE)


@pytest.mark.xfail(strict=True, reason=(
    "measured, not modelled: on the H100 a line held in flight under this light stream takes 28 KB / 66.6 GB/s = "
    "430 ns (60 KB / 136.5 GB/s = 450 ns at a 192 KB carve-out), the model 341 ns, the unloaded round trip it "
    "takes from the chases (the DRAM latency 144 ns and the far-hit 440 cycles of benchmarks/micro/l2copy): "
    "84.2 GB/s against 66.6 (+26%), 176.7 against 136.5 (+29%)"))
def test_a_line_in_flight_at_the_l1_limit_takes_the_h100s_time():
    _, narrow = _l1size_points()
    assert narrow == pytest.approx(_l1size_row(229376)["gbps"], rel=TOLERANCE)


def _atomic_rate(key):
    rec = json.loads((MICRO / "params.json").read_text())["atomics"]["per_pattern"]
    return rec[key]["atomics_per_ns"]


@pytest.mark.parametrize("kind, pattern, record, kw", [
    ("red_i", "one", "red_i/one", dict(sms=8, warps=4)),                       # 1.27 L2 cycles per lane
    ("atom_f", "one", "atom_f/one", dict(sms=8, warps=4)),                     # 3.03 for fp32
    ("red_i", "distinct_coalesced", "red_i/distinct_coalesced", dict(iters=16)),   # 4 words per slice-cycle
    ("red_i", "wagg_one", "wagg_i/one", dict(warps=8)),                        # one lane per warp
])
def test_atomic_rate_matches_the_h100(kind, pattern, record, kw):
    sim = simulate_atomics(kind, pattern, **kw)["ops_per_ns"]
    assert sim == pytest.approx(_atomic_rate(record), rel=TOLERANCE)


@pytest.mark.parametrize("kind, record, kw", [("red_i", "uniform_i/one", dict(warps=8)),
                                              ("red_f", "uniform_f/one", dict(sms=8, warps=4))])
def test_an_atomic_add_to_a_uniform_address_runs_at_the_rate_ptxas_aggregation_gives(kind, record, kw):
    """``atomicAdd(p, 1)`` on one compile-time-uniform address from every lane: the H100 does 43 integer adds
    per ns (ptxas sends one RED per warp: 32 lanes per L2 atomic at the one-address rate of 1.35 per ns) but
    only 0.56 float adds per ns (not aggregated: one L2 atomic per lane)."""
    rec = json.loads((MICRO / "params.json").read_text())["atomics"]["per_pattern"][record]
    sim = simulate_atomics(kind, "uniform_one", **kw)["ops_per_ns"]
    assert sim == pytest.approx(rec["thread_ops_per_ns"], rel=TOLERANCE)


def _hotspot_l2_cycles(kernel, m=1, k=1):
    rows = json.loads((MICRO / "hotspot.json").read_text())["rows"]
    row = next(r for r in rows if r["kernel"] == kernel and r["m"] == m and r["k"] == k and r.get("gap") is None)
    return row["derived"]["l2_cycles_per_request"]


@pytest.mark.parametrize("kind, kernel", [("atom_i", "hs_atom_i1"), ("red_i", "hs_red_i1"),
                                          ("atom_f", "hs_atom_f1"), ("red_f", "hs_red_f1")])
def test_one_lane_a_warp_on_one_address_runs_at_the_same_address_rate(kind, kernel):
    """One lane of each of 132 x 8 warps adding to one counter (HeCBench filter's warp-aggregated counter):
    the GH100 takes 1.27 L2 cycles a request whether the result comes back (ATOM) or not (RED), the rate of
    lanes on one address, not a lookup per request (2.04 / 1.52 L2 cycles on random sectors); fp32 3.0, its
    adder's own rate (``hotspot.json``, an H200).  The slice's atomic unit holds the sector of the request
    before (``memory.l2.atomic_same_sector_joins``).  10%: without it the model gave 2.09 (ATOM) and 1.57."""
    from gpusim.config import load_gpu
    sim = simulate_atomics(kind, "wagg_one", warps=8)
    l2_cycles = load_gpu("h100-boost").memory.l2.clock_mhz * 1e-3 / sim["ops_per_ns"]
    assert l2_cycles == pytest.approx(_hotspot_l2_cycles(kernel), rel=0.10)


def _walk_case(kernel, **key):
    rows = json.loads((MICRO / "walk.json").read_text())["ncu"]["rows"]
    return next(r for r in rows if r["kernel"] == kernel and all(r.get(k) == v for k, v in key.items()))


@pytest.mark.parametrize("kernel, key", [
    ("walk_sum", {"m": 2048, "stride_bytes": 8192}),       # gramschmidt_1's column walk: ptxas unrolls 4 x 4
    ("walk_sum", {"m": 2048, "stride_bytes": 256}),
    ("walk_sum", {"m": 200, "stride_bytes": 256}),          # gramschmidt_1 small's column
    ("walk_sum_u1", {"m": 2048, "stride_bytes": 8192}),    # `#pragma unroll 1`: one DRAM latency per element
    ("walk_ilp_8", {"m": 2048, "stride_bytes": 8192}),     # 8 loads per trip of a loop kept rolled (nounroll)
    ("walk_ilp_32", {"m": 2048, "stride_bytes": 8192}),    # 32 written out: ptxas keeps 16 live
    ("walk_csr", {"m": 2048, "nx": 4096}),                 # val[i] * x[col[i]]: every col load before the gathers
])
def test_one_threads_walk_matches_the_h100(kernel, key):
    """ptxas's unrolling and load hoisting (:mod:`gpusim.timing.loop_unroll`, ``decode.hoist_permutation``):
    before them the model took 2.9x the H100's cycles on walk_sum (the 4 loads of the PTX's body in flight,
    not ptxas's 16) and 0.6x on walk_ilp_32 (32 in flight, not 16)."""
    sys.path.insert(0, str(WALK))
    from compare import simulate
    case = _walk_case(kernel, **key)
    sim = simulate(case)
    hw = case["ncu"]["gpc__cycles_elapsed.max"]
    assert sim == pytest.approx(hw, rel=TOLERANCE), f"simulated {sim:,} cycles, H100 {hw:,.0f}"


STMERGE_TOLERANCE = {   # case of benchmarks/micro/stmerge/compare.py: (relative tolerance, why)
    "idle, stores ~50 cycles apart": 0.02,                 # 1.000 requests a store: nothing to merge with
    "idle, one warp back to back": 0.10,                   # 0.250: a burst of 4 unrolled STGs, one request
    "one address, one warp ~50 cycles apart": 0.25,        # the busy slice's write requests per L2 cycle: 0.48
    "one address, 8 warps back to back": 0.35,             # 0.0044: ~230 stores a request
    "one address, an L2 load after each store": 0.02,      # 1.000: the load sends the waiting store out
    "own line, an L2 load after each store": 0.02,
    "8 warps, stores of 8 lines, the same lines": 1.0,     # 0.067 a line (the model 0.13: within 2x)
    "8 warps, stores of 32 lines, the same lines": 0.02,   # 1.000: a 32-line store never merges
}


@pytest.mark.parametrize("case", list(STMERGE_TOLERANCE))
def test_stores_merge_in_the_l1_as_on_the_gh100(case):
    """The L1 merges a store into the SM's open write request for its line (``l1.store_merge_window_cycles``,
    ``tests/golden/h100/micro/stmerge.json``, an H200): within 16 cycles of it, or while its busy slice
    has not taken it, and not once a read request has left the SM; a store of more than 8 lines does not
    merge (``l1.store_merge_max_lines``: a naive transpose's 32-line stores).  Without the window the back-to-back
    cases give 1 request a store (0.25 and 0.004 measured); with it but without the read rule the L2-load
    cases merge (SHOC BFS size4 then ran -80% in full detail, +2% with it)."""
    import importlib.util        # by path: walk's compare.py is imported as `compare` above
    spec = importlib.util.spec_from_file_location("stmerge_compare", WALK.parent / "stmerge" / "compare.py")
    compare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compare)
    hw = compare.measured(case)
    sim = compare.simulate(case)
    assert sim == pytest.approx(hw, rel=STMERGE_TOLERANCE[case]), f"model {sim:.4f}, GH100 {hw:.4f}"
