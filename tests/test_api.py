"""gpusim.run: sources, launches, argument semantics and errors, as a user meets them."""
from __future__ import annotations

import numpy as np
import pytest

import gpusim
from gpusim.config import load_gpu
from gpusim.errors import USER_ERRORS, GpusimError, LaunchError

SAXPY = """
.version 8.0
.target sm_90
.address_size 64
.const .align 4 .f32 gain;
.global .align 4 .u32 calls;
.visible .entry saxpy(.param .u64 px, .param .u64 py, .param .f32 pa, .param .u32 pn)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<6>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [px];
    ld.param.u64 %rd2, [py];
    ld.param.f32 %f1, [pa];
    ld.param.u32 %r1, [pn];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.u32 %rd5, %r5, 4;
    add.s64 %rd6, %rd3, %rd5;
    add.s64 %rd7, %rd4, %rd5;
    ld.global.f32 %f2, [%rd6];
    ld.global.f32 %f3, [%rd7];
    ld.const.f32 %f4, [gain];
    mul.f32 %f5, %f1, %f4;
    fma.rn.f32 %f3, %f5, %f2, %f3;
    st.global.f32 [%rd7], %f3;
    red.global.add.u32 [calls], 1;
DONE:
    ret;
}
"""


def _saxpy(n=100):
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    return x, y


def test_ptx_text_runs_and_the_callers_arrays_are_untouched():
    x, y = _saxpy()
    res = gpusim.run(SAXPY, grid=1, block=128, args=[x, y, np.float32(2.0), np.uint32(100)],
                     symbols={"gain": np.float32(1.5)})
    assert np.array_equal(y, np.ones(100, np.float32))             # caller's buffer untouched
    expected = (np.float32(3.0) * x).astype(np.float32) + np.float32(1.0)
    assert np.array_equal(res.args[1], expected)
    assert res.symbols["calls"].view(np.uint32)[0] == 100          # __device__ variable read back
    assert res.symbols["gain"] == np.float32(1.5)


def test_bundled_program_by_name_takes_its_launch_and_inputs_from_its_launch_file():
    res = gpusim.run("vector_add", size="small", mode="emulate", check=True)
    assert res.check.ok
    assert res.grid == (40, 1, 1) and res.block == (256, 1, 1)


def test_bundled_cu_path_runs_the_checked_in_ptx_without_nvrtc():
    res = gpusim.run("programs/transpose_padded.cu", size="small", check=True)
    assert res.check.ok and res.source == "transpose_padded.ptx"


def test_grid_override_derives_a_fitting_problem_size():
    res = gpusim.run("programs/reduce_sequential.ptx", grid=64, block=256, check=True)
    assert res.check.ok and res.size == "n=16384"


def test_dynamic_shared_memory_is_a_launch_argument_in_bytes():
    res = gpusim.run("reduce_sequential", size="small", check=True)
    assert res.shared_mem == 256 * 4 and res.check.ok


def test_timing_mode_keeps_emulate_outputs_and_adds_counters():
    emu = gpusim.run("matmul_tiled", size="small", mode="emulate")
    tim = gpusim.run("matmul_tiled", size="small", mode="timing", gpu="h100")
    assert np.array_equal(emu.args[2], tim.args[2])
    # the timing model issues the LDS.128 ptxas makes of four ld.shared.f32 (gpusim.timing.vector_merge)
    unfused = gpusim.run("matmul_tiled", size="small", mode="timing",
                         gpu=load_gpu("h100").replace(fuse_alu_instructions=False, if_convert_max_instructions=0))
    timed = unfused.timing.trace
    merged = sum(int((timed.pc == pc).sum()) for pc, i in enumerate(timed.instructions) if ".v4." in i.opcode)
    assert merged > 0
    assert unfused.counters["smsp__inst_executed.sum"] == timed.n_instructions == \
        emu.stats.warp_instructions - 3 * merged
    # ... and folds integer address arithmetic into three-input instructions (gpusim.timing.fusion), issues the
    # boundary checks' short bodies predicated (gpusim.timing.ifconvert)
    assert tim.counters["smsp__inst_executed.sum"] == tim.timing.trace.n_instructions != timed.n_instructions
    assert tim.cycles > 0
    with pytest.raises(GpusimError, match="timing mode"):
        _ = emu.counters


@pytest.mark.parametrize("kwargs, message", [
    (dict(grid=1, block=2048), "limit is 1024"),
    (dict(grid=0, block=32), ">= 1"),
    (dict(grid=1, block=32, args=[]), "takes 4 arguments"),
    (dict(grid=1, block=32, mode="fast"), "mode must be one of"),
])
def test_bad_launches_are_clear_errors(kwargs, message):
    x, y = _saxpy()
    kw = dict(args=[x, y, np.float32(1), np.uint32(100)])
    kw.update(kwargs)
    with pytest.raises(LaunchError, match=message):
        gpusim.run(SAXPY, **kw)


def test_unknown_kernel_and_symbol_are_named():
    x, y = _saxpy()
    with pytest.raises(LaunchError, match="no kernel 'nope'.*saxpy"):
        gpusim.run(SAXPY, kernel="nope", grid=1, block=32, args=[x, y, np.float32(1), np.uint32(4)])
    with pytest.raises(LaunchError, match="no module variable 'Q'"):
        gpusim.run(SAXPY, grid=1, block=32, args=[x, y, np.float32(1), np.uint32(4)], symbols={"Q": x})


def test_a_value_parameter_rejects_an_array_and_out_of_range_ints():
    x, y = _saxpy()
    with pytest.raises(LaunchError, match="is a value"):
        gpusim.run(SAXPY, grid=1, block=32, args=[x, y, x, np.uint32(4)])
    with pytest.raises(LaunchError, match="does not fit"):
        gpusim.run(SAXPY, grid=1, block=32, args=[x, y, np.float32(1), -1 << 40])


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(USER_ERRORS, match="no such file"):
        gpusim.run(str(tmp_path / "nothing.ptx"), grid=1, block=1, args=[])


def test_a_users_file_named_like_a_bundled_program_does_not_get_its_launch_file(tmp_path):
    mine = tmp_path / "vector_add.ptx"
    mine.write_text(SAXPY)
    with pytest.raises(LaunchError, match="vector_add.ptx: no launch file says how to launch it .*gpusim init"):
        gpusim.run(str(mine))


def test_a_string_argument_names_the_parameter_and_its_type():
    x = np.zeros(4, dtype=np.float32)
    with pytest.raises(LaunchError, match=r"argument 3 \(\w+: .u32\) must be a number or numpy scalar, not the "
                                          r"string '100'"):
        gpusim.run("vector_add", grid=1, block=32, args=[x, x, x, "100"])
