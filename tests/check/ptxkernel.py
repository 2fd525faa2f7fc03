"""Small hand-written PTX kernels for the checker's datasheet tests.

``kernel(body)`` wraps ``body`` in an entry ``k`` with ``.u64`` array parameters (``p_a``, ``p_b``, ...) and a
256-byte shared array ``s``, after a preamble that sets, for every thread::

    %r0 = tid.x      %r1 = ctaid.x      %r3 = the global index i = ctaid.x * ntid.x + tid.x
    %r6 = &s[tid.x] (a .shared address)  %r9 = the lane (tid.x % 32)
    %rd1, %rd2, ... = the arrays (global addresses)   %rd10 = &a[i]   %rd11 = &b[i]  (4-byte elements)

A line of the body may end with a marker comment (``// W``); :func:`line` gives its PTX line, which is what a
finding names for a kernel without CUDA line information.  :func:`check` runs it under the checker.
"""
from __future__ import annotations

import numpy as np

import gpusim

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"


def kernel(body: str, arrays=("a", "b"), shared_bytes: int = 256, extra: str = "") -> str:
    params = ", ".join(f".param .u64 p_{n}" for n in arrays)
    pre = ["\t.reg .b32 %r<40>;", "\t.reg .b64 %rd<40>;", "\t.reg .pred %p<10>;", "\t.reg .f32 %f<10>;",
           f"\t.shared .align 16 .b8 s[{shared_bytes}];", extra,
           "\tmov.u32 %r0, %tid.x;", "\tmov.u32 %r1, %ctaid.x;", "\tmov.u32 %r2, %ntid.x;",
           "\tmad.lo.u32 %r3, %r1, %r2, %r0;", "\tand.b32 %r9, %r0, 31;",
           "\tmov.u32 %r4, s;", "\tshl.b32 %r5, %r0, 2;", "\tadd.u32 %r6, %r4, %r5;",
           "\tmul.wide.u32 %rd9, %r3, 4;"]
    for k, n in enumerate(arrays, 1):
        pre += [f"\tld.param.u64 %rd{k}, [p_{n}];", f"\tcvta.to.global.u64 %rd{k}, %rd{k};",
                f"\tadd.s64 %rd{9 + k}, %rd{k}, %rd9;"]
    return f"{HEADER}.visible .entry k({params})\n{{\n" + "\n".join(pre) + "\n" + body.strip("\n") + \
        "\n\tret;\n}\n"


def line(ptx: str, marker: str) -> int:
    """The 1-based line of ``ptx`` that ends with ``// marker``."""
    hits = [i for i, text in enumerate(ptx.splitlines(), 1) if text.rstrip().endswith(f"// {marker}")]
    assert len(hits) == 1, (marker, hits)
    return hits[0]


def check(ptx: str, *, grid=1, block=64, args=None, sanitize="all", **kw):
    """The run's result and its checker report (``res.sanitizer``)."""
    n = int(np.prod(grid)) * int(np.prod(block))
    args = args if args is not None else [np.arange(n, dtype=np.int32), np.zeros(n, dtype=np.int32)]
    res = gpusim.run(ptx, grid=grid, block=block, args=args, sanitize=sanitize, **kw)
    return res, res.sanitizer


def found(report, tool: str | None = None, info: bool = False) -> set:
    """``{(kind, scope, lines)}`` of the report's findings (of one tool); info ones only when asked."""
    return {(f.kind, f.scope, f.lines) for f in report.findings
            if (tool is None or f.tool == tool) and (info or f.severity != "info")}
