import numpy as np
import pytest

from gpusim.analysis.roofline import flops_per_thread, kernel_flops, peak_flops_per_s, roofline_point
from gpusim.analysis.source import has_line_info, source_table


@pytest.mark.parametrize("op,expect", [("fma.rn.f32", (2, "f32")), ("add.f32", (1, "f32")), ("mul.rn.f64", (1, "f64")),
                                       ("add.s32", (0, None)), ("ld.global.f32", (0, None)), ("mad.lo.s32", (0, None))])
def test_flops_per_thread(op, expect):
    assert flops_per_thread(op) == expect


def test_source_rows_cover_all_cycles(transpose_run):
    r = transpose_run
    total = sum(r.stalls.values())
    for by in ("ptx", "cuda"):
        rows = source_table(r.trace, r.timing, by=by)
        assert sum(x.stall_cycles for x in rows) == total
        assert sum(x.inst_executed for x in rows) == r.trace.n_instructions
    assert has_line_info(r.trace)
    cuda = source_table(r.trace, r.timing, by="cuda")
    assert any("__syncthreads" in x.text for x in cuda)       # the CUDA text is read from programs/


def test_stalls_are_charged_to_the_lines_that_waited(transpose_run):
    """The issue's case: barrier waits on the __syncthreads() line (not the line after it), branch waits on
    the if, and nothing on the kernel's signature line (its ld.param are folded into their users)."""
    from gpusim.analysis.source import attributed_stalls, pc_stalls
    from gpusim.timing.warp_states import StallReason
    r = transpose_run
    raw = pc_stalls(r.timing, len(r.trace.instructions))
    fixed = attributed_stalls(r.trace, r.timing)
    assert (fixed.sum(axis=0) == raw.sum(axis=0)).all()                 # every state keeps its total
    rows = {x.key: x for x in source_table(r.trace, r.timing, by="cuda")}
    bar = int(StallReason.BARRIER)
    assert "__syncthreads" in rows["transpose_smem.cu:18"].text
    assert rows["transpose_smem.cu:18"].stalls[bar] == r.stalls["barrier"] > 0
    assert rows["transpose_smem.cu:10"].stall_cycles == 0                # the signature line
    assert rows["transpose_smem.cu:10"].inst_executed > 0                # ... whose ld.param did execute
    br = int(StallReason.BRANCH_RESOLVING)
    branch_lines = {x.key for x in rows.values() if x.stalls[br]}
    assert branch_lines <= {"transpose_smem.cu:16", "transpose_smem.cu:23"}  # the two ifs


def test_roofline_point_known_values():
    import gpusim
    r = gpusim.run("matmul_tiled", size="small", mode="timing")
    p = roofline_point(r.trace, r.timing, "h100")
    flops, _ = kernel_flops(r.trace)
    assert p.flops == flops > 2 * 50 ** 3               # at least the real products (tiles are padded)
    assert p.dram_bytes == r.counters["dram__bytes_read.sum"] + r.counters["dram__bytes_write.sum"]
    assert p.peak_flops_per_s == pytest.approx(132 * 4 * 32 * 2 * 1590e6)    # h100 at its base clock
    assert p.arithmetic_intensity == pytest.approx(p.flops / p.dram_bytes)
    # the case: the tiled matmul sits right of the ridge point, far below both roofs: latency-bound
    assert p.ridge_side == "compute" and p.compute_fraction < 0.01 and p.bandwidth_fraction < 0.01
    assert p.bound == "latency" and "below both roofs" in p.bound_text()


def test_roofline_bound_by_the_roof_it_reaches():
    from gpusim.analysis.roofline import NEAR_ROOF, RooflinePoint

    def point(flops, dram):          # 1 s on a GPU of 100 FLOP/s and 10 B/s: fractions are flops/100, dram/10
        return RooflinePoint("k", "g", flops, 0, dram, 1.0, 100.0, 50.0, 10.0)
    assert point(70, 1).bound == "compute" and point(70, 1).compute_fraction == pytest.approx(0.7)
    assert point(5, 9).bound == "memory" and point(5, 9).ridge_side == "memory"
    assert point(59, 5.9).bound == "latency" and NEAR_ROOF == 0.6
    assert point(60, 1).bound == "compute"                     # at the threshold: bound by it


def test_peak_flops_fp64_half_rate():
    from gpusim.config import load_gpu
    g = load_gpu("h100")
    assert peak_flops_per_s(g, "fp64") == pytest.approx(peak_flops_per_s(g) / 2)
