"""Warp-aggregated atomics as ptxas makes them (isa/aggregate.py): which atomics go to L2 once per warp.

Each case is one of the probes the rule was learnt from: PTX compiled by ptxas 13.0 for sm_90 (``ptxas
-arch=sm_90``, SASS read with ``nvdisasm``), the SASS in the comment.  Where ptxas and nvdisasm are installed
(``pip install -e .[sass]``), every case is also compiled and the real SASS must say the same: aggregated
when the kernel has a ``REDUX``/``VOTEU.ANY``/``VOTE.ANY`` warp vote (the leader's election), else not.
"""
import pytest

from gpusim.cuda import sass
from isa import parse_ptx
from isa.aggregate import FULL_WARP, LEADER
from isa.link import link

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
# %rd3: a kernel parameter (warp-uniform); %rd10: + %tid.x * 4 (per lane); %rd9: + %ctaid.x * 4 (uniform);
# %r3: a per-lane value loaded from memory; %r9: a parameter (uniform)
PRELUDE = """
 .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<20>; .reg .f32 %f<8>; .reg .f64 %fd<8>;
 ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u32 %r9, [pn];
 cvta.to.global.u64 %rd3, %rd1; cvta.to.global.u64 %rd4, %rd2;
 mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;
 mul.wide.u32 %rd5, %r1, 4; add.s64 %rd6, %rd4, %rd5; ld.global.u32 %r3, [%rd6];
 cvt.rn.f32.u32 %f1, %r3; cvt.u64.u32 %rd7, %r3;
 mul.wide.u32 %rd8, %r2, 4; add.s64 %rd9, %rd3, %rd8; add.s64 %rd10, %rd3, %rd5;
"""


def ptx_of(body: str) -> str:
    return (HEAD + ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u32 pn)\n{" + PRELUDE + body
            + "\n ret;\n}\n")


def marks(body: str) -> list[str]:
    m = parse_ptx(ptx_of(body))
    return [i.aggregated for i in link(m, m.kernel()).instructions if i.base in ("atom", "red")]


USED = " st.global.u32 [%rd6], %r4;"       # the atomic's result is read

CASES = [
    # result unused, 32-bit integer add/min/max/logic at a uniform address: VOTEU.ANY + UFLO + REDUX + one REDG
    ("red.global.add.u32 [%rd3], %r3;", LEADER),
    ("atom.global.add.u32 %r4, [%rd3], %r3;", LEADER),            # unused result: ptxas makes it a RED
    ("red.global.add.s32 [%rd3], %r3;", LEADER),                  # REDUX.SUM.S32
    ("red.global.min.s32 [%rd3], %r3;", LEADER),                  # REDUX.MIN.S32
    ("red.global.max.u32 [%rd3], %r3;", LEADER),
    ("red.global.and.b32 [%rd3], %r3;", LEADER),
    ("red.global.or.b32 [%rd3], %r3;", LEADER),
    ("red.global.xor.b32 [%rd3], %r3;", LEADER),
    ("red.global.add.u32 [%rd3], 1;", LEADER),                    # POPC of the vote
    ("red.global.add.u32 [%rd9], %r3;", LEADER),                  # %ctaid is uniform
    ("ld.global.u64 %rd12, [%rd4]; red.global.add.u32 [%rd12], %r3;", LEADER),   # loaded from a uniform address
    ("red.add.u32 [%rd1], %r3;", LEADER),                         # generic: ATOM.E.ADD by the leader
    ("red.sys.global.add.u32 [%rd3], %r3;", LEADER),              # REDG.E.ADD.STRONG.SYS
    ("setp.gt.u32 %p1, %r3, 3; @%p1 red.global.add.u32 [%rd3], %r3;", LEADER),   # under a per-lane guard
    # result used: add of a uniform operand -> leader adds POPC x v, lanes get old + rank x v (SHFL.IDX)
    ("atom.global.add.u32 %r4, [%rd3], 1;" + USED, LEADER),
    ("atom.global.add.u32 %r4, [%rd3], %r9;" + USED, LEADER),
    # result used, per-lane operand: VOTE.ANY == -1 ? SHFL.UP scan + one ATOMG by lane 31 : ATOMG per lane
    ("atom.global.add.u32 %r4, [%rd3], %r3;" + USED, FULL_WARP),
    # result used, min/max/logic: ATOMG per lane
    ("atom.global.max.u32 %r4, [%rd3], %r3;" + USED, ""),
    ("atom.global.or.b32 %r4, [%rd3], %r3;" + USED, ""),
    # never: per-lane or data-dependent addresses, 64-bit and float types, inc/dec, exch, cas
    ("red.global.add.u32 [%rd10], %r3;", ""),
    ("and.b32 %r5, %r3, 7; mul.wide.u32 %rd12, %r5, 4; add.s64 %rd13, %rd3, %rd12; red.global.add.u32 [%rd13], 1;",
     ""),
    ("red.global.add.u64 [%rd3], %rd7;", ""),                     # REDG.E.ADD.64 per lane
    ("red.global.add.f32 [%rd3], %f1;", ""),                      # REDG.E.ADD.F32.FTZ.RN per lane
    ("red.global.inc.u32 [%rd3], %r3;", ""),
    ("atom.global.exch.b32 %r4, [%rd3], %r3;", ""),
    ("atom.global.cas.b32 %r4, [%rd3], %r3, 5;", ""),
    # a region only lanes with one %tid.x / %laneid reach: ATOMG per lane (ptxas knows it is one lane)
    ("setp.ne.s32 %p2, %r1, 0; @%p2 bra DONE; atom.global.add.u32 %r4, [%rd3], %r3;" + USED + " DONE:", ""),
    ("mov.u32 %r10, %laneid; setp.ne.s32 %p2, %r10, 0; @%p2 bra DONE; atom.global.add.u32 %r4, [%rd3], %r3;"
     + USED + " DONE:", ""),
    # ... but not %tid.y == 0 nor %tid.x < 2: several lanes of a warp may get there
    ("mov.u32 %r10, %tid.y; setp.ne.s32 %p2, %r10, 0; @%p2 bra DONE; atom.global.add.u32 %r4, [%rd3], %r3;"
     + USED + " DONE:", FULL_WARP),
    ("setp.gt.u32 %p2, %r1, 1; @%p2 bra DONE; atom.global.add.u32 %r4, [%rd3], %r3;" + USED + " DONE:", FULL_WARP),
]


@pytest.mark.parametrize("body, expected", CASES)
def test_which_atomics_ptxas_sends_once_per_warp(body, expected):
    assert marks(body) == [expected]


def test_a_shared_atomic_to_one_shared_variable_is_aggregated_too():
    """``atomicAdd(&s_count, x)`` on a ``__shared__`` variable: VOTEU.ANY + REDUX.SUM + one ATOMS.ADD."""
    body = (".shared .align 4 .b32 sm[32];\n mov.u32 %r6, sm; red.shared.add.u32 [%r6], %r3;\n"
            " red.shared.add.u32 [sm+4], %r3;")
    assert marks(body) == [LEADER, LEADER]


def test_the_emulated_result_is_unchanged():
    """The mark is for the timing model only: the emulator still adds every lane's operand."""
    import numpy as np

    import gpusim
    src = ptx_of("red.global.add.u32 [%rd3], %r3;")
    vals = np.arange(64, dtype=np.uint32)
    out = np.zeros(1, dtype=np.uint32)
    res = gpusim.run(src, kernel="k", grid=(1, 1, 1), block=(64, 1, 1), args=[out, vals, np.int32(0)],
                     mode="emulate")
    assert int(res.args[0][0]) == int(vals.sum())


@pytest.mark.skipif(sass.find_tools() is None, reason="ptxas and nvdisasm not installed (pip install -e .[sass])")
@pytest.mark.parametrize("body, expected", CASES)
def test_the_rule_says_what_ptxas_does(body, expected):
    ops = [op for lines in sass.sass_by_ptx_line(ptx_of(body))["k"].values() for op in lines]
    elects = any(op.startswith(("REDUX", "VOTEU.ANY", "VOTE.ANY")) for op in ops)
    assert elects == bool(expected), " ".join(ops)
    if expected == FULL_WARP:       # the scan, and the fallback of one atomic per lane
        assert "SHFL.UP" in ops and sum(op.startswith("ATOMG") for op in ops) == 2


def unread(body: str) -> list[bool]:
    m = parse_ptx(ptx_of(body))
    return [i.result_unread for i in link(m, m.kernel()).instructions if i.base in ("atom", "red")]


# An atom's result nobody reads: ptxas writes RED (global, generic) or ATOMS into RZ (shared)
UNREAD_CASES = [
    ("atom.global.add.u32 %r4, [%rd10], %r3;", [True]),              # REDG.E.ADD.STRONG.GPU
    ("atom.global.add.f32 %f2, [%rd10], %f1;", [True]),              # REDG.E.ADD.F32.FTZ.RN.STRONG.GPU
    ("atom.global.xor.b64 %rd12, [%rd10], %rd7;", [True]),           # REDG.E.XOR.64.STRONG.GPU
    ("atom.global.add.u32 %r4, [%rd10], %r3;" + USED, [False]),      # ATOMG.E.ADD.STRONG.GPU
    ("atom.global.cas.b32 %r4, [%rd10], %r3, 5;" + USED, [False]),   # ATOMG.E.CAS.STRONG.GPU
    ("red.global.add.u32 [%rd10], %r3;", [False]),                   # a red has no result to mark
    # read by a later instruction anywhere in the function (no path-wise liveness)
    ("atom.global.add.u32 %r4, [%rd10], %r3; atom.global.add.u32 %r5, [%rd10], %r4;", [False, True]),
    ("atom.relaxed.gpu.global.add.u32 %r4, [%rd10], %r3;", [True]),    # REDG.E.ADD.STRONG.GPU
    ("atom.global.v2.f32.add {%f2, %f3}, [%rd10], {%f1, %f1};", [True]),   # REDG.E.ADD.F32x2 (a vector)
    # unread, yet ptxas keeps the ATOM (or a loop around a CAS): nothing to mark
    ("atom.global.exch.b32 %r4, [%rd10], %r3;", [False]),            # ATOMG.E.EXCH: RED has no exch
    ("atom.global.cas.b32 %r4, [%rd10], %r3, 5;", [False]),          # ATOMG.E.CAS
    ("atom.acquire.gpu.global.add.u32 %r4, [%rd10], %r3;", [False]),  # ATOMG: acquire ordering
    ("atom.add.u32 %r4, [%rd1], %r3;", [False]),                      # generic: ATOM.E.ADD
    (".reg .b16 %h<4>; mov.b16 %h1, 0x3C00; atom.global.add.noftz.f16 %h2, [%rd10], %h1;", [False]),  # CAS loop
    # a shared integer atom's result goes to RZ (ATOMS.ADD RZ); a shared float add is an ATOMS.CAST.SPIN loop
    (".shared .align 4 .b32 sm[32];\n mov.u32 %r6, sm; atom.shared.add.u32 %r4, [%r6], %r3;", [True]),
    (".shared .align 4 .f32 sf[32];\n mov.u32 %r6, sf; atom.shared.add.f32 %f2, [%r6], %f1;", [False]),
]
SASS_UNREAD = [c for c in UNREAD_CASES if "shared" not in c[0] and "red.global" not in c[0] and len(c[1]) == 1]


@pytest.mark.parametrize("body, expected", UNREAD_CASES)
def test_which_atoms_ptxas_gives_no_result(body, expected):
    assert unread(body) == expected


@pytest.mark.skipif(sass.find_tools() is None, reason="ptxas and nvdisasm not installed (pip install -e .[sass])")
@pytest.mark.parametrize("body, expected", SASS_UNREAD)
def test_an_atom_is_marked_exactly_when_the_sass_has_a_red_for_it(body, expected):
    ptx = ptx_of(body).replace(".version 8.0", ".version 8.3")      # vector atoms need PTX 8.1
    ops = [op for lines in sass.sass_by_ptx_line(ptx)["k"].values() for op in lines]
    assert any(op.startswith("RED") and not op.startswith("REDUX") for op in ops) == expected[0], " ".join(ops)
    assert any(op.startswith("ATOM") for op in ops) != expected[0], " ".join(ops)
