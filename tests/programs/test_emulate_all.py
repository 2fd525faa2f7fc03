"""Every bundled program runs in the functional emulator at its small sizes and matches its numpy reference.

This is the end-to-end test of the foundation: the checked-in PTX goes through the parser and the SIMT
emulator (``gpusim.run(..., mode="emulate")``) with the manifest's launch, inputs and ``__constant__``
symbols, and the outputs are compared under the program's tolerance.  The same cases pass on a real H100
(``test_real_gpu.py``), so a failure here is the emulator's.
"""
from __future__ import annotations

import pytest

import gpusim
import programs

# Emulator bugs found by this test (reported to the emulator's owner).  strict: once fixed, the case
# XPASSes and fails, so the mark is removed and the case guards against regressions.
KNOWN_EMULATOR_BUGS = {
    "blur": "parser rejects ld.global.u8 (blur.ptx:70): the ld OpSpec's types (INTS in isa/opcodes.py) "
            "lack u8/s8",
    "histogram_smem": "parser rejects ld.global.u8 (histogram_smem.ptx:78)",
    "divergence": "parser rejects the immediate predicate in 'mov.pred %p3, 0;' (divergence.ptx:51)",
    "warp_vote": "any selp (first: warp_vote.ptx:47) crashes: semantics.build_compare unpacks a comparison "
                 "modifier before its selp branch (ValueError, not a GpusimError)",
}


def _case(name: str, size: str):
    bug = KNOWN_EMULATOR_BUGS.get(name)
    marks = [pytest.mark.xfail(strict=True, reason=bug)] if bug else []
    return pytest.param(name, size, id=f"{name}-{size}", marks=marks)


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
