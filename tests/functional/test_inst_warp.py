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
