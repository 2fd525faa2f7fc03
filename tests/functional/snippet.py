"""PyMTL-style instruction-test helpers: wrap a few lines of PTX in a kernel and run it.

``run_snippet(body, inputs={"a": array}, outputs={"d": "f32"})`` builds a kernel with one ``.u64`` parameter
per input and output; each thread (linear id ``i`` over the whole launch) loads ``a[i]`` into register
``%a`` (declared with the input's PTX type), runs ``body``, then stores register ``%d`` into ``d[i]``.  A
``.pred`` output is stored as a u32 0/1.  Scalars given as inputs are broadcast to every thread.  The body
may declare its own registers and labels.  The result is a dict of numpy arrays with ``.result`` (the
``gpusim.run`` result, for ``stats``).

Expected values in the tests are derived independently (numpy in float64, ``struct``, ``fractions``, hand
computation): never by calling the emulator's helpers.
"""
from __future__ import annotations

import struct
from fractions import Fraction

import numpy as np

import gpusim

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"
NP_OF = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "s32": np.int32, "u32": np.uint32,
         "b32": np.uint32, "s64": np.int64, "u64": np.uint64, "b64": np.uint64, "s16": np.int16,
         "u16": np.uint16, "b16": np.uint16, "s8": np.int8, "u8": np.uint8, "pred": np.uint32}
PTX_OF = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.float16): "f16",
          np.dtype(np.int32): "s32", np.dtype(np.uint32): "u32", np.dtype(np.int64): "s64",
          np.dtype(np.uint64): "u64", np.dtype(np.int16): "s16", np.dtype(np.uint16): "u16"}
# how a register of a PTX type is loaded and stored (f16 lives in a .b16 register)
_MEM_TYPE = {"f16": "b16"}
_REG_TYPE = {"f16": "b16"}


class SnippetOut(dict):
    result = None


def _as_ptx_type(t):
    return t if isinstance(t, str) else PTX_OF[np.dtype(t)]


def _element_pointer(name: str, t: str, mem_type: str) -> list[str]:
    """PTX that sets %_p to the address of this thread's element (%_i) of the array parameter p_<name>."""
    size = max(1, int(mem_type[1:]) // 8) if t != "pred" else 4
    return [f"\tld.param.u64 %_p, [p_{name}];", f"\tmul.wide.u32 %_o, %_i, {size};", "\tadd.s64 %_p, %_p, %_o;"]


def snippet_kernel(body: str, in_types: dict, out_types: dict, name: str = "snippet") -> str:
    params = [f".param .u64 p_{n}" for n in list(in_types) + list(out_types)]
    lines = [HEADER, f".visible .entry {name}(" + ", ".join(params) + ")", "{",
             "\t.reg .b32 %_x, %_y, %_z, %_nx, %_ny, %_nz, %_i, %_b, %_t, %_v, %_g, %_c;",
             "\t.reg .b64 %_o, %_p;"]
    for n, t in list(in_types.items()) + list(out_types.items()):
        lines.append(f"\t.reg .{_REG_TYPE.get(t, t)} %{n};")
    lines += [
        "\tmov.u32 %_x, %tid.x;", "\tmov.u32 %_y, %tid.y;", "\tmov.u32 %_z, %tid.z;",
        "\tmov.u32 %_nx, %ntid.x;", "\tmov.u32 %_ny, %ntid.y;", "\tmov.u32 %_nz, %ntid.z;",
        "\tmad.lo.u32 %_i, %_z, %_ny, %_y;", "\tmad.lo.u32 %_i, %_i, %_nx, %_x;",
        "\tmul.lo.u32 %_t, %_nx, %_ny;", "\tmul.lo.u32 %_t, %_t, %_nz;",
        "\tmov.u32 %_b, %ctaid.z;", "\tmov.u32 %_g, %nctaid.y;", "\tmov.u32 %_c, %ctaid.y;",
        "\tmad.lo.u32 %_b, %_b, %_g, %_c;", "\tmov.u32 %_g, %nctaid.x;", "\tmov.u32 %_c, %ctaid.x;",
        "\tmad.lo.u32 %_b, %_b, %_g, %_c;", "\tmad.lo.u32 %_i, %_b, %_t, %_i;",
    ]
    for n, t in in_types.items():
        mt = _MEM_TYPE.get(t, t)
        lines += _element_pointer(n, t, mt)
        if t == "pred":
            lines += ["\tld.global.u32 %_v, [%_p];", f"\tsetp.ne.u32 %{n}, %_v, 0;"]
        else:
            lines.append(f"\tld.global.{mt} %{n}, [%_p];")
    lines.append(body)
    for n, t in out_types.items():
        mt = _MEM_TYPE.get(t, t)
        lines += _element_pointer(n, t, mt)
        if t == "pred":
            lines += [f"\tselp.u32 %_v, 1, 0, %{n};", "\tst.global.u32 [%_p], %_v;"]
        else:
            lines.append(f"\tst.global.{mt} [%_p], %{n};")
    lines += ["\tret;", "}"]
    return "\n".join(lines) + "\n"


def _to_array(v, dt) -> np.ndarray:
    """Values (numpy, or Python ints of any sign up to 64 bits) as an array of dt, wrapped like a register."""
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, int) for x in v):
        bits = np.dtype(dt).itemsize * 8
        if np.dtype(dt).kind in "iu":
            return np.array([x % 2 ** bits for x in v], dtype=np.uint64).astype(dt)
    return np.asarray(v).astype(dt)


def run_snippet(body: str, inputs: dict | None = None, outputs: dict | None = None, *, threads: int = 32,
                block=None, grid=1, **kw) -> SnippetOut:
    """Run `body` once per thread; see the module docstring. ``threads``: threads per block (1D)."""
    inputs = dict(inputs or {})
    outputs = dict(outputs or {})
    block = block if block is not None else threads
    bdims = (block,) if isinstance(block, int) else tuple(block)
    n = int(np.prod(bdims)) * int(np.prod(grid))
    in_types, args = {}, []
    for name, v in inputs.items():
        if isinstance(v, tuple):           # (values, "ptx type") for types numpy cannot name (b32, pred ...)
            v, t = v
        else:
            t = _as_ptx_type(np.asarray(v).dtype)
        arr = _to_array(v, NP_OF[t])
        if arr.ndim == 0:
            arr = np.full(n, arr, dtype=arr.dtype)
        assert arr.size == n, f"input {name}: {arr.size} values for {n} threads"
        in_types[name] = t
        args.append(arr.copy())
    out_types = {k: _as_ptx_type(t) for k, t in outputs.items()}
    for t in out_types.values():
        args.append(np.zeros(n, dtype=NP_OF[t]))
    ptx = snippet_kernel(body, in_types, out_types)
    res = gpusim.run(ptx, grid=grid, block=block, args=args, **kw)
    out = SnippetOut()
    for k, name in enumerate(out_types):
        out[name] = res.args[len(in_types) + k]
    out.result = res
    return out


def kernel(body: str, params: str = "", name: str = "k") -> str:
    """A whole kernel around `body` (for tests that manage their own memory)."""
    return f"{HEADER}.visible .entry {name}({params})\n{{\n{body}\n}}\n"


# ---- independent float helpers --------------------------------------------------------------------------
def f32(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float32)


def bits32(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def bits64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).view(np.uint64)


def from_bits32(u) -> np.ndarray:
    return np.asarray(u, dtype=np.uint32).view(np.float32)


def f32_of_hex(h: int) -> float:
    return struct.unpack("<f", struct.pack("<I", h))[0]


def round_fraction_to_f32(q: Fraction, mode: str = "rn") -> int:
    """Bits of the float32 nearest to the exact rational `q` in rounding `mode` (rn/rz/rm/rp); finite range
    only (no overflow handling needed by the tests)."""
    if q == 0:
        return 0
    sign = 1 if q < 0 else 0
    a = -q if sign else q
    # exponent e with 2^e <= a < 2^(e+1)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, -126)                       # subnormals share the minimum exponent
    scale = Fraction(2) ** (23 - e)         # 24 significant bits
    m = a * scale
    fl = m.numerator // m.denominator
    rem = m - fl
    if mode == "rn":
        up = rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl & 1)
    elif mode == "rz":
        up = False
    elif mode == "rp":
        up = rem > 0 and not sign
    elif mode == "rm":
        up = rem > 0 and bool(sign)
    else:
        raise ValueError(mode)
    fl += int(up)
    if fl == 1 << 24:
        fl, e = 1 << 23, e + 1
    if fl < 1 << 23:                        # subnormal
        return sign << 31 | fl
    return sign << 31 | (e + 127) << 23 | (fl - (1 << 23))
