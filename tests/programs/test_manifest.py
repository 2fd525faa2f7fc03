"""The bundled programs' launch files: every spec loads, its launch, arguments and reference agree with the PTX, and the
catalog API behaves as documented."""
from __future__ import annotations

import re

import numpy as np
import pytest

import programs
from gpusim.errors import GpusimError

ALL = programs.names()
SMALL_THREADS = 20_000     # "small" sizes run in the emulator in the test suite

_ENTRY = re.compile(r"\.entry\s+([\w$]+)\s*\((.*?)\)", re.S)
_PARAM = re.compile(r"\.param\s+\.(\w+)")


def ptx_entries(text: str) -> dict[str, list[str]]:
    """{entry name: [param type, ...]} from PTX text (a regex, enough for the checked-in files)."""
    return {m.group(1): _PARAM.findall(m.group(2)) for m in _ENTRY.finditer(text)}


def scalar_ptx_types(value) -> set[str]:
    """PTX .param types that a numpy scalar argument may bind to."""
    return {np.dtype(np.int32): {"u32", "s32", "b32"}, np.dtype(np.uint32): {"u32", "s32", "b32"},
            np.dtype(np.float32): {"f32", "b32"}}[np.dtype(type(value))]


def test_catalog_lists_the_seed_programs():
    required = {"vector_add", "blur", "matmul_naive", "matmul_tiled", "conv1d_basic", "conv1d_const",
                "conv2d_tiled", "reduce_interleaved", "reduce_strided_index", "reduce_sequential",
                "reduce_warp_shuffle", "scan_kogge_stone", "scan_brent_kung", "histogram_smem",
                "transpose_naive", "transpose_smem", "transpose_padded", "stencil7", "smem_stride_probe",
                "gmem_stride_probe", "divergence"}
    assert required <= set(ALL)
    assert ALL == sorted(ALL)
    hand = [n for n in ALL if programs.get(n).cu_path is None]
    assert len(hand) >= 2


def test_unknown_program_error_lists_the_names():
    with pytest.raises(GpusimError, match="unknown program 'nope'.*vector_add"):
        programs.get("nope")


def test_unknown_size_error_lists_the_sizes():
    with pytest.raises(GpusimError, match="no size 'huge'.*small"):
        programs.get("vector_add").launch("huge")


def test_find_by_path_stem_or_extension():
    assert programs.find("programs/matmul_tiled.cu").name == "matmul_tiled"
    assert programs.find("/elsewhere/reduce_sequential.ptx").name == "reduce_sequential"
    assert programs.find("saxpy_hand").name == "saxpy_hand"
    assert programs.find("programs/matmul_tiled.txt") is None
    assert programs.find("my_kernel.cu") is None


@pytest.mark.parametrize("name", ALL)
def test_files_exist_and_kernels_are_ptx_entries(name):
    spec = programs.get(name)
    assert spec.ptx_path.is_file()
    if spec.cu_path is not None:
        assert spec.cu_path.is_file()
        for kernel in spec.kernels:   # extern "C": the CUDA name is the PTX name
            assert re.search(rf'extern "C" __global__ void {kernel}\(', spec.cu_path.read_text())
    entries = ptx_entries(spec.ptx_path.read_text())
    assert set(spec.kernels) == set(entries)
    assert spec.description and spec.topic and spec.tolerance.why


@pytest.mark.parametrize("name", ALL)
def test_every_size_launches_a_kernel_of_the_program_with_matching_arguments(name):
    spec = programs.get(name)
    entries = ptx_entries(spec.ptx_path.read_text())
    assert spec.default_size in spec.sizes
    for size in spec.sizes:
        launch = spec.launch(size)
        assert launch.kernel in spec.kernels
        assert all(d >= 1 for d in launch.grid + launch.block) and np.prod(launch.block) <= 1024
        args = spec.make_args(size)
        types = entries[launch.kernel]
        assert len(args) == len(types), f"{size}: {len(args)} args for {len(types)} .params"
        for a, t in zip(args, types):
            if isinstance(a, np.ndarray):
                assert t in ("u64", "b64"), f"{size}: an array for a .{t} param"
            else:
                assert isinstance(a, np.generic) and t in scalar_ptx_types(a), f"{size}: {a!r} for .{t}"


@pytest.mark.parametrize("name", ALL)
def test_small_size_is_small_and_reference_covers_output_arrays(name):
    spec = programs.get(name)
    for size in [s for s in spec.sizes if s.startswith("small")]:
        assert spec.launch(size).threads < SMALL_THREADS
    args = spec.make_args("small")
    ref = spec.reference(args, spec.make_symbols("small"), "small")
    assert ref, "a reference names at least one output"
    for idx, expected in ref.items():
        assert isinstance(args[idx], np.ndarray)
        assert expected.shape == args[idx].shape and expected.dtype == args[idx].dtype


@pytest.mark.parametrize("name", ALL)
def test_inputs_are_seeded_and_deterministic(name):
    spec = programs.get(name)
    a, b, c = spec.make_args("small", seed=0), spec.make_args("small", seed=0), spec.make_args("small", seed=1)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
        assert type(x) is type(y) and np.asarray(x).dtype == np.asarray(y).dtype
    inputs_differ = any(isinstance(x, np.ndarray) and x.any() and not np.array_equal(x, z) for x, z in zip(a, c))
    assert inputs_differ, "seed 1 gives different input data"


@pytest.mark.parametrize("name", ALL)
def test_reference_of_untouched_outputs_fails_the_check(name):
    """The check can fail: the zero-filled outputs before a launch do not pass as results."""
    spec = programs.get(name)
    args = spec.make_args("small")
    ref = spec.reference(args, spec.make_symbols("small"), "small")
    assert spec.check(args, ref).ok is False
    after = list(args)
    for idx, expected in ref.items():
        after[idx] = expected.copy()
    assert spec.check(after, ref).ok


def test_registers_come_from_the_launch_files():
    spec = programs.get("matmul_tiled")
    assert spec.registers("matmul_tiled_16") > 0 and spec.registers("matmul_tiled_32") > 0
    assert spec.registers() == spec.registers("matmul_tiled_16")          # the default size's kernel
    assert spec.registers("no_such_kernel") is None
    for name in ALL:
        for kernel in programs.get(name).kernels:
            assert 0 < programs.get(name).registers(kernel) <= 255


def test_symbols_match_the_constant_declarations():
    ptx = programs.get("conv1d_const").ptx_path.read_text()
    assert re.search(r"\.const \.align 4 \.b8 M\[40\]", ptx)          # __constant__ float M[10]
    assert programs.get("conv1d_const").make_symbols("small")["M"].nbytes == 40
    ptx = programs.get("conv2d_tiled").ptx_path.read_text()
    assert re.search(r"\.const \.align 4 \.b8 Mc\[100\]", ptx)        # __constant__ float Mc[5][5]
    assert programs.get("conv2d_tiled").make_symbols("small")["Mc"].nbytes == 100
    assert programs.get("vector_add").make_symbols("small") == {}


def test_dynamic_shared_memory_only_for_extern_shared_kernels():
    for name in ("reduce_interleaved", "reduce_strided_index", "reduce_sequential"):
        launch = programs.get(name).launch("small")
        assert launch.shared_mem == launch.block[0] * 4
    assert programs.get("reduce_warp_shuffle").launch("small").shared_mem == 0


def test_matmul_tiled_sizes_pick_the_tile_kernel():
    spec = programs.get("matmul_tiled")
    assert spec.launch("small").kernel == "matmul_tiled_16" and spec.launch("small").block == (16, 16, 1)
    assert spec.launch("tile32").kernel == "matmul_tiled_32" and spec.launch("tile32").block == (32, 32, 1)
    assert spec.launch("small").grid == (4, 4, 1)          # ceil(50 / 16): Width not a multiple of the tile


def test_stride_probe_sizes_cover_the_seed_tables():
    smem = programs.get("smem_stride_probe")
    assert {smem.params(f"stride_{s}")["stride"] for s in (1, 2, 3, 4, 8, 32, 33)} == {1, 2, 3, 4, 8, 32, 33}
    gmem = programs.get("gmem_stride_probe")
    assert {gmem.params(f"stride_{s}")["stride"] for s in (1, 2, 4, 8, 16, 32)} == {1, 2, 4, 8, 16, 32}
    assert gmem.params("offset_1")["offset"] == 1


def test_readme_lists_every_program():
    readme = (programs.get("vector_add").ptx_path.parent / "README.md").read_text()
    for name in ALL:
        assert f"`{name}`" in readme
