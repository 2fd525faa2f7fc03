"""Every bundled program runs in the functional emulator at its small sizes and matches its numpy reference.

This is the end-to-end test of the foundation: the checked-in PTX goes through the parser and the SIMT
emulator (``gpusim.run(..., mode="emulate")``) with the launch file's launch, inputs and ``__constant__``
symbols, and the outputs are compared under the program's tolerance.  The same cases pass on a real H100
(``test_real_gpu.py``), so a failure here is the emulator's.
"""
from __future__ import annotations

import pytest

import gpusim
import programs

def _case(name: str, size: str):
    return pytest.param(name, size, id=f"{name}-{size}")


CASES = [_case(s.name, size) for s in programs.all_specs() for size in s.sizes if size.startswith("small")]


@pytest.mark.parametrize("name,size", CASES)
def test_program_matches_reference_in_emulation(name, size):
    spec = programs.get(name)
    launch = spec.launch(size)
    args = spec.make_args(size, seed=0)
    syms = spec.make_symbols(size, seed=0)
    ref = spec.reference(args, syms, size)
    result = gpusim.run(spec.ptx_path, kernel=launch.kernel, grid=launch.grid, block=launch.block, args=args,
                        symbols=syms, shared_mem=launch.shared_mem, mode="emulate")
    check = spec.check(result.args, ref)
    assert check.ok, check.message


def test_inputs_are_not_modified_by_a_run():
    """Array arguments are device buffers: the caller's arrays stay as they were."""
    spec = programs.get("vector_add")
    launch = spec.launch("small")
    args = spec.make_args("small")
    before = [a.copy() for a in args[:3]]
    gpusim.run(spec.ptx_path, kernel=launch.kernel, grid=launch.grid, block=launch.block, args=args,
               mode="emulate")
    for a, b in zip(args[:3], before):
        assert (a == b).all()
