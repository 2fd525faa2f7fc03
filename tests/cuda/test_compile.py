"""gpusim.cuda.compile_cuda: CUDA C -> PTX through NVRTC, register counts from the cubin, the cache, errors.

Skipped without the ``[cuda]`` extra (cuda-bindings + nvidia-cuda-nvrtc)."""
from __future__ import annotations

import json
import re

import pytest

import programs
from gpusim.errors import GpusimError

pytest.importorskip("cuda.bindings.nvrtc")
from gpusim.cuda import CompileError, compile_cuda, nvrtc_version  # noqa: E402

SAXPY = """extern "C" __global__ void saxpy(int n, float a, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUSIM_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_compiles_text_to_ptx_for_compute_90_with_line_info():
    mod = compile_cuda(SAXPY)
    assert re.search(r"^\.target sm_90", mod.ptx, re.M)
    assert ".visible .entry saxpy(" in mod.ptx
    assert re.search(r"^\s*\.loc\s+1 4 ", mod.ptx, re.M)     # CUDA line 4 (the if) appears in .loc
    assert list(mod.kernels) == ["saxpy"] and 0 < mod.kernels["saxpy"] <= 255
    assert mod.cached is False


def test_without_line_info_there_are_no_loc_directives():
    assert ".loc" not in compile_cuda(SAXPY, line_info=False).ptx


def test_second_compile_comes_from_the_cache(private_cache):
    first = compile_cuda(SAXPY)
    second = compile_cuda(SAXPY)
    assert second.cached and second.ptx == first.ptx and second.kernels == first.kernels
    assert len(list(private_cache.glob("*.json"))) == 1
    assert compile_cuda(SAXPY, options=("-DUNUSED=1",)).cached is False   # options are part of the key
    assert len(list(private_cache.glob("*.json"))) == 2


def test_damaged_cache_entry_is_rebuilt(private_cache):
    compile_cuda(SAXPY)
    entry, = private_cache.glob("*.json")
    entry.write_text("{not json")
    again = compile_cuda(SAXPY)
    assert again.cached is False and ".entry saxpy" in again.ptx
    assert json.loads(entry.read_text())["kernels"] == again.kernels


def test_compile_error_carries_nvrtc_log():
    with pytest.raises(CompileError) as info:
        compile_cuda('extern "C" __global__ void k(int* a) { a[0] = undefined_name; }\n')
    assert isinstance(info.value, GpusimError)
    assert "undefined_name" in info.value.log and "kernel.cu(1)" in str(info.value)


def test_missing_file_and_bad_arch_are_clear_errors(tmp_path):
    with pytest.raises(GpusimError, match="not found"):
        compile_cuda(tmp_path / "missing.cu")
    with pytest.raises(GpusimError, match="unknown GPU architecture"):
        compile_cuda(SAXPY, arch="hopper")


@pytest.mark.parametrize("name", ["matmul_tiled", "conv2d_tiled", "reduce_warp_shuffle", "histogram_smem"])
def test_bundled_programs_compile_with_the_launch_files_register_counts(name):
    """NVRTC's cubin agrees with ptxas's register counts in the launch files (same compiler back end), and
    its static shared memory with the parsed PTX's."""
    from isa.parser import load_ptx
    spec = programs.get(name)
    mod = compile_cuda(spec.cu_path)
    assert set(mod.kernels) == set(spec.kernels)
    for kernel in spec.kernels:
        assert mod.kernels[kernel] == spec.registers(kernel)
        assert mod.shared_bytes[kernel] == load_ptx(spec.ptx_path).kernel(kernel).shared_bytes
    # __constant__ variables keep their CUDA names in PTX
    if name == "conv2d_tiled":
        assert re.search(r"\.const \.align 4 \.b8 Mc\[100\]", mod.ptx)


def test_nvrtc_version_is_a_pair():
    major, minor = nvrtc_version()
    assert major >= 12 and minor >= 0
