"""Errors of a kernel compiled from CUDA name the CUDA line (``faults.cu:LINE``), print it, and give the PTX
position as secondary detail; the fixture pair ``tests/fixtures/faults.{cu,ptx}`` was compiled with
``nvcc -lineinfo``.  Without the ``.cu`` beside the PTX the line is still named; without line information
the error names the PTX line as before."""
import shutil
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim.errors import BarrierDeadlockError, BudgetExceededError, IllegalAddressError, UnsupportedError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PTX = FIXTURES / "faults.ptx"
CU_LINES = (FIXTURES / "faults.cu").read_text().splitlines()
PTX_LINES = PTX.read_text().splitlines()


def cu_line(fragment: str) -> int:
    """1-based line of faults.cu holding `fragment`."""
    (n,) = [i for i, text in enumerate(CU_LINES, 1) if fragment in text]
    return n


def ptx_line(fragment: str) -> int:
    (n,) = [i for i, text in enumerate(PTX_LINES, 1) if fragment in text]
    return n


def oob(source):
    return gpusim.run(source, kernel="out_of_bounds", grid=1, block=64, args=[np.zeros(40, np.float32),
                                                                              np.int32(40)])


def test_an_illegal_address_names_the_cuda_line_shows_it_and_gives_the_ptx_line():
    with pytest.raises(IllegalAddressError) as ei:
        oob(PTX)
    line = cu_line("out[i] = 2.0f * i;")
    head, source, ptx = str(ei.value).splitlines()[:3]
    assert head.startswith(f"faults.cu:{line}: illegal address in kernel 'out_of_bounds'")
    assert "thread (40, 0, 0)" in head and "past the end" in head
    assert source.split("|")[0].strip() == str(line) and "out[i] = 2.0f * i;" in source
    assert ptx.strip().startswith(f"PTX faults.ptx:{ptx_line('st.global.f32')}:") and "st.global.f32" in ptx
    assert ei.value.location.cuda_line == line


def test_a_barrier_deadlock_names_the_barriers_cuda_line_and_each_warps_place():
    with pytest.raises(BarrierDeadlockError) as ei:
        gpusim.run(PTX, kernel="divergent_barrier", grid=1, block=64, args=[np.zeros(64, np.int32)])
    msg = str(ei.value)
    bar = cu_line("__syncthreads();")
    assert msg.startswith(f"faults.cu:{bar}: barrier deadlock in kernel 'divergent_barrier'")
    assert "__syncthreads();" in msg.splitlines()[1]
    assert f"lanes 0-7 wait at bar.sync (faults.cu:{bar}, PTX line {ptx_line('bar.sync')}" in msg
    assert "lanes 8-31 are held on another path" in msg


def test_a_budget_overrun_names_the_line_of_the_loop_it_stopped_in():
    with pytest.raises(BudgetExceededError) as ei:
        gpusim.run(PTX, kernel="spin", grid=1, block=32, args=[np.zeros(1, np.int32)], budget=1_000)
    loop = cu_line("while (*(volatile int *)flag == 0)")
    assert str(ei.value).startswith(f"faults.cu:{loop}: kernel 'spin' exceeded the instruction budget of 1,000")


def test_an_unsupported_instruction_names_its_cuda_line_before_the_kernel_runs():
    with pytest.raises(UnsupportedError) as ei:
        gpusim.run(PTX, kernel="directed_rounding", grid=1, block=32, args=[np.zeros(32, np.float64)])
    msg = str(ei.value)
    assert msg.startswith(f"faults.cu:{cu_line('__dadd_rz')}: add.rz.f64: f64 directed rounding is not modelled")
    assert "__dadd_rz(x[threadIdx.x], 1.0);" in msg
    assert f"PTX faults.ptx:{ptx_line('add.rz.f64')}:" in msg


def test_without_the_cuda_file_beside_the_ptx_the_line_is_named_but_not_shown(tmp_path):
    shutil.copy(PTX, tmp_path / "faults.ptx")
    with pytest.raises(IllegalAddressError) as ei:
        oob(tmp_path / "faults.ptx")
    head, ptx = str(ei.value).splitlines()[:2]
    assert head.startswith(f"faults.cu:{cu_line('out[i] = 2.0f * i;')}: illegal address")
    assert ptx.strip().startswith("PTX faults.ptx:")


def test_without_line_information_the_error_names_the_ptx_line_on_one_line(tmp_path):
    bare = "\n".join(t for t in PTX_LINES if not t.strip().startswith(".loc"))
    (tmp_path / "bare.ptx").write_text(bare)
    with pytest.raises(IllegalAddressError) as ei:
        oob(tmp_path / "bare.ptx")
    line = [i for i, t in enumerate(bare.splitlines(), 1) if "st.global.f32" in t][0]
    msg = str(ei.value)
    assert msg.startswith(f"bare.ptx:{line}:") and "\n" not in msg and ei.value.location.cuda_line is None
