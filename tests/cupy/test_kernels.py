"""Kernels on the session's device: arguments as CuPy packs them, one heap across launches, module
variables, aliasing and pointer arithmetic, modes, events, the L2 across launches, the report and trace."""
import json
import warnings

import numpy as np
import pytest

from gpusim.errors import GpusimError, LaunchError, ToolMissingError
from gpusim.functional.host import DtypeMismatchWarning

N = 256


def test_device_memory_persists_across_launches(cupy, kernels):
    add_one = kernels.get_function("add_one")
    a = cupy.zeros(N, dtype=np.float32)
    for _ in range(3):
        add_one((N // 128,), (128,), (a, np.int32(N)))
    assert (a.get() == 3).all()
    assert [r.kernel for r in cupy.launches()] == ["add_one"] * 3


def test_pointer_arguments_are_device_addresses_views_and_arithmetic_alias(cupy, kernels):
    add_one = kernels.get_function("add_one")
    a = cupy.zeros(N, dtype=np.float32)
    add_one((1,), (64,), (a[64:], np.int32(64)))          # a view: its data.ptr
    add_one((1,), (32,), (a.data + 4 * 200, np.int32(32)))  # a MemoryPointer moved by 200 floats
    h = a.get()
    assert (h[64:128] == 1).all() and (h[200:232] == 1).all()
    assert h[:64].sum() == 0 and h[128:200].sum() == 0 and h[232:].sum() == 0
    alias = cupy.ndarray((N,), np.float32, memptr=a.data)   # a second array on the same memory
    add_one((N // 128,), (128,), (alias, np.int32(N)))
    assert a.get()[0] == 1 and a.get()[64] == 2


def test_a_kernel_past_its_array_faults_naming_the_allocation(cupy, kernels):
    a = cupy.zeros(100, dtype=np.float32)
    with pytest.raises(GpusimError, match=r"out-of-bounds.*block \(test_kernels.py:\d+\)"):
        kernels.get_function("add_one")((1,), (256,), (a, np.int32(256)))


def test_scalars_are_packed_as_cupy_packs_them(cupy, kernels):
    axpy = kernels.get_function("axpy")
    x = cupy.arange(N, dtype=np.float32)
    y = cupy.ones(N, dtype=np.float32)
    axpy((2,), (128,), (np.float32(2.0), x, y, N))        # a Python int for `int n`: an int64, read low 4 bytes
    np.testing.assert_array_equal(y.get(), 2 * np.arange(N, dtype=np.float32) + 1)
    with pytest.warns(DtypeMismatchWarning, match="first 4 bytes"):
        axpy((2,), (128,), (2.0, x, y, np.int32(N)))      # a Python float is a double: garbage, as on the GPU
    with pytest.raises(TypeError, match="numpy.ndarray"):
        axpy((2,), (128,), (np.float32(1), np.zeros(N, np.float32), y, np.int32(N)))
    with pytest.raises(LaunchError, match="takes 4 arguments"):
        axpy((2,), (128,), (x, y))


def test_device_variables_persist_and_get_global_reads_and_writes_them(cupy, kernels):
    count = kernels.get_function("count_launch")
    for _ in range(4):
        count((2,), (32,), ())
    seen = cupy.ndarray((1,), np.int32, kernels.get_global("launches_seen"))
    assert int(seen[0]) == 4
    scale = cupy.ndarray((4,), np.float32, kernels.get_global("scale"))   # a __constant__ table
    scale[...] = cupy.asarray(np.array([1, 2, 3, 4], np.float32))
    a = cupy.ones(8, dtype=np.float32)
    kernels.get_function("scale_by")((1,), (8,), (a, np.int32(8)))
    np.testing.assert_array_equal(a.get(), [1, 2, 3, 4, 1, 2, 3, 4])


def test_raw_kernel_and_raw_module_sources(cupy, kernels, tmp_path):
    from tests.cupy.conftest import KERNELS
    text = KERNELS.read_text()
    k = cupy.RawModule(code=text).get_function("add_one")           # PTX text
    a = cupy.zeros(4, dtype=np.float32)
    k((1,), (4,), (a, np.int32(4)))
    assert (a.get() == 1).all()
    cubin = tmp_path / "k.cubin"
    cubin.write_bytes(b"\x7fELF")
    with pytest.raises(GpusimError, match="SASS"):
        cupy.RawModule(path=str(cubin))
    with pytest.raises(TypeError, match="exactly one"):
        cupy.RawModule()
    src = 'extern "C" __global__ void twice(float* a) { a[threadIdx.x] *= 2.0f; }'
    try:
        twice = cupy.RawKernel(src, "twice")
    except ToolMissingError as e:
        assert "NVRTC" in str(e) and "RawModule(path=" in str(e)
    else:
        b = cupy.ones(32, dtype=np.float32)
        twice((1,), (32,), (b,))
        assert (b.get() == 2).all()


def test_emulate_mode_runs_kernels_without_time(cupy, kernels):
    a = cupy.zeros(N, dtype=np.float32)
    s, e = cupy.cuda.Event(), cupy.cuda.Event()
    with pytest.warns(UserWarning, match="emulate mode"):
        s.record()
    kernels.get_function("add_one")((2,), (128,), (a, np.int32(N)))
    e.record()
    assert cupy.cuda.get_elapsed_time(s, e) == 0.0
    rec, = cupy.launches()
    assert rec.mode == "emulate" and rec.timing is None and rec.cycles is None


def test_events_measure_the_simulated_time_of_the_launches_between_them(cupy, kernels):
    cupy.set_mode("timing")
    add_one = kernels.get_function("add_one")
    a = cupy.zeros(N, dtype=np.float32)
    s, m, e = cupy.cuda.Event(), cupy.cuda.Event(), cupy.cuda.Event()
    stream = cupy.cuda.Stream()
    s.record()
    add_one((2,), (128,), (a, np.int32(N)))
    m.record()
    with stream:                                            # another stream: still in order
        add_one((2,), (128,), (a, np.int32(N)), stream=stream)
        a.fill(0)                                           # host work: no simulated time
    e.record(stream)
    cupy.cuda.Device().synchronize()
    first, second = cupy.launches()
    assert second.start_cycle == first.start_cycle + first.cycles
    assert second.stream == stream.ptr != first.stream
    from gpusim.config import load_gpu
    mhz = load_gpu("h100").clock_mhz
    assert cupy.cuda.get_elapsed_time(s, m) == pytest.approx(first.cycles / (mhz * 1e3))
    assert cupy.cuda.get_elapsed_time(s, e) == pytest.approx((first.cycles + second.cycles) / (mhz * 1e3))
    rep = cupy.report(quiet=True)
    assert rep.total_cycles == first.cycles + second.cycles
    k = rep.kernel("add_one")
    assert k.launches == 2 and k.cycles == rep.total_cycles and k.top_stall
    assert "add_one" in str(rep) and "total simulated time" in str(rep)


def _copy_twice(cupy, kernels, n=8192):
    copy = kernels.get_function("copy_f32")
    x = cupy.asarray(np.arange(n, dtype=np.float32))
    y = cupy.empty(n, dtype=np.float32)
    for _ in range(2):
        copy((n // 256,), (256,), (x, y, np.int32(n)))
    return [r.counters for r in cupy.launches()], [r.cycles for r in cupy.launches()]


def test_l2_kept_across_launches_removes_the_second_launchs_dram_reads(cupy, kernels):
    cupy.set_mode("timing")
    (c1, c2), (t1, t2) = _copy_twice(cupy, kernels)
    assert c1["dram__bytes_read.sum"] >= 8192 * 4            # x comes from DRAM the first time ...
    assert c2["dram__bytes_read.sum"] < 0.1 * c1["dram__bytes_read.sum"]   # ... and from L2 the second
    assert c2["lts__t_sector_hit_rate.pct"] > 90 > c1["lts__t_sector_hit_rate.pct"]
    assert t2 < t1


def test_flush_caches_makes_every_launch_cold_as_gpusim_run(cupy, kernels):
    import gpusim
    from tests.cupy.conftest import KERNELS
    cupy.set_mode("timing", flush_caches=True)
    (c1, c2), (t1, t2) = _copy_twice(cupy, kernels)
    assert c2["dram__bytes_read.sum"] == c1["dram__bytes_read.sum"] > 0
    assert all(r.flushed for r in cupy.launches())
    n = 8192
    alone = gpusim.run(str(KERNELS), kernel="copy_f32", grid=n // 256, block=256,
                       args=[np.arange(n, dtype=np.float32), np.empty(n, np.float32), np.int32(n)],
                       mode="timing")
    assert alone.counters["dram__bytes_read.sum"] == c1["dram__bytes_read.sum"]
    assert "caches flushed before every launch" in str(cupy.report(quiet=True))


def test_the_trace_shows_the_launches_one_after_another(cupy, kernels, tmp_path):
    from gpusim.analysis.chrome_trace import validate_chrome_trace
    cupy.set_mode("timing")
    _copy_twice(cupy, kernels, n=1024)
    path = cupy.write_trace(tmp_path / "program.json")
    doc = json.loads(path.read_text())
    assert validate_chrome_trace(doc) == []
    slices = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    assert [e["name"] for e in slices] == ["copy_f32", "copy_f32"]
    assert slices[1]["ts"] == slices[0]["ts"] + slices[0]["dur"]
    assert doc["otherData"]["gpusim"]["cycles"] == sum(r.cycles for r in cupy.launches())


def test_set_mode_rejects_unknown_modes(cupy):
    with pytest.raises(GpusimError, match="emulate, timing"):
        cupy.set_mode("fast")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cupy.set_mode("timing", gpu="a100")
    assert cupy.get_mode()["gpu"] == "a100"
