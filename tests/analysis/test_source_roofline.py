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


def test_roofline_point_known_values():
    import gpusim
    r = gpusim.run("matmul_tiled", size="small", mode="timing")
    p = roofline_point(r.trace, r.timing, "h100")
    flops, _ = kernel_flops(r.trace)
    assert p.flops == flops > 2 * 50 ** 3               # at least the real products (tiles are padded)
    assert p.dram_bytes == r.counters["dram__bytes_read.sum"] + r.counters["dram__bytes_write.sum"]
    assert p.peak_flops_per_s == pytest.approx(132 * 4 * 32 * 2 * 1980e6)
    assert p.arithmetic_intensity == pytest.approx(p.flops / p.dram_bytes)
    assert p.bound in ("compute", "memory")


def test_peak_flops_fp64_half_rate():
    from gpusim.config import load_gpu
    g = load_gpu("h100")
    assert peak_flops_per_s(g, "fp64") == pytest.approx(peak_flops_per_s(g) / 2)
