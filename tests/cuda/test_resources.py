"""Reading register counts: ``ptxas -v`` output parsing (always), ptxas itself (when installed), and the cubin
ELF reader on a malformed image."""
from __future__ import annotations

import shutil

import pytest

import programs
from gpusim.cuda import kernel_resources, parse_ptxas_verbose, ptxas_resources
from gpusim.errors import GpusimError

PTXAS_V = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'matmul_tiled_32' for 'sm_90'
ptxas info    : Function properties for matmul_tiled_32
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 8192 bytes smem
ptxas info    : Compiling entry function 'vector_add' for 'sm_90'
ptxas info    : Function properties for vector_add
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers
"""


def test_parse_ptxas_verbose():
    res = parse_ptxas_verbose(PTXAS_V)
    assert res["matmul_tiled_32"].registers == 32 and res["matmul_tiled_32"].shared_bytes == 8192
    assert res["vector_add"].registers == 12 and res["vector_add"].shared_bytes == 0


def test_cubin_reader_rejects_non_elf():
    with pytest.raises(GpusimError, match="ELF64"):
        kernel_resources(b"not an elf file at all")


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not installed")
def test_ptxas_on_a_hand_written_program_matches_its_launch_file():
    spec = programs.get("warp_vote")
    res = ptxas_resources(spec.ptx_path)
    assert res["warp_vote"].registers == spec.registers("warp_vote")


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not installed")
def test_ptxas_rejection_is_a_gpusim_error():
    with pytest.raises(GpusimError, match="ptxas rejected"):
        ptxas_resources(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus; }\n")


def test_without_nvrtc_compile_says_how_to_install(monkeypatch):
    import sys

    from gpusim.cuda import compile_cuda
    from gpusim.errors import ToolMissingError

    monkeypatch.setitem(sys.modules, "cuda.bindings.nvrtc", None)   # makes the import fail
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)
    with pytest.raises(ToolMissingError, match=r"pip install -e \.\[cuda\]"):
        compile_cuda('extern "C" __global__ void k() {}\n')
