"""memcheck, as a datasheet: accesses outside the allocation, the space or the variable they were computed
from; misaligned ones (a vector to its whole size); use of freed buffers."""
import numpy as np
import pytest
from ptxkernel import check, found, kernel, line

import gpusim
from gpusim.errors import IllegalAddressError

OOB = """
\tld.global.u32 %r7, [%rd10+256];    // R
\tst.global.u32 [%rd11], %r7;
"""


def test_every_lane_out_of_its_allocation_is_counted_and_the_launch_runs_on():
    ptx = kernel(OOB)
    res, rep = check(ptx)
    assert found(rep) == {("out-of-bounds access", None, (line(ptx, "R"),))}
    f = rep.findings[0]
    assert (f.tool, f.space, f.count) == ("memcheck", "global", 64)   # a[64 + i]: every thread
    assert "out-of-bounds" in f.message and "past the end of 'p_a (argument 0)'" in f.message
    assert rep.completed and (res.args[1] == -1).all()                # the bad lanes read the poison
    res, rep = check(ptx, sanitize="racecheck")       # without memcheck the emulator stops at the fault
    assert not rep.completed and not rep.ok and "illegal address" in rep.stopped and res.args is None
    assert "did not complete" in rep.format()


def test_a_vector_access_must_be_aligned_to_its_whole_size():
    ptx = kernel("""
\tld.global.v2.u32 {%r7, %r8}, [%rd10+4];   // V
""")
    rep = check(ptx, args=[np.zeros(130, np.int32), np.zeros(64, np.int32)])[1]
    assert found(rep) == {("misaligned access", None, (line(ptx, "V"),))}
    assert "misaligned 8-byte access" in rep.findings[0].message
    with pytest.raises(IllegalAddressError, match="misaligned 8-byte access"):   # the plain emulator too
        gpusim.run(ptx, grid=1, block=64, args=[np.zeros(130, np.int32), np.zeros(64, np.int32)])


def test_an_access_past_a_shared_array_into_the_next_is_out_of_bounds_of_its_variable():
    ptx = kernel("""
\tmov.u32 %r10, t;
\tadd.u32 %r11, %r10, %r5;
\tst.shared.u32 [%r11], %r0;
\tst.shared.u32 [%r6], %r0;
\tbar.sync 0;
\tld.shared.u32 %r7, [%r11+4];       // R
""", extra="\t.shared .align 4 .b8 t[128];")
    res, rep = check(ptx, block=32)
    # t[32] lies inside the block's shared memory (it is s[0]): only the variable's extent tells
    assert found(rep) == {("out-of-bounds access", None, (line(ptx, "R"),))}
    assert "outside the 128-byte shared variable 't'" in rep.findings[0].message
    assert rep.findings[0].count == 1


def test_a_constant_array_read_past_its_end():
    ptx = kernel("""
\tmov.u64 %rd20, w;
\tmul.wide.u32 %rd21, %r0, 4;
\tadd.s64 %rd22, %rd20, %rd21;
\tld.const.f32 %f1, [%rd22];          // R
""").replace(".visible .entry", ".const .align 4 .b8 w[64];\n.const .align 4 .b8 z[64];\n.visible .entry")
    rep = check(ptx, block=32)[1]
    assert found(rep) == {("out-of-bounds access", None, (line(ptx, "R"),))}
    assert rep.findings[0].space == "constant" and rep.findings[0].count == 16    # w[16] .. w[31]


def test_a_buffer_the_host_freed_before_the_launch():
    ptx = kernel("\tld.global.u32 %r7, [%rd10];        // R\n\tst.global.u32 [%rd11], %r7;\n")
    res, rep = check(ptx, host={"freed": ["p_a"]})
    assert found(rep) == {("use after free", None, (line(ptx, "R"),))}
    assert "which the host freed" in rep.findings[0].message
    assert np.array_equal(res.args[1], np.arange(64))  # the memory still holds the old data, as on the GPU
