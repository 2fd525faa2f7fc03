"""A launch that can never finish is stopped as soon as its state repeats, not at the instruction budget
(gpusim.functional.livelock); loops that make progress, or might, run on."""
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim.errors import BudgetExceededError, LivelockError
from gpusim.functional import livelock

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SPIN_LINE = 1 + [i for i, t in enumerate((FIXTURES / "faults.cu").read_text().splitlines())
                 if "while (*(volatile int *)flag == 0)" in t][0]


def _poll_kernel(extra: str) -> str:
    """A kernel that polls a flag nothing sets, with ``extra`` in the loop."""
    return HEADER + f"""
.visible .entry poll(.param .u64 flag)
{{
    .reg .pred %p;
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd0, [flag];
    cvta.to.global.u64 %rd1, %rd0;
POLL:
    ld.volatile.global.u32 %r0, [%rd1];
    {extra}
    setp.eq.u32 %p, %r0, 0;
    @%p bra.uni POLL;
    ret;
}}
"""


# every warp counts to 3000 in a register and in shared memory, then stores the count: no global write for
# ~15,000 steps, but the state never repeats
COUNT = HEADER + """
.visible .entry count(.param .u64 out)
{
    .shared .align 4 .b8 cnt[4];
    .reg .pred %p;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd0, [out];
    cvta.to.global.u64 %rd1, %rd0;
    mov.u32 %r2, 0;
LOOP:
    add.u32 %r2, %r2, 1;
    ld.shared.u32 %r3, [cnt];
    add.u32 %r3, %r3, 1;
    st.shared.u32 [cnt], %r3;
    setp.lt.u32 %p, %r2, 3000;
    @%p bra LOOP;
    st.global.u32 [%rd1], %r2;
    ret;
}
"""

@pytest.mark.parametrize("mode", ["emulate", "timing"])
def test_a_spin_on_a_flag_nothing_sets_stops_long_before_the_budget(mode, monkeypatch):
    # faults.cu: while (*(volatile int *)flag == 0); the default budget would take minutes.  States are
    # compared at every chance (not by their time share), so the first repeat found is one period apart
    monkeypatch.setattr(livelock, "COST_SHARE", float("inf"))
    with pytest.raises(LivelockError) as ei:
        gpusim.run(FIXTURES / "faults.ptx", kernel="spin", grid=4, block=256, args=[np.zeros(1, np.int32)],
                   mode=mode)
    msg = str(ei.value)
    assert msg.startswith(f"faults.cu:{SPIN_LINE}: kernel 'spin' can never finish")
    assert "came back to the same state after 3 steps" in msg      # ld, setp, bra
    # emulate runs the 4 blocks in one batch; timing records one block first (gpusim.functional.stream)
    warps = 32 if mode == "emulate" else 8
    assert f"{warps} warps loop at pc 2 (faults.cu:{SPIN_LINE}, PTX line 90)" in msg
    assert isinstance(ei.value, BudgetExceededError)                  # callers catching runaways still do


def test_a_spin_around_a_barrier_is_stopped_too(monkeypatch):
    # do { flag read; __syncthreads(); } while (flag == 0): the barrier count grows, the state repeats
    monkeypatch.setattr(livelock, "COST_SHARE", float("inf"))
    with pytest.raises(LivelockError, match="came back to the same state after 4 steps"):
        gpusim.run(_poll_kernel("bar.sync 0;"), grid=1, block=64, args=[np.zeros(1, np.uint32)],
                   budget=1_000_000)


def test_a_long_loop_that_changes_its_state_runs_to_the_end(monkeypatch):
    monkeypatch.setattr(livelock, "COST_SHARE", float("inf"))         # compare at every chance, not by time
    out = np.zeros(1, np.uint32)
    res = gpusim.run(COUNT, grid=1, block=32, args=[out], budget=10_000_000)
    assert res.args[0][0] == 3000
    assert res.stats.warp_instructions > 6 * 3000 > livelock.WATCH_FROM_STEPS


def test_a_spin_that_writes_global_memory_is_left_to_the_budget():
    with pytest.raises(BudgetExceededError) as ei:
        gpusim.run(_poll_kernel("st.global.u32 [%rd1+4], %r0;"), grid=1, block=32, args=[np.zeros(2, np.uint32)],
                   budget=20_000)
    assert not isinstance(ei.value, LivelockError)
    assert "exceeded the instruction budget of 20,000" in str(ei.value)


def test_a_spin_that_reads_the_clock_is_left_to_the_budget():
    with pytest.raises(BudgetExceededError) as ei:
        gpusim.run(_poll_kernel("mov.u32 %r1, %clock;"), grid=1, block=32, args=[np.zeros(1, np.uint32)], budget=20_000)
    assert not isinstance(ei.value, LivelockError)
