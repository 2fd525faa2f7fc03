"""The ISA's edge cases, the .approx functions and FMA contraction, run on the GPU and recorded.

    python benchmarks/isa_device.py [--out $OUT/isa_device.json.gz] [--section NAME ...] [--timeout 120]

Needs CuPy and numpy only (nothing of gpusim): each case is PTX text loaded with ``cupy.RawModule(path=...)``
from a temporary ``.ptx`` file (the driver's ptxas compiles it with its defaults, ``--fmad=true``), or CUDA C
compiled by CuPy's NVRTC as a user would (its PTX is kept).  The JSON keeps, for every case, the PTX, the launch, the inputs and the
outputs as raw bits, so that ``tests/hw/test_isa_device.py`` can rerun exactly that in the emulator and
compare: bit for bit for the exact instructions and FMA contraction, within the PTX ISA's documented bounds
(and the measured distance) for ``.approx``.  Sections: ``snippets`` (integer/bit/warp edge cases), ``kernels``
(atomics, cp.async, 32-bit address wrap-around, device functions), ``approx`` (the math approximations over
many inputs), ``fma`` (contraction).  Each section runs under its own time limit; a case that fails (e.g. an
instruction the driver's ptxas rejects) is recorded with its error and the others go on.  Prints a summary.
"""
from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
# atom/red on vectors, atom .min/.max on f16/bf16, st.async and red.async need PTX ISA 8.1 (ptxas rejects them
# under .version 8.0 with CUDA_ERROR_INVALID_PTX)
HEAD81 = HEAD.replace(".version 8.0", ".version 8.1")
NP = {"f32": np.float32, "f64": np.float64, "s32": np.int32, "u32": np.uint32, "b32": np.uint32, "s64": np.int64,
      "u64": np.uint64, "b64": np.uint64, "s16": np.int16, "u16": np.uint16, "b16": np.uint16}
REG = {"f32": "f32", "f64": "f64", "s32": "b32", "u32": "b32", "b32": "b32", "s64": "b64", "u64": "b64",
       "b64": "b64", "s16": "b16", "u16": "b16", "b16": "b16"}


# ---------------------------------------------------------------------------------------------------------
# cases
# ---------------------------------------------------------------------------------------------------------
def snippet_ptx(name: str, body: str, ins: dict, outs: dict) -> str:
    """A kernel: thread i (over the grid) loads in[i] of each input into %<name>, runs body, stores the outputs."""
    params = ", ".join(f".param .u64 p_{n}" for n in list(ins) + list(outs))
    lines = [HEAD, f".visible .entry {name}({params})", "{", "\t.reg .b32 %_i, %_t; .reg .b64 %_o, %_p;"]
    for n, t in list(ins.items()) + list(outs.items()):
        lines.append(f"\t.reg .{REG[t]} %{n};")
    lines += ["\tmov.u32 %_i, %ctaid.x; mov.u32 %_t, %ntid.x; mul.lo.u32 %_i, %_i, %_t;",
              "\tmov.u32 %_t, %tid.x; add.u32 %_i, %_i, %_t;"]
    for n, t in ins.items():
        size = np.dtype(NP[t]).itemsize
        lines += [f"\tld.param.u64 %_p, [p_{n}]; cvta.to.global.u64 %_p, %_p;",
                  f"\tmul.wide.u32 %_o, %_i, {size}; add.s64 %_p, %_p, %_o; ld.global.{t} %{n}, [%_p];"]
    lines.append(body)
    for n, t in outs.items():
        size = np.dtype(NP[t]).itemsize
        lines += [f"\tld.param.u64 %_p, [p_{n}]; cvta.to.global.u64 %_p, %_p;",
                  f"\tmul.wide.u32 %_o, %_i, {size}; add.s64 %_p, %_p, %_o; st.global.{t} [%_p], %{n};"]
    lines += ["\tret;", "}"]
    return "\n".join(lines) + "\n"


def _rng(seed=1):
    return np.random.default_rng(seed)


EDGE32 = [0, 1, 2, 3, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE, 0x00010000, 0x0000FFFF,
          0x12345678, 0xDEADBEEF, 0x55555555, 0xAAAAAAAA, 0x00800000, 0x00FFFFFF, 0xFF000000, 31, 32, 33, 63, 64, 65]


def u32s(n=256, seed=1):
    r = _rng(seed)
    vals = EDGE32 + [int(v) for v in r.integers(0, 2 ** 32, n - len(EDGE32), dtype=np.uint64)]
    return vals[:n]


def small(n=256, hi=70, seed=2):
    r = _rng(seed)
    vals = list(range(0, 40)) + [int(v) for v in r.integers(0, hi, n - 40)]
    return vals[:n]


def snippet_cases() -> list[dict]:
    n = 256
    a, b, c = u32s(n, 1), u32s(n, 2)[::-1], u32s(n, 3)
    s = small(n)
    sgn = [int(v) for v in _rng(4).integers(-40, 40, n)]
    abc = {"a": ("u32", a), "b": ("u32", b), "c": ("u32", c)}
    twelve = {x: "u32" for x in ("d", "e", "f", "g", "h", "k", "m", "q", "r0", "r1", "r2", "r3")}
    cases = [
        ("bfind", "bfind.u32 %d, %a; bfind.shiftamt.u32 %e, %a; bfind.s32 %f, %a; bfind.shiftamt.s32 %g, %a; "
                  "brev.b32 %h, %a; popc.b32 %k, %a; clz.b32 %m, %a;",
         {"a": ("b32", a)}, {x: "u32" for x in "defghkm"}),
        ("bfind64", "bfind.u64 %d, %a; bfind.s64 %e, %a; bfind.shiftamt.u64 %f, %a; brev.b64 %g, %a;",
         {"a": ("b64", [x << 32 | y for x, y in zip(a, c)])}, {"d": "u32", "e": "u32", "f": "u32", "g": "b64"}),
        ("fns", "fns.b32 %d, %a, %b, %c;", {"a": ("b32", a), "b": ("u32", [v & 31 for v in b]),
                                             "c": ("s32", sgn)}, {"d": "b32"}),
        ("bmsk", "bmsk.clamp.b32 %d, %a, %b; bmsk.wrap.b32 %e, %a, %b;", {"a": ("u32", s), "b": ("u32", s[::-1])},
         {"d": "b32", "e": "b32"}),
        ("szext", "szext.clamp.s32 %d, %a, %b; szext.wrap.s32 %e, %a, %b; szext.clamp.u32 %f, %a, %b; "
                  "szext.wrap.u32 %g, %a, %b;", {"a": ("u32", a), "b": ("u32", s)}, {x: "b32" for x in "defg"}),
        ("shf", "shf.l.wrap.b32 %d, %a, %b, %c; shf.l.clamp.b32 %e, %a, %b, %c; shf.r.wrap.b32 %f, %a, %b, %c; "
                "shf.r.clamp.b32 %g, %a, %b, %c;", {"a": ("b32", a), "b": ("b32", b), "c": ("u32", s)},
         {x: "b32" for x in "defg"}),
        ("prmt", "prmt.b32 %d, %a, %b, %c; prmt.b32.f4e %e, %a, %b, %c; prmt.b32.b4e %f, %a, %b, %c; "
                 "prmt.b32.rc8 %g, %a, %b, %c; prmt.b32.ecl %h, %a, %b, %c; prmt.b32.ecr %k, %a, %b, %c; "
                 "prmt.b32.rc16 %m, %a, %b, %c;", {"a": ("b32", a), "b": ("b32", b), "c": ("b32", c)},
         {x: "b32" for x in "defghkm"}),
        ("bfe_bfi", "bfe.u32 %d, %a, %b, %c; bfe.s32 %e, %a, %b, %c; bfi.b32 %f, %a, %g0, %b, %c;",
         {"a": ("b32", a), "b": ("u32", s), "c": ("u32", s[::-1]), "g0": ("b32", c)},
         {"d": "u32", "e": "s32", "f": "b32"}),
        ("carry", "add.cc.u32 %d, %a, %b; addc.cc.u32 %e, %a, %c; addc.u32 %f, %b, %c; "
                  "sub.cc.u32 %g, %a, %b; subc.cc.u32 %h, %c, %a; subc.u32 %k, %b, %a; "
                  "mad.lo.cc.u32 %m, %a, %b, %c; madc.hi.u32 %q, %a, %b, %c;",
         {"a": ("u32", a), "b": ("u32", b), "c": ("u32", c)}, {x: "u32" for x in "defghkmq"}),
        ("carry64", "add.cc.u64 %d, %a, %b; addc.u64 %e, %a, %b; sub.cc.u64 %f, %a, %b; subc.u64 %g, %b, %a;",
         {"a": ("u64", [x << 32 | y for x, y in zip(a, b)]), "b": ("u64", [x << 32 | y for x, y in zip(c, a)])},
         {x: "u64" for x in "defg"}),
        ("mul24", "mul24.lo.u32 %d, %a, %b; mul24.hi.u32 %e, %a, %b; mul24.lo.s32 %f, %a, %b; "
                  "mul24.hi.s32 %g, %a, %b; mad24.lo.u32 %h, %a, %b, %c; mad24.hi.s32 %k, %a, %b, %c; "
                  "mad24.hi.sat.s32 %m, %a, %b, %c;", {"a": ("u32", a), "b": ("u32", b), "c": ("u32", c)},
         {"d": "u32", "e": "u32", "f": "s32", "g": "s32", "h": "u32", "k": "s32", "m": "s32"}),
        ("sad_dp", "sad.u32 %d, %a, %b, %c; sad.s32 %e, %a, %b, %c; dp4a.u32.u32 %f, %a, %b, %c; "
                   "dp4a.s32.s32 %g, %a, %b, %c; dp4a.s32.u32 %h, %a, %b, %c; dp2a.lo.s32.u32 %k, %a, %b, %c; "
                   "dp2a.hi.u32.s32 %m, %a, %b, %c;", {"a": ("u32", a), "b": ("u32", b), "c": ("u32", c)},
         {"d": "u32", "e": "s32", "f": "u32", "g": "s32", "h": "s32", "k": "s32", "m": "s32"}),
        ("lop3", "lop3.b32 %d, %a, %b, %c, 0x96; lop3.b32 %e, %a, %b, %c, 0xE8; lop3.b32 %f, %a, %b, %c, 0x1B;",
         {"a": ("b32", a), "b": ("b32", b), "c": ("b32", c)}, {x: "b32" for x in "def"}),
        ("redux", ".reg .pred %in; mov.u32 %d, 0; mov.u32 %e, 0; mov.u32 %f, 0; mov.u32 %g, 0; mov.u32 %h, 0; "
                  "mov.u32 %k, 0;\n"     # the skipping lanes store them too: a defined value, not a stale register
                  "setp.lt.u32 %in, %s, 20; @!%in bra SK;\n"
                  "redux.sync.add.u32 %d, %a, %m; redux.sync.min.s32 %e, %a, %m; redux.sync.max.u32 %f, %a, %m;\n"
                  "redux.sync.and.b32 %g, %a, %m; redux.sync.or.b32 %h, %a, %m; redux.sync.xor.b32 %k, %a, %m;\n"
                  "SK:", {"a": ("u32", a), "s": ("u32", s), "m": ("b32", _member_masks(s, 20))},
         {"d": "u32", "e": "s32", "f": "u32", "g": "b32", "h": "b32", "k": "b32"}),
        ("match_elect", ".reg .pred %q, %r; .reg .b32 %x;\n"
                        "match.any.sync.b32 %d, %s, 0xffffffff; match.all.sync.b32 %e|%q, %s, 0xffffffff;\n"
                        "selp.u32 %f, 1, 0, %q; elect.sync %g|%r, 0xffffffff; selp.u32 %h, 1, 0, %r;",
         {"s": ("u32", [v % 4 if k // 32 % 2 else 7 for k, v in enumerate(s)])}, {x: "b32" for x in "defgh"}),
        ("vote_shfl", ".reg .pred %p, %q; setp.lt.u32 %p, %s, 30;\n"
                      "vote.sync.ballot.b32 %d, %p, 0xffffffff; vote.sync.any.pred %q, %p, 0xffffffff; "
                      "selp.u32 %e, 1, 0, %q; vote.sync.all.pred %q, %p, 0xffffffff; selp.u32 %f, 1, 0, %q; "
                      "vote.sync.uni.pred %q, %p, 0xffffffff; selp.u32 %g, 1, 0, %q;\n"
                      "shfl.sync.up.b32 %h|%q, %a, 3, 0, 0xffffffff; shfl.sync.down.b32 %k, %a, 5, 0x1f, 0xffffffff;"
                      " shfl.sync.bfly.b32 %m, %a, 6, 0x1f, 0xffffffff; shfl.sync.idx.b32 %r0, %a, %s, 0x0c1f, "
                      "0xffffffff; activemask.b32 %r1;",
         {"a": ("b32", a), "s": ("u32", s)}, {x: "b32" for x in ("d", "e", "f", "g", "h", "k", "m", "r0", "r1")}),
        ("mov_pack", ".reg .b32 %lo, %hi; .reg .b16 %h0, %h1; mov.b64 {%lo, %hi}, %a; mov.b64 %d, {%hi, %lo};"
                     " mov.b32 {%h0, %h1}, %lo; mov.b32 %e, {%h1, %h0}; slct.u32.s32 %f, %lo, %hi, %c;",
         {"a": ("b64", [x << 32 | y for x, y in zip(a, b)]), "c": ("s32", sgn)},
         {"d": "b64", "e": "b32", "f": "u32"}),
        ("half", "add.f16x2 %d, %a, %b; mul.f16x2 %e, %a, %b; fma.rn.f16x2 %f, %a, %b, %c; "
                 "add.bf16x2 %g, %a, %b; fma.rn.bf16x2 %h, %a, %b, %c; min.f16x2 %k, %a, %b; max.NaN.bf16x2 %m, "
                 "%a, %b;", {"a": ("b32", _halves(n, 5)), "b": ("b32", _halves(n, 6)), "c": ("b32", _halves(n, 7))},
         {x: "b32" for x in "defghkm"}),
        ("simd_video", "vabsdiff4.u32.u32.u32 %d, %a, %b, %c; vabsdiff4.u32.u32.u32.add %e, %a, %b, %c; "
                       "vabsdiff4.s32.s32.s32.sat %f, %a, %b, %c; vabsdiff4.u32.u32.u32 %g.b20, %a, %b, %c; "
                       "vadd2.u32.u32.u32 %h, %a.h01, %b.h23, %c; vavrg4.s32.s32.s32 %k, %a, %b, %c; "
                       "vmax2.s32.s32.s32.add %m, %a, %b, %c; vset4.u32.u32.lt %q, %a, %b, %c; "
                       "vsub4.s32.s32.s32.sat %r0, %a.b0000, %b, %c; vabsdiff2.s32.s32.s32.add %r1, %a, %b, %c;",
         {"a": ("u32", a), "b": ("u32", b), "c": ("u32", c)},
         {x: "u32" for x in ("d", "e", "f", "g", "h", "k", "m", "q", "r0", "r1")}),
        ("scalar_video", "vadd.u32.u32.u32.sat %d, %a.b0, %b.b1; vsub.s32.s32.s32 %e.h1, %a.h0, %b.h1, %c; "
                         "vabsdiff.u32.u32.u32.add %f, %a, %b, %c; vset.u32.u32.lt %g, %a.b2, %b.b2; "
                         "vshl.u32.u32.u32.clamp %h, %a, %s; vmad.s32.s32.s32.shr7 %k, %a.h0, -%b.h1, %c; "
                         "vmax.s32.s32.s32.sat %m.b3, %a.b0, %b.b0, %c; vshr.s32.s32.u32.wrap.min %q, %b, %s, %c; "
                         "vmin.u32.s32.s32.max %r0, %a.h1, %b.h0, %c; vset.s32.u32.ge.add %r1, %a.b3, %b.b1, %c;",
         {"a": ("u32", a), "b": ("u32", b), "c": ("u32", c), "s": ("u32", s)},
         {x: "u32" for x in ("d", "e", "f", "g", "h", "k", "m", "q", "r0", "r1")}),
        # the merge of a scalar video result into c's byte or half (d.sel), with and without .sat, per operation
        ("video_merge_sub", "vsub.s32.s32.s32 %d.h0, %a.h0, %b.h1, %c; vsub.s32.s32.s32 %e.h1, %a.h0, %b.h1, %c; "
                            "vsub.s32.s32.s32 %f.b0, %a.b0, %b.b1, %c; vsub.s32.s32.s32 %g.b1, %a.b0, %b.b1, %c; "
                            "vsub.s32.s32.s32 %h.b2, %a.b0, %b.b1, %c; vsub.s32.s32.s32 %k.b3, %a.b0, %b.b1, %c; "
                            "vsub.s32.s32.s32.sat %m.h0, %a.h0, %b.h1, %c; vsub.s32.s32.s32.sat %q.h1, %a.h0, %b.h1, %c; "
                            "vsub.s32.s32.s32.sat %r0.b0, %a.b0, %b.b1, %c; vsub.s32.s32.s32.sat %r1.b1, %a.b0, %b.b1, %c; "
                            "vsub.s32.s32.s32.sat %r2.b2, %a.b0, %b.b1, %c; vsub.s32.s32.s32.sat %r3.b3, %a.b0, %b.b1, %c;",
         abc, twelve),
        ("video_merge_ops", "vadd.u32.u32.u32 %d.h0, %a.h1, %b.h0, %c; vadd.u32.u32.u32 %e.h1, %a.h1, %b.h0, %c; "
                            "vadd.u32.u32.u32 %f.b1, %a.b2, %b.b3, %c; vadd.u32.u32.u32.sat %g.b3, %a.b2, %b.b3, %c; "
                            "vadd.s32.u32.s32 %h.h1, %a, %b, %c; vadd.s32.s32.s32.sat %k.h1, %a, %b, %c; "
                            "vmin.s32.s32.s32 %m.h1, %a.h1, %b.h0, %c; vmin.s32.s32.s32 %q.b3, %a.b1, %b.b0, %c; "
                            "vabsdiff.u32.u32.u32 %r0.h1, %a.h0, %b.h1, %c; vabsdiff.s32.s32.s32.sat %r1.b1, %a.b3, %b.b2, %c; "
                            "vmax.s32.s32.s32 %r2.h0, %a.h1, %b.h1, %c; vmax.s32.s32.s32.sat %r3.b0, %a.b0, %b.b3, %c;",
         abc, twelve),
        # the merge and the secondary operation for vset/vshl/vshr, and the signedness c is compared with
        ("video_merge_more", "vset.u32.u32.lt %d.h1, %a.b2, %b.b2, %c; vset.s32.s32.gt %e.b1, %a.h0, %b.h1, %c; "
                             "vshl.u32.u32.u32.wrap %f.h1, %a, %s, %c; vshr.s32.s32.u32.sat.wrap %g.b2, %a.h1, %s, %c; "
                             "vshl.s32.s32.u32.sat.clamp %h.h0, %a.b0, %s, %c; vmin.u32.u32.u32.max %k, %a.h1, %b.h0, %c; "
                             "vmax.u32.u32.u32.min %m, %a, %b, %c; vmax.s32.u32.u32.min %q, %a.h1, %b.h0, %c; "
                             "vmin.u32.s32.s32.min %r0, %a.h1, %b.h0, %c; vsub.u32.s32.s32.max %r1, %a.b0, %b.b1, %c; "
                             "vadd.s32.u32.u32.sat.max %r2, %a, %b, %c; vabsdiff.u32.s32.s32.sat %r3.h1, %a.h0, %b.h1, %c;",
         {**abc, "s": ("u32", s)}, twelve),
        ("narrow_floats", ".reg .b16 %h0, %h1; cvt.rn.satfinite.e4m3x2.f32 %h0, %x, %y; cvt.u32.u16 %d, %h0; "
                          "cvt.rn.satfinite.e5m2x2.f32 %h1, %x, %y; cvt.u32.u16 %e, %h1; "
                          "cvt.rn.f16x2.e4m3x2 %f, %h0; cvt.rn.f16x2.e5m2x2 %g, %h1; cvt.rna.tf32.f32 %h, %x; "
                          "cvt.rn.satfinite.relu.e4m3x2.f32 %h0, %x, %y; cvt.u32.u16 %k, %h0; "
                          "cvt.rn.bf16.f32 %h1, %x; cvt.u32.u16 %m, %h1; cvt.rn.bf16x2.f32 %q, %x, %y;",
         {"x": ("f32", _floats(n, 11)), "y": ("f32", _floats(n, 12))}, {x: "b32" for x in "defghkmq"}),
        ("int16x2", "add.s16x2 %d, %a, %b; add.u16x2 %e, %a, %b; min.s16x2 %f, %a, %b; max.u16x2 %g, %a, %b; "
                    "max.relu.s16x2 %h, %a, %b; min.relu.s32 %k, %a, %b;",
         {"a": ("b32", a), "b": ("b32", b)}, {x: "b32" for x in "defghk"}),
        ("fma64", "fma.rn.f64 %d, %a, %b, %c; mul.rn.f64 %e, %a, %b; add.rn.f64 %e, %e, %c;",
         {"a": ("f64", _f64s(n, 8)), "b": ("f64", _f64s(n, 9)), "c": ("f64", _f64_cancel(n))},
         {"d": "f64", "e": "f64"}),
    ]
    return [_snippet(*case) for case in cases + video_probes() + vmad_probes()]


def _snippet(nm: str, body: str, ins: dict, outs: dict) -> dict:
    n = len(next(iter(ins.values()))[1])          # threads: one per input element, in blocks of 64
    assert n % 64 == 0, (nm, n)
    return {"name": nm, "ptx": snippet_ptx(nm, body, {k: t for k, (t, _) in ins.items()}, outs), "kernel": nm,
            "grid": n // 64, "block": 64,
            "args": [{"array": _bits(t, v), "type": t} for t, v in ins.values()] +
                    [{"array": _bits(t, [0] * n), "type": t, "out": True} for t in outs.values()],
            "out_names": list(outs)}


# Words whose byte 0, half 0 and whole reach the edges of .u32/.s32 when shifted, added or subtracted
VIDEO_WORDS = [0, 1, 2, 3, 0x33, 0x45, 0x66, 0x7F, 0x80, 0xA9, 0xBB, 0xFE, 0xFF, 0x7FFF, 0x8000, 0xFFFF8001,
               0x40000000, 0x7FFFFFFF, 0x80000000, 0xC0000000, 0xFFFFFFFD, 0xFFFFFFFF, 0x12345678, 0xDEADBEEF,
               0x55555555, 0xFFFFFFA9]
VIDEO_SHIFTS = list(range(41)) + [47, 63, 64, 65, 255, 256, 0x10000, 0xFFFFFFFF]
# a and b of the add/sub probes: every pair of these, each against c at the edges and beside the result
VIDEO_PAIR_WORDS = [0, 1, 2, 0x3C, 0x7FFFFFFE, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE,
                    0xFFFFFFC4, 0xFFFFBE78, 0x12345678, 0xDEADBEEF, 0x0000FFFF, 0xC0000000]
VIDEO_C = [0, 1, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFE, 0xFFFFFFFF]


def video_probes() -> list[tuple]:
    """The scalar video instructions where the 32-bit range is left: vshl's shift amounts 0..40 and beyond
    for every operand and destination type, with .sat, into a whole d, a byte or a half (``vshl_sat``); the
    secondary .min/.max of results beyond 32 bits or negative against c at the edges and beside the result
    (``video_op2``); .sat into a merged part of such results (``video_merge_sat``); the forms where ptxas's
    lowering of these instructions (which is what the GPU runs) departs from the pseudo-code (``video_sat_op2``)."""
    r = _rng(21)
    a, s = zip(*[(x, k) for x in VIDEO_WORDS for k in VIDEO_SHIFTS])
    pad = (-len(a)) % 64
    a = list(a) + [int(v) for v in r.integers(0, 2 ** 32, pad)]
    s = list(s) + [int(v) for v in r.integers(0, 48, pad)]
    c = []
    for i, (x, k) in enumerate(zip(a, s)):
        low = (x << min(k, 32)) & 0xFFFFFFFF        # the shifted word's low 32 bits: c beside it
        c.append([*VIDEO_C, 0x0000FFFF, (low - 1) & 0xFFFFFFFF, low, (low + 1) & 0xFFFFFFFF,
                  int(r.integers(0, 2 ** 32))][i % 12])
    shl = ("vshl.s32.s32.u32.sat.clamp %d, %a, %s; vshl.u32.u32.u32.sat.clamp %e, %a, %s; "
           "vshl.s32.u32.u32.sat.clamp %f, %a, %s; vshl.u32.s32.u32.sat.clamp %g, %a, %s; "
           "vshl.s32.s32.u32.sat.clamp %h.h0, %a.b0, %s, %c; vshl.s32.s32.u32.sat.clamp %k.h0, %a, %s, %c; "
           "vshl.u32.u32.u32.sat.clamp %m.b1, %a, %s, %c; vshl.s32.s32.u32.sat.clamp %q.h1, %a.h0, %s, %c; "
           "vshl.s32.s32.u32.sat.wrap %r0, %a, %s; vshl.u32.u32.u32.sat.wrap %r1.h0, %a, %s, %c; "
           "vshl.s32.s32.u32.clamp.max %r2, %a, %s, %c; vshl.u32.u32.u32.clamp.min %r3, %a, %s, %c; "
           "vshr.s32.s32.u32.sat.clamp %r4.b0, %a, %s, %c; vshl.u32.s32.u32.sat.clamp.max %r5, %a, %s, %c; "
           "vshl.s32.s32.u32.clamp %r6.h0, %a, %s, %c; vshl.s32.u32.u32.sat.clamp.min %r7, %a.b0, %s, %c; "
           "vshr.u32.s32.u32.clamp.min %r8, %a.b0, %s, %c; vshl.u32.s32.u32.wrap.max %r9, %a, %s, %c; "
           "vshl.s32.u32.u32.clamp.max %r10, %a, %s, %c; vshr.u32.s32.u32.wrap.max %r11, %a.h1, %s, %c;")
    sixteen = {x: "u32" for x in ("d", "e", "f", "g", "h", "k", "m", "q", "r0", "r1", "r2", "r3", "r4", "r5",
                                  "r6", "r7")}
    twenty = {**sixteen, **{f"r{k}": "u32" for k in range(8, 12)}}
    pa, pb, pc, pc2 = [], [], [], []
    for x in VIDEO_PAIR_WORDS:
        for y in VIDEO_PAIR_WORDS:
            for o in range(len(VIDEO_C) + 3):
                pa.append(x)
                pb.append(y)
                near = o - len(VIDEO_C) - 1               # -1, 0, +1 beside the sum (c) or difference (c2)
                pc.append(VIDEO_C[o] if near < -1 else (x + y + near) & 0xFFFFFFFF)
                pc2.append(VIDEO_C[o] if near < -1 else (x - y + near) & 0xFFFFFFFF)
    op2 = ("vadd.u32.u32.u32.max %d, %a, %b, %c; vadd.u32.u32.u32.min %e, %a, %b, %c; "
           "vadd.s32.s32.s32.max %f, %a, %b, %c; vadd.s32.u32.u32.min %g, %a, %b, %c; "
           "vadd.u32.s32.s32.max %h, %a, %b, %c; vsub.u32.u32.u32.max %k, %a, %b, %c2; "
           "vsub.u32.u32.u32.min %m, %a, %b, %c2; vsub.s32.s32.s32.min %q, %a, %b, %c2; "
           "vsub.s32.u32.u32.max %r0, %a, %b, %c2; vmin.u32.s32.s32.max %r1, %a, %b, %c; "
           "vabsdiff.s32.u32.u32.min %r2, %a, %b, %c; vsub.u32.s32.s32.sat.min %r3, %a, %b, %c2; "
           "vmax.u32.s32.u32.min %r4, %a.h1, %b.b0, %c; vsub.u32.s32.s32.max %r5, %a.b0, %b.b1, %c; "
           "vadd.s32.s32.s32.sat.max %r6, %a, %b, %c; vsub.u32.u32.u32.add %r7, %a, %b, %c2;")
    merge = ("vadd.u32.u32.u32.sat %d.h0, %a, %b, %c; vadd.s32.s32.s32.sat %e.h0, %a, %b, %c; "
             "vadd.s32.u32.u32.sat %f.b0, %a, %b, %c; vsub.u32.u32.u32.sat %g.b2, %a, %b, %c; "
             "vsub.s32.u32.u32.sat %h.h0, %a, %b, %c; vsub.s32.s32.s32.sat %k.b1, %a, %b, %c; "
             "vadd.u32.u32.u32.sat %m.h1, %a, %b, %c; vsub.s32.s32.s32.sat %q.h1, %a, %b, %c; "
             "vabsdiff.u32.s32.s32.sat %r0.h0, %a, %b, %c; vmax.s32.u32.u32.sat %r1.b3, %a, %b, %c; "
             "vadd.u32.u32.u32 %r2.h0, %a, %b, %c; vsub.u32.s32.s32.sat %r3.b0, %a, %b, %c; "
             "vadd.s32.u32.u32.sat %r4.h1, %a, %b, %c; vabsdiff.s32.s32.s32.sat %r5.b2, %a, %b, %c; "
             "vmin.s32.u32.s32.sat %r6.h0, %a, %b, %c; vsub.u32.u32.u32.sat %r7.b3, %a, %b, %c;")
    # what ptxas's lowering predicts beyond the above: .u32 .sat clamps only below, vset's .min/.max compare c
    # as a's type, vabsdiff/vmin/vmax compare their exact result
    more = ("vadd.u32.u32.u32.sat %d, %a, %b; vadd.u32.s32.u32.sat %e, %a, %b; vsub.u32.u32.s32.sat %f, %a, %b; "
            "vadd.u32.u32.u32.sat.max %g, %a, %b, %c; vadd.u32.u32.u32.sat.add %h, %a, %b, %c; "
            "vabsdiff.u32.s32.u32.sat.max %k, %a, %b, %c; vabsdiff.u32.s32.u32.sat %m, %a, %b; "
            "vmax.u32.u32.u32.sat.min %q, %a, %b, %c; vmax.s32.u32.u32.min %r0, %a, %b, %c; "
            "vabsdiff.s32.s32.s32.max %r1, %a, %b, %c; vset.s32.u32.ge.max %r2, %a, %b, %c; "
            "vset.s32.s32.lt.min %r3, %a, %b, %c; vset.u32.s32.gt.max %r4, %a, %b, %c; "
            "vmin.s32.u32.s32.max %r5, %a, %b, %c; vabsdiff.u32.u32.s32.sat.min %r6, %a, %b, %c; "
            "vsub.u32.s32.u32.sat.min %r7, %a, %b, %c2;")
    pairs = {"a": ("u32", pa), "b": ("u32", pb), "c": ("u32", pc), "c2": ("u32", pc2)}
    return [("vshl_sat", shl, {"a": ("u32", a), "s": ("u32", s), "c": ("u32", c)}, twenty),
            ("video_op2", op2, pairs, sixteen), ("video_merge_sat", merge, pairs, sixteen),
            ("video_sat_op2", more, pairs, sixteen)]


# vmad's a and b: words whose product (as .s32 or .u32) crosses 2^31, 2^32 and 2^63, and bytes/halves at their
# types' edges; c at the edges, and beside minus the product (where .sat and the carry into bit 32 turn)
VMAD_WORDS = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF,
              0xFFFFFFFE, 0xC0000000, 0x12345678, 0xFF80807F]
VMAD_C = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFF8000, 0x00004000, 0x80000001]
# .po and the negations ptxas accepts: -a xor -b (the product), -c, or -a -b -c
VMAD_SIGNS = [("", "", "", ""), ("", "-", "", ""), ("", "", "-", ""), ("", "-", "-", ""), ("", "", "", "-"),
              ("", "-", "-", "-"), (".po", "", "", "")]
VMAD_PARTS = [(".b0", ".b1"), (".h1", ".h0"), (".b3", ""), ("", ".h1")]


def vmad_probes(per_case: int = 24) -> list[tuple]:
    """vmad, which ptxas lowers to a signed 32 x 32 -> 64-bit multiply-add (a whole .u32 word multiplies as
    .s32, c is sign-extended): every destination, a and b type, with and without .sat, unscaled, .shr7 and
    .shr15, each negation ptxas accepts and .po, on whole words (``vmad_words_*``) and on bytes and halves
    (``vmad_parts_*``: each form with one of the selector pairs, in turn), over every pair of VMAD_WORDS with
    two values of c each: one at the edges, one beside minus the product as .s32 words (-1, 0, +1, +-2^31)."""
    import itertools
    forms = [(f"vmad.{dt}.{at}.{bt}{po}{sat}{scale}", na, nb, nc)
             for (dt, at, bt), sat, scale, (po, na, nb, nc) in itertools.product(
                 itertools.product(("u32", "s32"), repeat=3), ("", ".sat"), ("", ".shr7", ".shr15"), VMAD_SIGNS)]
    words = [f"{ins} %{{d}}, {na}%a, {nb}%b, {nc}%c;" for ins, na, nb, nc in forms]
    parts = [f"{ins} %{{d}}, {na}%a{VMAD_PARTS[k % 4][0]}, {nb}%b{VMAD_PARTS[k % 4][1]}, {nc}%c;"
             for k, (ins, na, nb, nc) in enumerate(forms)]
    pa, pb, pc = [], [], []
    for i, (x, y) in enumerate(itertools.product(VMAD_WORDS, repeat=2)):
        sx, sy = (v - (1 << 32) if v >> 31 else v for v in (x, y))
        for near in (VMAD_C[i % len(VMAD_C)], -sx * sy + (-1, 0, 1, 1 << 31, -(1 << 31))[i % 5]):
            pa.append(x)
            pb.append(y)
            pc.append(near & 0xFFFFFFFF)
    ins = {"a": ("u32", pa), "b": ("u32", pb), "c": ("u32", pc)}
    out = []
    for kind, texts in (("words", words), ("parts", parts)):
        for n, k in enumerate(range(0, len(texts), per_case)):
            chunk = texts[k:k + per_case]
            names = [f"v{j}" for j in range(len(chunk))]
            out.append((f"vmad_{kind}_{n}", " ".join(t.format(d=d) for t, d in zip(chunk, names)), ins,
                        {d: "u32" for d in names}))
    return out


def _member_masks(s, limit):
    """Per lane: the mask of its warp's lanes with s < limit (the lanes that reach the redux)."""
    out = []
    for w in range(len(s) // 32):
        m = sum(1 << k for k in range(32) if s[32 * w + k] < limit)
        out += [m] * 32
    return out


def _halves(n, seed):
    r = _rng(seed)
    vals = np.concatenate([np.float16([0, -0.0, 1, -1, 65504, 6.1e-5, 5.96e-8, np.inf, -np.inf, np.nan]),
                           r.standard_normal(2 * n).astype(np.float16)])[: 2 * n]
    u = vals.view(np.uint16).astype(np.uint32)
    return [int(x) for x in (u[0::2] | (u[1::2] << 16))]


def _floats(n, seed):
    """float32 values around the 8-bit floats' ranges, with the special values."""
    r = _rng(seed)
    vals = np.concatenate([np.float32([0, -0.0, 1, -1, 448, 449, 464, 57344, 1e9, -1e9, np.inf, -np.inf, np.nan,
                                       2.0 ** -9, 2.0 ** -10, 2.0 ** -17, 1.0625, 1.1875]),
                           (r.standard_normal(n) * np.exp2(r.integers(-12, 12, n))).astype(np.float32)])
    return [float(v) for v in vals[:n]]


def _f64s(n, seed):
    r = _rng(seed)
    return [float(x) for x in (1 + r.integers(1, 2 ** 52, n) * 2.0 ** -52) * r.choice([-1.0, 1.0], n)]


def _f64_cancel(n):
    a, b = np.array(_f64s(n, 8)), np.array(_f64s(n, 9))
    return [float(x) for x in -(a * b) * (1 + _rng(10).integers(-3, 4, n) * 2.0 ** -52)]


_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _bits(t, vals):
    """Values as the hex of their bits (a JSON list that keeps NaN payloads and -0.0); integers of any sign
    wrap to the type's width."""
    width = np.dtype(NP[t]).itemsize
    if t in ("f32", "f64"):
        raw = np.asarray(vals, dtype=np.float64).astype(NP[t]).view(_UINT[width])
        return [format(int(x), "x") for x in raw]
    return [format(int(v) % (1 << (8 * width)), "x") for v in vals]


def hex_of(arr: np.ndarray) -> list[str]:
    """An array's elements as the hex of their bits."""
    arr = np.ascontiguousarray(arr)
    return [format(int(x), "x") for x in arr.view(_UINT[arr.dtype.itemsize])]


def from_bits(t, hexes):
    raw = np.array([int(h, 16) for h in hexes], dtype=_UINT[np.dtype(NP[t]).itemsize])
    return raw.view(NP[t])


# ---- whole kernels: atomics, cp.async, the wrap-around address ------------------------------------------
ATOMICS = HEAD + """.visible .entry atomics(.param .u64 p_buf, .param .u64 p_old)
{
    .reg .b32 %r<8>; .reg .b64 %rd<10>; .reg .b16 %h<4>; .reg .f32 %f<4>; .reg .f64 %fd<4>; .reg .pred %p1;
    .shared .align 4 .f32 s;
    ld.param.u64 %rd1, [p_buf]; cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [p_old]; cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r0, %tid.x;
    // 16-bit CAS on the two halves of one word
    and.b32 %r1, %r0, 1; mul.wide.u32 %rd3, %r1, 2; add.s64 %rd4, %rd1, %rd3;
    cvt.u16.u32 %h1, %r0; mov.b16 %h2, 0x1234;
    atom.global.cas.b16 %h3, [%rd4], %h2, %h1;
    // 64-bit
    cvt.u64.u32 %rd5, %r0;
    atom.global.add.u64 %rd6, [%rd1+8], %rd5;
    atom.global.max.s64 %rd6, [%rd1+16], %rd5;
    neg.s64 %rd7, %rd5;
    atom.global.min.s64 %rd6, [%rd1+24], %rd7;
    atom.global.cas.b64 %rd6, [%rd1+32], 0x100000000, %rd5;
    // f16, bf16, f16x2 adds
    mov.b16 %h1, 0x3C00; atom.global.add.noftz.f16 %h2, [%rd1+40], %h1;
    mov.b16 %h1, 0x3F80; atom.global.add.noftz.bf16 %h2, [%rd1+42], %h1;
    mov.b32 %r2, 0x40003C00; atom.global.add.noftz.f16x2 %r3, [%rd1+44], %r2;
    // f32 add of a subnormal: flushed on global, kept on shared
    mov.f32 %f1, 0f00011CE4;
    setp.eq.u32 %p1, %r0, 0;
    @%p1 st.shared.f32 [s], %f1;
    bar.sync 0;
    @%p1 atom.global.add.f32 %f2, [%rd1+48], %f1;
    @%p1 atom.shared.add.f32 %f3, [s], %f1;
    bar.sync 0;
    @%p1 ld.shared.f32 %f3, [s];
    @%p1 st.global.f32 [%rd1+52], %f3;
    // exch, inc, dec
    atom.global.exch.b32 %r4, [%rd1+56], %r0;
    atom.global.inc.u32 %r5, [%rd1+60], 20;
    atom.global.dec.u32 %r6, [%rd1+64], 5;
    mul.wide.u32 %rd8, %r0, 4; add.s64 %rd9, %rd2, %rd8; st.global.u32 [%rd9], %r4;
}
"""

# PTX has no atom.min/.max on f32 or f64 (ptxas: ".min requires .u32 .s32 .u64 .s64 .f16 .f16x2 .bf16 .bf16x2"); the
# floating-point min/max atomics are the vector forms on 16-bit floats (PTX ISA 8.1), here against NaN, -0.0, inf
HALF_MINMAX = HEAD81 + """.visible .entry half_minmax(.param .u64 p_buf)
{
    .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .f32 %f<4>; .reg .b16 %h<4>;
    ld.param.u64 %rd1, [p_buf]; cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r0, %tid.x; cvt.rn.f32.u32 %f1, %r0; sub.f32 %f1, %f1, 10.0;
    cvt.rn.f16.f32 %h0, %f1; cvt.rn.bf16.f32 %h1, %f1; mov.b32 %r1, {%h1, %h1};
    atom.global.v2.f16.min.noftz {%h2, %h3}, [%rd1], {%h0, %h0};
    atom.global.v2.f16.max.noftz {%h2, %h3}, [%rd1+4], {%h0, %h0};
    atom.global.v2.bf16x2.min.noftz {%r2, %r3}, [%rd1+8], {%r1, %r1};
    atom.global.v2.bf16x2.max.noftz {%r2, %r3}, [%rd1+16], {%r1, %r1};
}
"""

VECTOR_ATOMICS = HEAD81 + """.visible .entry vector_atomics(.param .u64 p_buf)
{
    .reg .b64 %rd<2>; .reg .b16 %v<8>; .reg .f32 %f<2>;
    ld.param.u64 %rd1, [p_buf]; cvta.to.global.u64 %rd1, %rd1;
    mov.b16 %v0, 0x3C00; mov.b16 %v1, 0x4000;
    atom.global.v2.f16.add.noftz {%v2, %v3}, [%rd1], {%v0, %v1};
    mov.f32 %f0, 0f3F800000; mov.f32 %f1, 0f40400000;
    red.global.v2.f32.add [%rd1+8], {%f0, %f1};
    mov.b16 %v4, 0xC000;
    atom.global.v2.f16.min.noftz {%v5, %v6}, [%rd1+4], {%v4, %v4};
    mov.b16 %v7, 0x3F80;
    red.global.v4.bf16.add.noftz [%rd1+16], {%v7, %v7, %v7, %v7};
}
"""

CP_ASYNC = HEAD + """.visible .entry cp_async(.param .u64 p_in, .param .u64 p_out)
{
    .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<4>;
    .shared .align 16 .b8 sm[1024];
    ld.param.u64 %rd1, [p_in]; cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [p_out]; cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r0, %tid.x; mul.wide.u32 %rd3, %r0, 16; add.s64 %rd4, %rd1, %rd3;
    mov.u32 %r1, sm; mul.lo.u32 %r2, %r0, 16; add.u32 %r3, %r1, %r2;
    and.b32 %r4, %r0, 3; shl.b32 %r4, %r4, 2;
    cp.async.cg.shared.global [%r3], [%rd4], 16, %r4;
    cp.async.commit_group;
    cp.async.wait_group 0;
    bar.sync 0;
    ld.shared.v4.f32 {%f0, %f1, %f2, %f3}, [%r3];
    add.s64 %rd5, %rd2, %rd3;
    st.global.v4.f32 [%rd5], {%f0, %f1, %f2, %f3};
}
"""

WRAP = HEAD + """.visible .entry wrap(.param .u64 p_out)
{
    .reg .b32 %r<8>; .reg .b64 %rd<4>;
    .shared .align 4 .b32 tile[64];
    mov.u32 %r0, %tid.x; mov.u32 %r1, tile; shl.b32 %r2, %r0, 2; add.u32 %r3, %r1, %r2;
    st.shared.u32 [%r3], %r0;
    bar.sync 0;
    sub.u32 %r5, %r3, 64;
    ld.shared.u32 %r6, [%r5+64];
    ld.param.u64 %rd1, [p_out]; cvta.to.global.u64 %rd1, %rd1; mul.wide.u32 %rd2, %r0, 4; add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
}
"""


MBARRIER = HEAD + """.visible .entry mbar(.param .u64 p_out)
{
    .reg .pred %p<4>; .reg .b32 %r<10>; .reg .b64 %rd<6>;
    .shared .align 8 .b64 bar;
    .shared .align 4 .b32 box[128];
    ld.param.u64 %rd1, [p_out]; cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r0, %tid.x; mov.u32 %r1, bar;
    setp.eq.u32 %p1, %r0, 0;
    @%p1 mbarrier.init.shared.b64 [%r1], 128;
    bar.sync 0;
    mov.u32 %r2, box; shl.b32 %r3, %r0, 2; add.u32 %r4, %r2, %r3; add.u32 %r5, %r0, 1000;
    st.shared.u32 [%r4], %r5;
    mbarrier.arrive.shared.b64 %rd2, [%r1];
WAIT:
    mbarrier.try_wait.shared.b64 %p2, [%r1], %rd2;
    @!%p2 bra WAIT;
    xor.b32 %r6, %r0, 127; shl.b32 %r6, %r6, 2; add.u32 %r6, %r2, %r6; ld.shared.u32 %r7, [%r6];
    mbarrier.pending_count.b64 %r8, %rd2;
    mbarrier.arrive.shared.b64 %rd3, [%r1];
WAIT1:
    mbarrier.test_wait.parity.shared.b64 %p3, [%r1], 1;
    @!%p3 bra WAIT1;
    mul.wide.u32 %rd4, %r0, 8; add.s64 %rd5, %rd1, %rd4; st.global.v2.u32 [%rd5], {%r7, %r8};
}
"""


# pending_count is defined only on the state of an arrive.noComplete (on any other state the PTX ISA leaves it
# undefined): 128 threads arrive without completing on a barrier of 129, then thread 0 completes the phase
MBARRIER_NOCOMPLETE = HEAD + """.visible .entry mbar_nocomplete(.param .u64 p_out)
{
    .reg .pred %p<4>; .reg .b32 %r<10>; .reg .b64 %rd<6>;
    .shared .align 8 .b64 bar;
    .shared .align 4 .b32 box[128];
    ld.param.u64 %rd1, [p_out]; cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r0, %tid.x; mov.u32 %r1, bar;
    setp.eq.u32 %p1, %r0, 0;
    @%p1 mbarrier.init.shared.b64 [%r1], 129;
    bar.sync 0;
    mov.u32 %r2, box; shl.b32 %r3, %r0, 2; add.u32 %r4, %r2, %r3; add.u32 %r5, %r0, 2000;
    st.shared.u32 [%r4], %r5;
    mbarrier.arrive.noComplete.shared.b64 %rd2, [%r1], 1;
    mbarrier.pending_count.b64 %r8, %rd2;
    bar.sync 0;
    @%p1 mbarrier.arrive.shared.b64 %rd3, [%r1];
WAIT:
    mbarrier.try_wait.parity.shared.b64 %p2, [%r1], 0;
    @!%p2 bra WAIT;
    xor.b32 %r6, %r0, 127; shl.b32 %r6, %r6, 2; add.u32 %r6, %r2, %r6; ld.shared.u32 %r7, [%r6];
    mul.wide.u32 %rd4, %r0, 8; add.s64 %rd5, %rd1, %rd4; st.global.v2.u32 [%rd5], {%r7, %r8};
}
"""

# st.async and red.async are not run here: the PTX ISA defines them only in a cluster of more than one CTA
# (%cluster_nctarank > 1), which a CuPy launch does not make (on the H100, a one-CTA launch of them stops the
# context with CUDA_ERROR_ILLEGAL_INSTRUCTION), and gpusim runs clusters of one block


def _arr(t, vals, out=False):
    return {"array": _bits(t, vals), "type": t, **({"out": True} if out else {})}


def kernel_cases() -> list[dict]:
    atom_buf = [0x12341234, 0, 2 ** 40 & 0xFFFFFFFF, 2 ** 40 >> 32, 0xFFFFFFFB, 0xFFFFFFFF, 3, 0, 0, 1,
                0x3F803C00, 0, 0x00011CE4, 0, 999, 0, 5, 0]
    cases = [
        {"name": "atomics", "ptx": ATOMICS, "kernel": "atomics", "grid": 1, "block": 32,
         "args": [_arr("u32", atom_buf, True), _arr("u32", [0] * 32, True)]},
        {"name": "vector_atomics", "ptx": VECTOR_ATOMICS, "kernel": "vector_atomics", "grid": 1, "block": 32,
         "args": [_arr("u32", [0, 0xC7004500, 0, 0, 0x3F803F80, 0x3F803F80], True)]},
        {"name": "half_minmax", "ptx": HALF_MINMAX, "kernel": "half_minmax", "grid": 1, "block": 32,
         "args": [_arr("u32", [0x7E003800, 0x7E008000, 0x7FC03F00, 0x7F808000, 0x7FC03F00, 0xFF808000], True)]},
        {"name": "cp_async", "ptx": CP_ASYNC, "kernel": "cp_async", "grid": 1, "block": 64,
         "args": [_arr("f32", list(np.arange(256, dtype=np.float32) + 1)), _arr("f32", [0.0] * 256, True)]},
        {"name": "wrap", "ptx": WRAP, "kernel": "wrap", "grid": 1, "block": 64, "args": [_arr("u32", [0] * 64, True)]},
        {"name": "mbarrier", "ptx": MBARRIER, "kernel": "mbar", "grid": 1, "block": 128,
         "args": [_arr("u32", [0] * 256, True)]},
        {"name": "mbarrier_nocomplete", "ptx": MBARRIER_NOCOMPLETE, "kernel": "mbar_nocomplete", "grid": 1,
         "block": 128, "args": [_arr("u32", [0] * 256, True)]},
    ]
    calls = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "calls.ptx"
    if calls.exists():
        ptx = calls.read_text().replace(".version 9.0", ".version 8.0")
        a = [k - 50 for k in range(128)]
        cases += [
            {"name": "calls_divergent", "ptx": ptx, "kernel": "divergent_calls", "grid": 4, "block": 32,
             "args": [_arr("s32", a), _arr("s32", [0] * 128, True), _arr("u32", [0] * 128, True)]},
            {"name": "calls_pointers", "ptx": ptx, "kernel": "pointers", "grid": 4, "block": 32,
             "args": [_arr("s32", a), _arr("s32", [0] * 128, True)]},
            {"name": "calls_recursion", "ptx": ptx, "kernel": "recurse", "grid": 4, "block": 32,
             "args": [_arr("s32", [k % 32 + (k % 7) * 3 for k in range(128)]), _arr("s32", [0] * 128, True)]},
        ]
    else:       # the device functions' cases need the fixture beside the script (copy it along to the GPU)
        print(f"warning: {calls} not found: the calls_* cases are left out", file=sys.stderr)
    return cases


# ---- .approx functions over many inputs ------------------------------------------------------------------
APPROX = {   # name: (instruction, type, input generator)
    "sin": ("sin.approx.f32", "f32", lambda r, n: r.uniform(-np.pi, np.pi, n)),
    "sin_wide": ("sin.approx.f32", "f32", lambda r, n: r.uniform(-100 * np.pi, 100 * np.pi, n)),
    "cos": ("cos.approx.f32", "f32", lambda r, n: r.uniform(-np.pi, np.pi, n)),
    "cos_wide": ("cos.approx.f32", "f32", lambda r, n: r.uniform(-100 * np.pi, 100 * np.pi, n)),
    "ex2": ("ex2.approx.f32", "f32", lambda r, n: r.uniform(-126, 127, n)),
    "ex2_ftz": ("ex2.approx.ftz.f32", "f32", lambda r, n: r.uniform(-140, 127, n)),
    "lg2": ("lg2.approx.f32", "f32", lambda r, n: np.exp2(r.uniform(-126, 127, n))),
    "rcp": ("rcp.approx.f32", "f32", lambda r, n: np.exp2(r.uniform(-120, 120, n)) * r.choice([-1, 1], n)),
    "rcp_f64": ("rcp.approx.ftz.f64", "f64", lambda r, n: np.exp2(r.uniform(-1000, 1000, n))),
    "rsqrt": ("rsqrt.approx.f32", "f32", lambda r, n: np.exp2(r.uniform(-120, 120, n))),
    "rsqrt_f64": ("rsqrt.approx.ftz.f64", "f64", lambda r, n: np.exp2(r.uniform(-1000, 1000, n))),
    "sqrt": ("sqrt.approx.f32", "f32", lambda r, n: np.exp2(r.uniform(-120, 120, n))),
    "tanh": ("tanh.approx.f32", "f32", lambda r, n: r.uniform(-10, 10, n)),
    "div_approx": ("div.approx.f32", "f32", None),
    "div_full": ("div.full.f32", "f32", None),
}


def approx_cases(n: int = 4096) -> list[dict]:
    out = []
    r = _rng(20)
    for name, (ins, t, gen) in APPROX.items():
        if gen is None:      # a / b with b in the range where .approx and .full keep their bounds
            x = list(r.uniform(-1e6, 1e6, n).astype(np.float32))
            y = list((np.exp2(r.uniform(-100, 100, n)) * r.choice([-1, 1], n)).astype(np.float32))
            body = f"{ins} %d, %a, %b;"
            ins_t = {"a": t, "b": t}
            args = [_arr(t, x), _arr(t, y), _arr(t, [0.0] * n, True)]
        else:
            x = list(np.asarray(gen(r, n), dtype=NP[t]))
            body = f"{ins} %d, %a;"
            ins_t = {"a": t}
            args = [_arr(t, x), _arr(t, [0.0] * n, True)]
        out.append({"name": name, "instruction": ins, "ptx": snippet_ptx(name, body, ins_t, {"d": t}),
                    "kernel": name, "grid": n // 128, "block": 128, "args": args})
    return out


# ---- FMA contraction: CUDA C compiled by NVRTC as a user of CuPy would -----------------------------------
FMA_SOURCE = r"""
extern "C" __global__ void stencil_like(const float* a, const float* w, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 1 || i >= n - 1) return;
    float c0 = w[0], c1 = w[1];
    out[i] = (a[i - 1] + a[i] + a[i + 1]) * c1 - a[i] * c0;      // mul, mul, sub: ptxas fuses one
}
extern "C" __global__ void complex_mul(const float2* x, const float2* y, float2* z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 a = x[i], b = y[i];
    z[i] = make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
extern "C" __global__ void norm2(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float p = x[i] * x[i], q = y[i] * y[i];
    out[i] = p + q;
}
extern "C" __global__ void lerp_d(const double* a, const double* b, const double* t, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = a[i] * (1.0 - t[i]) + b[i] * t[i];
}
extern "C" __global__ void poly(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], v2 = v * v;
    out[i] = v2 * 0.25f + v * 0.5f - v2 * v * 0.125f;
}
"""
FMA_KERNELS = {   # name: (argument types: arrays and the element count)
    "stencil_like": ("f32", "f32", "f32"), "complex_mul": ("f32", "f32", "f32"), "norm2": ("f32", "f32", "f32"),
    "lerp_d": ("f64", "f64", "f64", "f64"), "poly": ("f32", "f32"),
}


def nvrtc_ptx(source: str) -> tuple[str, str]:
    """PTX of CUDA C from the NVRTC CuPy uses (``-arch=compute_90``, NVRTC's default ``--fmad=true``); the
    driver's ptxas then compiles that PTX, as for a CuPy user's RawModule."""
    from cupy_backends.cuda.libs import nvrtc
    prog = nvrtc.createProgram(source, "fma.cu", (), ())
    try:
        try:
            nvrtc.compileProgram(prog, ("-arch=compute_90",))
        except Exception as e:
            raise RuntimeError(f"NVRTC: {e}: {nvrtc.getProgramLog(prog)}") from None
        ptx = nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)
    if isinstance(ptx, bytes):
        ptx = ptx.decode()
    return ptx.rstrip("\x00"), f"nvrtc {'.'.join(map(str, nvrtc.getVersion()))} (CuPy's)"


def nvcc_ptx(source: str) -> tuple[str, str]:
    """PTX of CUDA C from the local nvcc (``--dry-run`` and the tests, where there is no GPU)."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        cu = Path(d) / "fma.cu"
        cu.write_text(source)
        subprocess.run(["nvcc", "-arch=compute_90", "-ptx", "-o", str(cu.with_suffix(".ptx")), str(cu)], check=True,
                       capture_output=True, text=True)
        return cu.with_suffix(".ptx").read_text(), "nvcc (local)"


def _nvrtc_or_local(source: str) -> tuple[str, str]:
    try:
        return nvrtc_ptx(source)
    except Exception as e:        # no usable NVRTC binding: a local nvcc, if the machine has one
        try:
            ptx, name = nvcc_ptx(source)
            return ptx, f"{name} (NVRTC failed: {e})"
        except Exception:
            raise RuntimeError(f"no CUDA C compiler: NVRTC failed ({e}) and there is no nvcc") from None


def fma_cases(compile_ptx, n: int = 4096) -> list[dict]:
    ptx, compiler_name = compile_ptx(FMA_SOURCE)
    r = _rng(30)
    out = []
    for name, types in FMA_KERNELS.items():
        arrays = []
        for k, t in enumerate(types):
            m = 2 * n if name == "complex_mul" else n
            last = k == len(types) - 1
            vals = [0.0] * m if last else list((r.standard_normal(m) * np.exp2(r.integers(-8, 8, m))).astype(NP[t]))
            if name == "stencil_like" and k == 1:
                vals = list(np.float32([0.3, 1.0 / 3.0])) + [0.0] * (m - 2)
            if name == "lerp_d" and k == 2:
                vals = list(r.uniform(0, 1, m))
            arrays.append(_arr(t, vals, last))
        out.append({"name": name, "ptx": ptx, "kernel": name, "grid": n // 128, "block": 128,
                    "args": arrays + [{"scalar": n, "type": "s32"}], "compiler": compiler_name})
    return out


# ---------------------------------------------------------------------------------------------------------
# running on the GPU
# ---------------------------------------------------------------------------------------------------------
def load_ptx(cp, ptx: str):
    """A module from PTX text: ``cupy.RawModule(code=...)`` takes CUDA C, so PTX goes in by path (the
    driver JIT-compiles it with ptxas's defaults, ``--fmad=true``)."""
    import hashlib
    import tempfile
    path = Path(tempfile.gettempdir()) / f"isa_{hashlib.sha1(ptx.encode()).hexdigest()[:16]}.ptx"
    path.write_text(ptx)
    return cp.RawModule(path=str(path))


def run_case(cp, case: dict) -> dict:
    mod = load_ptx(cp, case["ptx"])
    fn = mod.get_function(case["kernel"])
    dev, args = [], []
    for a in case["args"]:
        if "scalar" in a:
            args.append(NP[a["type"]](a["scalar"]))
            dev.append(None)
        else:
            d = cp.asarray(from_bits(a["type"], a["array"]))
            dev.append(d)
            args.append(d)
    fn((case["grid"],), (case["block"],), tuple(args))
    cp.cuda.Device().synchronize()
    return {str(k): hex_of(cp.asnumpy(d)) for k, (a, d) in enumerate(zip(case["args"], dev)) if a.get("out")}


class SectionTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise SectionTimeout()


def provenance(cp) -> dict:
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    info = {"gpu": name, "cc": f"{props['major']}.{props['minor']}", "driver": cp.cuda.runtime.driverGetVersion(),
            "runtime": cp.cuda.runtime.runtimeGetVersion(), "cupy": cp.__version__, "numpy": np.__version__,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "sm_clock_khz": props.get("clockRate"), "mem_clock_khz": props.get("memoryClockRate"),
            "command": "python benchmarks/isa_device.py", "script": "benchmarks/isa_device.py"}
    try:
        import subprocess
        q = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.sm,clocks.mem,clocks.max.sm",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        info["nvidia_smi"] = q.stdout.strip()
    except Exception as e:          # nvidia-smi is a nicety: the record stands without it
        info["nvidia_smi"] = f"unavailable: {e}"
    return info


def write_record(path, record: dict) -> None:
    """The record as compact JSON, gzip-compressed when the name ends in .gz (the committed one: 11 MB of
    JSON, 1.8 MB compressed)."""
    data = json.dumps(record, separators=(",", ":")).encode()
    Path(path).write_bytes(gzip.compress(data, mtime=0) if str(path).endswith(".gz") else data)


def read_record(path) -> dict:
    data = Path(path).read_bytes()
    return json.loads(gzip.decompress(data) if str(path).endswith(".gz") else data)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."), "isa_device.json.gz"))
    ap.add_argument("--section", action="append", choices=("snippets", "kernels", "approx", "fma"))
    ap.add_argument("--approx-n", type=int, default=4096, help="inputs per .approx function")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per section")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: write the cases without outputs (the CUDA C "
                                                           "compiled by the local nvcc), to check them here")
    a = ap.parse_args(argv)
    if a.dry_run:
        record = {"provenance": {"dry_run": True}, "sections": {
            "snippets": snippet_cases(), "kernels": kernel_cases(), "approx": approx_cases(a.approx_n),
            "fma": fma_cases(nvcc_ptx)}}
        write_record(a.out, record)
        print(f"wrote {a.out}: " + ", ".join(f"{k} {len(v)}" for k, v in record["sections"].items()))
        return 0
    import cupy as cp
    record = {"provenance": provenance(cp), "sections": {}}
    makers = {"snippets": snippet_cases, "kernels": kernel_cases, "approx": lambda: approx_cases(a.approx_n),
              "fma": lambda: fma_cases(_nvrtc_or_local)}
    signal.signal(signal.SIGALRM, _alarm)
    for section in a.section or list(makers):
        t0 = time.time()
        done = record["sections"][section] = []
        signal.alarm(a.timeout)
        try:
            for case in makers[section]():
                try:
                    case["outputs"] = run_case(cp, case)
                except SectionTimeout:
                    raise
                except Exception as e:          # recorded: e.g. an instruction this driver's ptxas rejects
                    case["error"] = f"{type(e).__name__}: {e}"[:500]
                done.append(case)
        except SectionTimeout:
            record.setdefault("timeouts", []).append(section)
        finally:
            signal.alarm(0)
        ok = sum("outputs" in c for c in done)
        print(f"{section:9s} {ok}/{len(done)} cases ran in {time.time() - t0:.1f} s"
              + "".join(f"\n    {c['name']}: {c['error']}" for c in done if "error" in c))
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    write_record(a.out, record)
    print(f"wrote {a.out} ({Path(a.out).stat().st_size / 1e6:.1f} MB) on {record['provenance']['gpu']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
