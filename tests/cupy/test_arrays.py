"""ndarray and array creation: what lives on the device, views, aliasing, what runs on the host."""
import numpy as np
import pytest


def test_creation_functions_make_device_arrays_with_numpys_values(cupy):
    cases = {
        "empty": (cupy.empty((3, 4), dtype=np.float32), None),
        "zeros": (cupy.zeros((3, 4), dtype=np.int32), np.zeros((3, 4), np.int32)),
        "ones": (cupy.ones(5), np.ones(5)),
        "full": (cupy.full((2, 2), 7, dtype=np.int16), np.full((2, 2), 7, np.int16)),
        "arange": (cupy.arange(2, 20, 3, dtype=np.float32), np.arange(2, 20, 3, dtype=np.float32)),
        "linspace": (cupy.linspace(0, 1, 5), np.linspace(0, 1, 5)),
        "asarray": (cupy.asarray(np.arange(6).reshape(2, 3)), np.arange(6).reshape(2, 3)),
        "array": (cupy.array([[1, 2], [3, 4]], dtype=np.uint8), np.array([[1, 2], [3, 4]], np.uint8)),
        "eye": (cupy.eye(3, dtype=np.float32), np.eye(3, dtype=np.float32)),
    }
    for name, (a, want) in cases.items():
        assert isinstance(a, cupy.ndarray), name
        assert a.data.ptr >= 0x7F00_0000_0000, name
        if want is not None:
            assert a.dtype == want.dtype and a.shape == want.shape, name
            np.testing.assert_array_equal(a.get(), want, err_msg=name)
    a = cupy.arange(12, dtype=np.float32).reshape(3, 4)
    for like, want in ((cupy.empty_like(a), None), (cupy.zeros_like(a), np.zeros((3, 4), np.float32)),
                       (cupy.ones_like(a), np.ones((3, 4), np.float32)),
                       (cupy.full_like(a, 2.5), np.full((3, 4), 2.5, np.float32))):
        assert like.shape == (3, 4) and like.dtype == np.float32
        assert like.data.ptr != a.data.ptr
        if want is not None:
            np.testing.assert_array_equal(like.get(), want)


def test_attributes_get_set_and_asnumpy(cupy):
    h = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    a = cupy.asarray(h)
    assert (a.shape, a.dtype, a.size, a.nbytes, a.ndim, a.itemsize, a.strides) == \
        (h.shape, h.dtype, 24, 192, 3, 8, h.strides)
    assert a.flags.c_contiguous and not a.T.flags.c_contiguous
    np.testing.assert_array_equal(cupy.asnumpy(a), h)
    a.set(h * 2)
    np.testing.assert_array_equal(a.get(), h * 2)
    out = np.empty_like(h)
    assert a.get(out=out) is out
    with pytest.raises(ValueError, match="shape mismatch"):
        a.set(np.zeros(3))
    with pytest.raises(TypeError, match="dtype mismatch"):
        a.set(h.astype(np.float32))


def test_slices_are_views_of_the_same_device_memory(cupy):
    a = cupy.arange(100, dtype=np.int32)
    v = a[10:20]
    assert v.data.ptr == a.data.ptr + 40 and v.base is a
    v[:] = -1
    assert (a.get()[10:20] == -1).all() and a.get()[9] == 9
    m = cupy.arange(12, dtype=np.float32).reshape(3, 4)
    col = m[:, 1]
    assert col.strides == (16,) and col.data.ptr == m.data.ptr + 4
    np.testing.assert_array_equal(col.get(), [1, 5, 9])
    r = a[::-1]
    assert r.strides == (-4,) and int(r[0]) == 99
    t = m.T
    assert t.data.ptr == m.data.ptr and t.base is m.base and t.shape == (4, 3)
    w = m.view(np.uint32)
    assert w.data.ptr == m.data.ptr and int(w[0, 1]) == np.float32(1).view(np.uint32)


def test_copy_fill_astype_and_fancy_indexing_make_new_arrays(cupy):
    a = cupy.arange(6, dtype=np.float32)
    c = a.copy()
    c.fill(3)
    assert c.data.ptr != a.data.ptr and a.get()[0] == 0 and (c.get() == 3).all()
    f = a.astype(np.int64)
    assert f.dtype == np.int64 and f.data.ptr != a.data.ptr
    picked = a[cupy.asarray(np.array([5, 0]))]
    np.testing.assert_array_equal(picked.get(), [5, 0])
    assert a[a > 3].get().tolist() == [4, 5]


def test_arithmetic_and_reductions_run_on_the_host_and_are_counted(cupy):
    from gpusim.cupy import _session
    s = _session.session()
    before = sum(s.host_ops.values())
    a = cupy.arange(10, dtype=np.float32)
    b = (a * 2 + 1) / 2
    a += 1
    np.testing.assert_array_equal(b.get(), (np.arange(10) * 2 + 1) / 2)
    total = a.sum()
    assert isinstance(total, cupy.ndarray) and total.shape == () and float(total) == 55.0
    assert float(cupy.sqrt(a).max()) == pytest.approx(np.sqrt(10))
    assert float(np.sum(a)) == 55.0                      # numpy functions dispatch to the device array
    assert bool(cupy.allclose(a, a))
    assert sum(s.host_ops.values()) - before >= 9
    rep = cupy.report(quiet=True)
    assert rep.unsimulated_ops == sum(s.host_ops.values())
    assert "not simulated (numpy on the host" in str(rep)


def test_numpy_arrays_are_not_mixed_in_as_in_cupy(cupy):
    a = cupy.arange(3)
    with pytest.raises(TypeError, match="implicitly"):
        np.asarray(a)
    with pytest.raises(TypeError, match="cannot be mixed"):
        a + np.arange(3)
    assert cupy.get_array_module(a) is cupy and cupy.get_array_module(np.arange(3)) is np


def test_pool_reuses_a_freed_block_and_free_all_blocks_returns_it(cupy):
    pool = cupy.get_default_memory_pool()
    a = cupy.zeros(1000, dtype=np.float32)
    ptr = a.data.ptr
    assert pool.used_bytes() == 4096
    del a
    assert pool.used_bytes() == 0 and pool.n_free_blocks() == 1
    b = cupy.empty(1000, dtype=np.float32)               # same rounded size: the same block
    assert b.data.ptr == ptr
    del b
    pool.free_all_blocks()
    assert pool.total_bytes() == 0 and pool.n_free_blocks() == 0
    from gpusim.cupy import _session
    assert _session.session().mem.find(ptr) is None


def test_memory_hooks_see_every_malloc_and_free(cupy):
    events = []

    class Hook(cupy.cuda.MemoryHook):
        name = "test"

        def malloc_postprocess(self, **kw):
            events.append(("malloc", kw["mem_ptr"], kw["mem_size"]))

        def free_postprocess(self, **kw):
            events.append(("free", kw["mem_ptr"], kw["mem_size"]))

    with Hook():
        a = cupy.empty(10, dtype=np.float64)
        ptr = a.data.ptr
        del a
    assert events == [("malloc", ptr, 512), ("free", ptr, 512)]


def test_device_memory_listeners_see_allocations_and_frees(cupy):
    from gpusim.cupy import _session
    seen = []

    class Shadow:
        def allocated(self, alloc):
            seen.append(("alloc", alloc.address, alloc.size_bytes))

        def freed(self, alloc):
            seen.append(("free", alloc.address, alloc.size_bytes))

    mem = _session.session().mem
    mem.listeners.append(Shadow())
    a = cupy.empty(100, dtype=np.uint8)
    ptr = a.data.ptr
    del a
    cupy.get_default_memory_pool().free_all_blocks()
    assert seen == [("alloc", ptr, 512), ("free", ptr, 512)]


def test_reset_starts_a_new_device(cupy, kernels):
    a = cupy.zeros(4, dtype=np.float32)
    cupy.reset()
    with pytest.raises(Exception, match="earlier gpusim.cupy session"):
        kernels.get_function("add_one")((1,), (4,), (a, np.int32(4)))
    assert cupy.launches() == []
