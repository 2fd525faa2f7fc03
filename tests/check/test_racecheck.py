"""racecheck, as a datasheet: one small kernel per hazard, the lines it names, and what does not race.

Every kernel has 64 threads per block (two warps) unless it says otherwise; ``// W``, ``// R`` mark the PTX
lines of the accesses a finding must name."""
import numpy as np
import pytest
from ptxkernel import check, found, kernel, line

from gpusim.errors import LaunchError

INIT = """
\tst.shared.u32 [%r6], %r0;
\tbar.sync 0;
"""


# -- the three hazards -------------------------------------------------------------------------------------
def test_raw_a_read_of_another_threads_write_with_no_barrier_between():
    ptx = kernel("""
\tsetp.ne.u32 %p1, %r0, 0;
\t@%p1 bra SKIP;
\tst.shared.u32 [s], %r3;          // W
SKIP:
\tld.shared.u32 %r7, [s];          // R
\tst.global.u32 [%rd11], %r7;
""")
    res, rep = check(ptx)
    w, r = line(ptx, "W"), line(ptx, "R")
    # warp 1 reads thread 0's write (block scope); lanes 1-31 of warp 0 too (warp scope, a warning)
    assert found(rep, "racecheck") == {("RAW hazard", "block", (w, r)), ("RAW hazard", "warp", (w, r))}
    sev = {f.scope: f.severity for f in rep.findings}
    assert sev == {"block": "error", "warp": "warning"}
    # the emulator's order made it come out right: the hazard is found by epoch, not by the values
    assert (res.args[1] == 0).all()


def test_a_barrier_between_the_write_and_the_reads_orders_them():
    ptx = kernel("""
\tsetp.ne.u32 %p1, %r0, 0;
\t@%p1 bra SKIP;
\tst.shared.u32 [s], %r3;
SKIP:
\tbar.sync 0;
\tld.shared.u32 %r7, [s];
\tst.global.u32 [%rd11], %r7;
""")
    assert check(ptx)[1].ok


def test_war_a_write_to_a_word_another_thread_read_with_no_barrier_between():
    ptx = kernel(INIT + """
\tsetp.lt.u32 %p1, %r0, 63;
\t@%p1 ld.shared.u32 %r7, [%r6+4];   // R
\tadd.u32 %r8, %r7, 1;
\tst.shared.u32 [%r6], %r8;          // W
""")
    rep = check(ptx)[1]
    r, w = line(ptx, "R"), line(ptx, "W")
    # thread t reads s[t+1], which thread t+1 overwrites: lanes of one warp, and thread 31 / thread 32
    assert found(rep, "racecheck") == {("WAR hazard", "warp", (r, w)), ("WAR hazard", "block", (r, w))}


def test_waw_two_warps_store_one_word_in_one_instruction():
    ptx = kernel("\tst.shared.u32 [s], %r0;     // W\n")
    w = line(ptx, "W")
    assert found(check(ptx)[1], "racecheck") == {("WAW hazard", "block", (w,))}


def test_lanes_of_one_warp_in_one_instruction_do_not_race():
    ptx = kernel("\tst.shared.u32 [s], %r0;\n")
    assert check(ptx, block=32)[1].ok


def test_a_write_of_the_value_already_there_is_info_only():
    ptx = kernel("\tmov.u32 %r7, 1;\n\tst.shared.u32 [s], %r7;     // W\n")
    rep = check(ptx)[1]
    assert rep.ok and not found(rep)
    assert found(rep, "racecheck", info=True) == {("WAW hazard", "block", (line(ptx, "W"),))}
    assert [f.severity for f in rep.findings] == ["info"]


# -- lanes of one warp (independent thread scheduling) -----------------------------------------------------
EXCHANGE = INIT + """
\tst.shared.u32 [%r6], %r3;          // W
{sync}
\txor.b32 %r7, %r5, 4;
\tadd.u32 %r8, %r4, %r7;
\tld.shared.u32 %r7, [%r8];          // R
\tst.global.u32 [%rd11], %r7;
"""


def test_lanes_of_one_warp_exchanging_through_shared_memory_need_a_syncwarp():
    ptx = kernel(EXCHANGE.format(sync=""))
    rep = check(ptx, block=32)[1]
    assert found(rep, "racecheck") == {("RAW hazard", "warp", (line(ptx, "W"), line(ptx, "R")))}
    assert rep.findings[0].severity == "warning"
    assert check(kernel(EXCHANGE.format(sync="\tbar.warp.sync -1;")), block=32)[1].ok


# -- atomics ------------------------------------------------------------------------------------------------
def test_atomics_do_not_race_with_each_other_but_a_plain_read_of_their_word_does():
    body = """
\tsetp.ne.u32 %p1, %r0, 0;
\t@%p1 bra SKIP;
\tst.shared.u32 [s], 0;
SKIP:
\tbar.sync 0;
\tatom.shared.add.u32 %r7, [s], 1;   // A
{read}
"""
    assert check(kernel(body.format(read="")))[1].ok
    ptx = kernel(body.format(read="\tld.shared.u32 %r8, [s];   // R\n\tst.global.u32 [%rd11], %r8;"))
    assert ("RAW hazard", "block", (line(ptx, "A"), line(ptx, "R"))) in found(check(ptx)[1], "racecheck")


# -- granules -----------------------------------------------------------------------------------------------
def test_bytes_of_one_word_written_by_different_warps_do_not_race():
    # the kernel's smallest access is a byte: hazards are found per byte
    ptx = kernel("""
\tshr.u32 %r7, %r0, 5;
\tadd.u32 %r8, %r4, %r7;
\tst.shared.u8 [%r8], %r0;
""")
    assert check(ptx)[1].ok


def test_a_vector_access_races_on_each_word_it_covers():
    ptx = kernel(INIT + """
\tsetp.eq.u32 %p1, %r0, 32;
\t@%p1 st.shared.v2.u32 [s], {%r0, %r0};   // W
\tsetp.eq.u32 %p2, %r0, 0;
\t@%p2 ld.shared.u32 %r7, [s+4];           // R
""")
    assert found(check(ptx)[1], "racecheck") == {("RAW hazard", "block", (line(ptx, "W"), line(ptx, "R")))}


# -- global memory ------------------------------------------------------------------------------------------
def test_global_memory_races_within_a_block_like_shared_memory():
    ptx = kernel("""
\tsetp.eq.u32 %p1, %r0, 32;
\t@%p1 st.global.u32 [%rd2], %r0;        // W
\tsetp.eq.u32 %p2, %r0, 0;
\t@%p2 ld.global.u32 %r7, [%rd2];        // R
""")
    assert found(check(ptx)[1], "racecheck") == {("RAW hazard", "block", (line(ptx, "W"), line(ptx, "R")))}
    assert check(ptx, global_races="off")[1].ok         # shared memory only, as compute-sanitizer
    with pytest.raises(LaunchError, match="global_races must be one of block, grid, off"):
        check(ptx, global_races="all")


CROSS_BLOCK = """
\tsetp.ne.u32 %p1, %r0, 0;
\t@%p1 bra SKIP;
\tst.global.u32 [%rd2], %r1;             // W
SKIP:
"""


def test_blocks_storing_to_one_global_word_race_when_asked_to_compare_blocks():
    ptx = kernel(CROSS_BLOCK)
    assert check(ptx, grid=4)[1].ok                   # by default blocks are not compared
    rep = check(ptx, grid=4, global_races="grid")[1]
    assert found(rep, "racecheck") == {("WAW hazard", "grid", (line(ptx, "W"),))}
    assert "different blocks" in rep.findings[0].message


def test_the_report_names_both_accesses_threads_and_the_address():
    ptx = kernel("""
\tsetp.ne.u32 %p1, %r0, 32;
\t@%p1 bra SKIP;
\tst.shared.u32 [s+8], %r3;
SKIP:
\tld.shared.u32 %r7, [s+8];
""")
    f = next(f for f in check(ptx)[1].findings if f.scope == "block")
    (a, b) = f.accesses
    assert (a.what, a.thread, a.block) == ("write", (32, 0, 0), (0, 0, 0))
    assert (b.what, b.thread) == ("read", (0, 0, 0))
    assert "__shared__ 0x8 ('s' + 8)" in f.message and "no __syncthreads()" in f.message
    assert f.count == 32                              # every thread of warp 0 read it


def test_check_mode_leaves_the_results_of_a_race_free_kernel_as_they_are():
    ptx = kernel(INIT + """
\tld.shared.u32 %r7, [%r6];
\tst.global.u32 [%rd11], %r7;
""")
    res, rep = check(ptx, grid=2)
    assert rep.ok and np.array_equal(res.args[1], np.tile(np.arange(64, dtype=np.int32), 2))
