"""Live comparison with a real GPU (marked ``gpu``; skipped cleanly without CuPy or a GPU).

* every program's small size runs on the GPU (the checked-in PTX through CuPy) and in the emulator, and the
  outputs agree bit for bit (every bundled kernel is deterministic and uses only exact PTX arithmetic:
  integer ops, ``add/sub/mul.f32`` round-to-nearest, ``fma.rn``; only integer atomics);
* a record written live round-trips through ``gpusim.hw.compare`` (with ncu counters when ``ncu`` is on
  the PATH, and then global requests/sectors of a fully determined kernel match the simulator's).

tests/programs/test_real_gpu.py already checks every program against its numpy reference on the GPU.
"""
from __future__ import annotations

import numpy as np
import pytest

import programs
from gpusim.hw.runner import have_gpu

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not have_gpu(), reason="needs CuPy and a CUDA GPU")]

SMALL = [(s.name, "small") for s in programs.all_specs()]


@pytest.mark.parametrize("name,size", SMALL, ids=[n for n, _ in SMALL])
def test_gpu_output_equals_emulator_bit_for_bit(name, size):
    import gpusim
    from gpusim.hw.compare import output_agreement
    from gpusim.hw.runner import run_on_gpu
    hw = run_on_gpu(name, size, repeats=3)
    assert hw.check.ok, hw.check.message
    sim = gpusim.run(name, size=size, mode="emulate")
    for idx in hw.reference:
        agree = output_agreement(np.asarray(sim.args[idx]), np.asarray(hw.outputs[idx]))
        assert agree["bit_exact"] == agree["n"], f"{name} arg {idx}: {agree}"


def test_nvrtc_backend_matches_ptx():
    from gpusim.hw.runner import run_on_gpu
    a = run_on_gpu("vector_add", "small", repeats=0)
    b = run_on_gpu("vector_add", "small", repeats=0, backend="nvrtc")
    assert np.array_equal(a.outputs[2].view(np.uint32), b.outputs[2].view(np.uint32))


def test_live_compare_and_counters():
    from gpusim.hw.compare import Comparison, counter_rows, measure_live, outputs_vs_record, simulate
    rec = measure_live("gmem_stride_probe", "stride_4")
    sim = simulate("gmem_stride_probe", "stride_4")
    outs = outputs_vs_record(sim.args, rec)
    assert all(o["bit_exact"] == o["n"] for o in outs.values())
    if rec["counters"]:
        for k in ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                  "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"):
            assert sim.timing.counters[k] == rec["counters"][k], k
        rows = counter_rows(sim.timing.counters, rec["counters"])
        assert rows and Comparison("p", "s", outs, rows, sim.timing.cycles, rec["cycles"]).cycles_error is not None
