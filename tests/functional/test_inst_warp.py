"""Warp-level instructions: shfl.sync up/down/bfly/idx (out-of-range lanes, segments, the predicate output),
vote.sync ballot/any/all, activemask, all under divergence."""
import numpy as np
import pytest
from snippet import run_snippet


def shfl_ref(mode, a, b, c):
    """The PTX ISA pseudo-code of shfl.sync for one warp; returns (d, p) lists."""
    d, p = [], []
    for lane in range(32):
        bval, cval, mask = b[lane] & 31, c & 31, (c >> 8) & 31
        max_lane = (lane & mask) | (cval & ~mask)
        min_lane = lane & mask
        if mode == "up":
            j, ok = lane - bval, lane - bval >= max_lane
        elif mode == "down":
            j, ok = lane + bval, lane + bval <= max_lane
        elif mode == "bfly":
            j, ok = lane ^ bval, (lane ^ bval) <= max_lane
        else:
            j = min_lane | (bval & ~mask)
            ok = j <= max_lane
        d.append(a[j] if ok else a[lane])
        p.append(int(ok))
    return d, p


CASES = [("up", [3] * 32, 0), ("up", [1] * 32, 0), ("down", [5] * 32, 0x1F), ("down", [16] * 32, 0x1F),
         ("bfly", [1] * 32, 0x1F), ("bfly", [12] * 32, 0x1F), ("idx", [(7 * k) % 40 for k in range(32)], 0x1F),
         ("idx", [0] * 32, 0x1F),
         # 8-lane segments (width 8, as __shfl_*_sync(..., 8) compiles)
         ("down", [2] * 32, (24 << 8) | 0x1F), ("up", [2] * 32, 24 << 8), ("idx", [3] * 32, (24 << 8) | 0x1F),
         ("bfly", [4] * 32, (24 << 8) | 0x1F), ("idx", [31] * 32, 0x0F)]


@pytest.mark.parametrize("mode,b,c", CASES)
def test_shfl(mode, b, c):
    a = [1000 + 3 * k for k in range(32)]
    o = run_snippet(f"shfl.sync.{mode}.b32 %d|%p, %a, %b, {c}, 0xffffffff;",
                    {"a": (a, "b32"), "b": (b, "b32")}, {"d": "b32", "p": "pred"})
    d, p = shfl_ref(mode, a, b, c)
    assert [int(v) for v in o["d"]] == d
    assert [int(v) for v in o["p"]] == p


def test_shfl_without_predicate_and_two_warps_stay_apart():
    a = list(range(64))
    o = run_snippet("shfl.sync.bfly.b32 %d, %a, 16, 31, -1;", {"a": (a, "b32")}, {"d": "b32"}, threads=64)
    assert [int(v) for v in o["d"]] == [k ^ 16 for k in range(64)]


def test_vote_ballot_any_all_and_under_divergence():
    body = """
    .reg .pred %q;
    .reg .b32 %m;
    and.b32 %m, %a, 1;
    setp.ne.u32 %q, %m, 0;              // odd lanes
    vote.sync.ballot.b32 %d, %q, 0xffffffff;
    vote.sync.any.pred %e, %q, 0xffffffff;
    vote.sync.all.pred %f, %q, 0xffffffff;
    mov.u32 %g, 0;
    setp.lt.u32 %p, %a, 20;
    @!%p bra SKIP;
    vote.sync.ballot.b32 %g, %q, 0x000fffff;   // only lanes 0..19 are here
    SKIP:
    """
    o = run_snippet(body, {"a": (list(range(32)), "u32")},
                    {"d": "b32", "e": "pred", "f": "pred", "g": "b32", "p": "pred"})
    odd = sum(1 << k for k in range(1, 32, 2))
    assert set(int(v) for v in o["d"]) == {odd}
    assert set(o["e"]) == {1} and set(o["f"]) == {0}
    assert [int(v) for v in o["g"]] == [odd & 0xFFFFF] * 20 + [0] * 12


def test_vote_all_true_when_every_active_lane_agrees():
    o = run_snippet("setp.lt.u32 %p, %a, 100; vote.sync.all.pred %d, %p, -1; setp.eq.u32 %p, %a, 200; "
                    "vote.sync.any.pred %e, %p, -1;", {"a": (list(range(32)), "u32")},
                    {"d": "pred", "e": "pred", "p": "pred"})
    assert set(o["d"]) == {1} and set(o["e"]) == {0}


def test_activemask_under_divergence():
    body = """
    .reg .b32 %m;
    activemask.b32 %d;
    rem.u32 %m, %a, 3;
    setp.eq.u32 %p, %m, 0;
    mov.u32 %e, 0;
    @!%p bra ELSE;
    activemask.b32 %e;
    bra.uni DONE;
    ELSE:
    activemask.b32 %e;
    DONE:
    activemask.b32 %f;
    """
    o = run_snippet(body, {"a": (list(range(40)), "u32")}, {"d": "b32", "e": "b32", "f": "b32", "p": "pred"},
                    threads=40)
    m3 = sum(1 << k for k in range(32) if k % 3 == 0)
    assert [int(v) for v in o["d"]] == [0xFFFFFFFF] * 32 + [0xFF] * 8       # a partial last warp
    want_e = [m3 if k % 3 == 0 else 0xFFFFFFFF ^ m3 for k in range(32)]
    m3b = sum(1 << j for j in range(8) if (32 + j) % 3 == 0)
    want_e += [m3b if (32 + j) % 3 == 0 else 0xFF ^ m3b for j in range(8)]
    assert [int(v) for v in o["e"]] == want_e
    assert [int(v) for v in o["f"]] == [0xFFFFFFFF] * 32 + [0xFF] * 8       # reconverged


# ---- redux.sync, match.sync, elect.sync, the forms without .sync ----------------------------------------
REDUX_PART = """
    .reg .pred %in;
    setp.lt.u32 %in, %a, 13;            // lanes 0..12 take part
    @!%in bra SKIP;
    redux.sync.add.u32 %d, %a, 0x1fff;
    redux.sync.min.s32 %e, %b, 0x1fff;
    redux.sync.max.u32 %f, %b, 0x1fff;
    redux.sync.xor.b32 %g, %a, 0x1fff;
SKIP:
"""


def test_redux_on_a_partial_mask_reduces_the_executing_lanes_only():
    b = [(-1) ** k * k * 1000 for k in range(32)]
    o = run_snippet(REDUX_PART, {"a": (list(range(32)), "u32"), "b": (b, "s32")},
                    {"d": "u32", "e": "s32", "f": "u32", "g": "b32"})
    part = range(13)
    assert set(o["d"][:13]) == {sum(part)} and set(o["d"][13:]) == {0}
    assert set(o["e"][:13]) == {min(b[k] for k in part)}                    # signed: -11000
    assert set(o["f"][:13]) == {max(b[k] % 2 ** 32 for k in part)}         # unsigned: the negatives win
    x = 0
    for k in part:
        x ^= k
    assert set(o["g"][:13]) == {x}


def test_redux_f32_min_max_abs_nan():
    v = [3.5, -7.25, 2.0, float("nan")] + [1.0] * 28
    o = run_snippet("redux.sync.min.f32 %d, %a, 0xffffffff; redux.sync.max.abs.f32 %e, %a, 0xffffffff; "
                    "redux.sync.max.NaN.f32 %f, %a, 0xffffffff;", {"a": np.float32(v)},
                    {"d": "f32", "e": "f32", "f": "f32"})
    assert o["d"][0] == np.float32(-7.25) and o["e"][5] == np.float32(7.25) and np.isnan(o["f"][9])


def test_redux_add_wraps_and_64_lanes():
    o = run_snippet("redux.sync.add.u32 %d, %a, 0xffffffff; redux.sync.and.b32 %e, %a, 0xffffffff;",
                    {"a": ([0x80000001] * 64, "u32")}, {"d": "u32", "e": "b32"}, threads=64)
    assert set(o["d"]) == {(0x80000001 * 32) & 0xFFFFFFFF} and set(o["e"]) == {0x80000001}


def test_match_any_all_and_elect():
    a = [k % 3 for k in range(32)]
    o = run_snippet(".reg .pred %q, %r; .reg .b32 %x;\n"
                    "match.any.sync.b32 %d, %a, 0xffffffff; match.all.sync.b32 %e|%q, %a, 0xffffffff;\n"
                    "match.all.sync.b32 %x|%r, 7, 0xffffffff; selp.u32 %f, 1, 0, %r;\n"
                    "elect.sync %g|%q, 0xffffffff; selp.u32 %h, 1, 0, %q;",
                    {"a": (a, "b32")}, {"d": "b32", "e": "b32", "f": "u32", "g": "b32", "h": "u32"})
    masks = [sum(1 << j for j in range(32) if a[j] == v) for v in range(3)]
    assert [int(x) for x in o["d"]] == [masks[v] for v in a]
    assert set(o["e"]) == {0} and set(o["f"]) == {1}             # not all equal; an immediate is
    assert set(o["g"]) == {0} and list(o["h"]) == [1] + [0] * 31


def test_elect_picks_the_lowest_executing_lane():
    body = """
    .reg .pred %in, %q;
    setp.ge.u32 %in, %a, 5;
    @!%in bra SKIP;
    elect.sync %d|%q, 0xffffffe0;
    selp.u32 %e, 1, 0, %q;
SKIP:
"""
    o = run_snippet(body, {"a": (list(range(32)), "u32")}, {"d": "b32", "e": "u32"})
    assert set(o["d"][5:]) == {5} and list(o["e"]) == [0] * 5 + [1] + [0] * 26


def test_vote_and_shfl_without_sync():
    o = run_snippet(".reg .pred %p, %q; setp.lt.u32 %p, %a, 4; vote.any.pred %q, %p; selp.u32 %d, 1, 0, %q;\n"
                    "vote.ballot.b32 %e, %p; shfl.idx.b32 %f, %a, 3, 0x1f;",
                    {"a": (list(range(32)), "u32")}, {"d": "u32", "e": "b32", "f": "b32"})
    assert set(o["d"]) == {1} and set(o["e"]) == {0xF} and set(o["f"]) == {3}
