"""initcheck, as a datasheet: reads of memory nothing wrote, per state space, and the poison pattern that
unwritten memory holds in check mode."""
import numpy as np
from ptxkernel import check, found, kernel, line

import gpusim


def test_a_read_of_shared_memory_nothing_wrote_is_reported_and_reads_the_poison_pattern():
    ptx = kernel("""
\tld.shared.u32 %r7, [%r6];          // R
\tst.global.u32 [%rd11], %r7;
""")
    res, rep = check(ptx)
    assert found(rep) == {("uninitialised read", None, (line(ptx, "R"),))}
    f = rep.findings[0]
    assert (f.tool, f.space, f.count) == ("initcheck", "shared", 64)
    assert "'s'" in f.message
    assert (res.args[1] == -1).all()                  # 0xFFFFFFFF: the poison, not the emulator's zeros
    plain = gpusim.run(ptx, grid=1, block=64, args=[np.zeros(64, np.int32), np.ones(64, np.int32)])
    assert (plain.args[1] == 0).all()                 # outside check mode shared memory starts zeroed


def test_a_word_written_before_it_is_read_is_clean_and_partial_writes_are_tracked_per_byte():
    ptx = kernel("""
\tst.shared.u32 [%r6], %r0;
\tld.shared.u32 %r7, [%r6];
\tst.shared.u8 [%r6+128], %r0;
\tld.shared.u8 %r8, [%r6+128];
\tld.shared.u16 %r8, [%r6+128];     // R
""")
    # one warp: the words 0..124 and the bytes 128, 132, ... 252 are each one thread's
    assert found(check(ptx, block=32)[1]) == {("uninitialised read", None, (line(ptx, "R"),))}


def test_an_atomic_on_an_uninitialised_word_reads_it():
    ptx = kernel("\tatom.shared.add.u32 %r7, [s], 1;     // A\n")
    assert found(check(ptx)[1], "initcheck") == {("uninitialised read", None, (line(ptx, "A"),))}


def test_local_memory_starts_unwritten_for_every_thread():
    ptx = kernel("""
\tmov.u64 %rd20, buf;
\tst.local.u32 [%rd20], %r0;
\tld.local.u32 %r7, [%rd20];
\tld.local.u32 %r8, [%rd20+4];       // R
""", extra="\t.local .align 4 .b8 buf[16];")
    rep = check(ptx)[1]
    assert found(rep) == {("uninitialised read", None, (line(ptx, "R"),))}
    assert rep.findings[0].space == "local"


GLOBAL = """
\tld.global.u32 %r7, [%rd11];        // R
\tadd.u32 %r7, %r7, 1;
\tst.global.u32 [%rd11], %r7;
"""


def test_arguments_are_initialised_unless_the_host_left_them_uninitialised():
    ptx = kernel(GLOBAL)
    assert check(ptx)[1].ok
    res, rep = check(ptx, host={"uninitialised": ["p_b"]})
    assert found(rep) == {("uninitialised read", None, (line(ptx, "R"),))}
    assert rep.findings[0].space == "global" and rep.findings[0].count == 64
    assert (res.args[1] == 0).all()                   # poison 0xFFFFFFFF, plus one


def test_a_global_word_the_kernel_wrote_first_is_initialised():
    ptx = kernel("""
\tst.global.u32 [%rd11], %r0;
\tld.global.u32 %r7, [%rd11];
\tld.global.u32 %r8, [%rd11+4];      // R
""")
    args = [np.arange(64, dtype=np.int32), np.zeros(65, dtype=np.int32)]
    rep = check(ptx, args=args, host={"uninitialised": [1]})[1]
    # thread i reads b[i + 1], which thread i + 1 wrote (a race, too), except the last thread: b[64]
    assert found(rep, "initcheck") == {("uninitialised read", None, (line(ptx, "R"),))}
    assert rep.by_tool("initcheck")[0].count == 1
