"""synccheck, as a datasheet: block barriers the block does not reach together, and member masks of warp
operations that do not fit the lanes that execute them."""
import numpy as np
import pytest
from ptxkernel import check, found, kernel, line

import gpusim
from gpusim.errors import BarrierDeadlockError

BARRIER_IN_IF = """
\tst.shared.u32 [%r6], %r0;
\tsetp.ge.u32 %p1, %r0, 16;
\t@%p1 bra DONE;
\tbar.sync 0;                        // B
\tld.shared.u32 %r7, [%r6+64];
\tst.global.u32 [%rd11], %r7;
DONE:
"""


def test_a_barrier_inside_if_tid_lt_16_is_divergent_and_completes_without_the_exited_threads():
    ptx = kernel(BARRIER_IN_IF)
    res, rep = check(ptx)
    b = line(ptx, "B")
    assert found(rep) == {("divergent barrier", None, (b,)), ("partial barrier", None, (b,))}
    div = next(f for f in rep.findings if f.kind == "divergent barrier")
    assert "lanes 0-15" in div.message and "lanes 16-31" in div.message
    part = next(f for f in rep.findings if f.kind == "partial barrier")
    assert "without 48 of the block's 64 threads" in part.message
    # check mode runs it as the GPU does (exited threads do not hold a barrier): lanes 0-15 read s[t + 16]
    assert np.array_equal(res.args[1][:16], np.arange(16, 32))
    with pytest.raises(BarrierDeadlockError):        # the plain emulator's SIMT stack deadlocks instead
        gpusim.run(ptx, grid=1, block=64, args=[np.zeros(64, np.int32), np.zeros(64, np.int32)])


def test_two_barriers_in_the_branches_of_an_if_else_are_both_divergent_and_the_exchange_works():
    ptx = kernel("""
\tand.b32 %r7, %r0, 1;
\tsetp.eq.u32 %p1, %r7, 1;
\t@%p1 bra ODD;
\tst.shared.u32 [%r6], %r0;
\tbar.sync 0;                        // EVEN
\tld.shared.u32 %r8, [%r6+4];
\tbra.uni DONE;
ODD:
\tst.shared.u32 [%r6], %r0;
\tbar.sync 0;                        // ODD
\tld.shared.u32 %r8, [%r6+-4];
DONE:
\tst.global.u32 [%rd11], %r8;
""")
    res, rep = check(ptx)
    assert found(rep) == {("divergent barrier", None, (line(ptx, "EVEN"),)),
                          ("divergent barrier", None, (line(ptx, "ODD"),))}
    assert np.array_equal(res.args[1], np.arange(64) ^ 1)


def test_a_barrier_every_thread_reaches_is_clean():
    ptx = kernel("\tst.shared.u32 [%r6], %r0;\n\tbar.sync 0;\n\tld.shared.u32 %r7, [s];\n")
    assert check(ptx, block=32)[1].ok


# -- member masks -------------------------------------------------------------------------------------------
def test_syncwarp_by_a_lane_its_mask_does_not_name():
    ptx = kernel("""
\tsetp.ge.u32 %p1, %r9, 2;
\t@%p1 bra DONE;
\tbar.warp.sync 1;                   // S
DONE:
""")
    rep = check(ptx, block=32)[1]
    assert found(rep) == {("caller not in mask", None, (line(ptx, "S"),))}
    assert rep.findings[0].count == 1 and "lane 1" in rep.findings[0].message


INACTIVE = """
\tsetp.ge.u32 %p1, %r9, 16;
\t@%p1 bra ELSE;
\t{op}                               // OP
\tbra.uni DONE;
ELSE:
\t{other}
DONE:
"""


@pytest.mark.parametrize("op, kind", [("bar.warp.sync -1;", "__syncwarp"),
                                      ("shfl.sync.bfly.b32 %r7, %r0, 1, 31, -1;", "__shfl_sync"),
                                      ("vote.sync.ballot.b32 %r7, %p1, -1;", "vote.sync")])
def test_a_mask_naming_lanes_that_are_alive_elsewhere_and_never_execute_it(op, kind):
    ptx = kernel(INACTIVE.format(op=op, other="add.u32 %r7, %r0, 1;"))
    rep = check(ptx, block=32)[1]
    assert found(rep) == {("mask names inactive lanes", None, (line(ptx, "OP"),))}
    assert rep.findings[0].accesses[0].what == kind and "lanes 16-31" in rep.findings[0].message


def test_the_other_side_of_an_if_else_executing_the_same_operation_with_the_same_mask_is_clean():
    ptx = kernel(INACTIVE.format(op="bar.warp.sync -1;", other="bar.warp.sync -1;"))
    assert check(ptx, block=32)[1].ok


def test_exited_lanes_named_in_a_mask_are_allowed():
    ptx = kernel("""
\tsetp.ge.u32 %p1, %r9, 16;
\t@%p1 ret;
\tbar.warp.sync -1;
\tshfl.sync.bfly.b32 %r7, %r0, 1, 31, -1;
""")
    assert check(ptx, block=32)[1].ok


def test_a_full_mask_in_a_partial_warp_names_absent_lanes_a_warning():
    ptx = kernel("\tbar.warp.sync -1;                  // S\n")
    rep = check(ptx, block=48)[1]                    # the second warp has lanes 0-15
    assert found(rep) == {("mask names absent lanes", None, (line(ptx, "S"),))}
    assert rep.findings[0].severity == "warning" and "lanes 16-31" in rep.findings[0].message
    assert check(kernel("\tbar.warp.sync 0xffff;\n"), block=16)[1].ok


def test_masks_held_in_registers_are_checked_per_lane():
    ptx = kernel("""
\tmov.u32 %r7, 1;
\tshl.b32 %r7, %r7, %r9;             // each lane's own bit: it names only itself
\tbar.warp.sync %r7;
\tadd.u32 %r8, %r9, 1;
\tand.b32 %r8, %r8, 31;
\tshl.b32 %r8, %r7, 1;               // the next lane's bit (lane 31: none)
\tbar.warp.sync %r8;                 // S
""")
    rep = check(ptx, block=32)[1]
    assert ("caller not in mask", None, (line(ptx, "S"),)) in found(rep)
    assert next(f for f in rep.findings if f.kind == "caller not in mask").count == 32


def test_a_launch_that_cannot_complete_is_reported_with_where_it_stopped(monkeypatch):
    # independent-thread barriers let every kernel above run on; where the SIMT model cannot hold a warp's
    # lanes (here: never), the block deadlocks, and synccheck reports it at the barrier
    from gpusim.functional.simt import SimtStack
    monkeypatch.setattr(SimtStack, "_hold", lambda self, w: False)
    ptx = kernel(BARRIER_IN_IF)
    res, rep = check(ptx)
    assert not rep.completed and "barrier deadlock" in rep.stopped and res.args is None
    dead = next(f for f in rep.findings if f.kind == "barrier deadlock")
    assert dead.lines == (line(ptx, "B"),) and any("warp 0" in d for d in dead.details)
    assert "did not complete" in rep.format()


def test_a_launch_over_its_budget_is_reported_as_not_completed():
    res, rep = check(kernel("LOOP:\n\tbra.uni LOOP;\n"), budget=1000)
    assert not rep.completed and "instruction budget" in rep.stopped and not rep.ok
