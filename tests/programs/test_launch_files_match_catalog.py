"""Transition check: each bundled program's launch file gives bit-identical inputs, the same launches and the
same references as its old manifest entry (``programs/catalog.py``), for every size and several seeds."""
from __future__ import annotations

import numpy as np
import pytest

import programs
from gpusim.launch import load

CONVERTED = [n for n in programs.names() if programs.get(n).ptx_path.with_suffix(".toml").exists()]


def same(x, y) -> bool:
    return type(x) is type(y) and np.asarray(x).dtype == np.asarray(y).dtype and \
        np.asarray(x).shape == np.asarray(y).shape and np.array_equal(x, y, equal_nan=True) and \
        np.asarray(x).tobytes() == np.asarray(y).tobytes()


@pytest.mark.parametrize("name", CONVERTED)
def test_launch_file_equals_the_catalog(name):
    old = programs.get(name)
    new = load(old.ptx_path.with_suffix(".toml"))
    assert (new.name, new.description, new.topic, new.default_size) == \
           (old.name, old.description, old.topic, old.default_size)
    assert list(new.sizes) == list(old.sizes) and new.sizes == old.sizes
    assert set(new.kernels) == set(old.kernels)
    assert {k: new.registers(k) for k in old.kernels} == {k: old.registers(k) for k in old.kernels}
    assert (new.tolerance.exact, new.tolerance.rtol, new.tolerance.atol, new.tolerance.why) == \
           (old.tolerance.exact, old.tolerance.rtol, old.tolerance.atol, old.tolerance.why)
    for size in old.sizes:
        lo, ln = old.launch(size), new.launch(size)
        assert (lo.kernel, lo.grid, lo.block, lo.shared_mem) == (ln.kernel, ln.grid, ln.block, ln.shared_mem)
        big = old.launch(size).threads > 2_000_000
        for seed in ((0, 1) if big else (0, 1, 2, 12345)):
            a, b = old.make_args(size, seed), new.make_args(size, seed)
            assert len(a) == len(b)
            for i, (x, y) in enumerate(zip(a, b)):
                assert same(x, y), f"{name} {size} seed {seed}: argument {i} differs"
            sa, sb = old.make_symbols(size, seed), new.make_symbols(size, seed)
            assert list(sa) == list(sb) and all(same(sa[k], sb[k]) for k in sa)
            if not big and seed < 2:
                ra, rb = old.reference(a, sa, size), new.reference(b, sb, size)
                assert list(ra) == list(rb) and all(same(ra[k], rb[k]) for k in ra)
