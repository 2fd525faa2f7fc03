"""A kernel's parameter list, from its CUDA C signature or its PTX ``.entry``, and whether a launch file's
``[[args]]`` fit it."""
from __future__ import annotations

import re
from dataclasses import dataclass

from gpusim.errors import LaunchError, LaunchFileError
from gpusim.functional.emulator import select_kernel

#: CUDA C scalar type -> numpy dtype name (the launch file's dtype)
C_TYPES = {
    "float": "float32", "double": "float64", "__half": "float16", "half": "float16",
    "char": "int8", "signed char": "int8", "unsigned char": "uint8", "uint8_t": "uint8", "int8_t": "int8",
    "short": "int16", "unsigned short": "uint16", "int16_t": "int16", "uint16_t": "uint16",
    "int": "int32", "signed": "int32", "signed int": "int32", "unsigned": "uint32", "unsigned int": "uint32",
    "int32_t": "int32", "uint32_t": "uint32", "long": "int64", "long long": "int64",
    "unsigned long": "uint64", "unsigned long long": "uint64", "int64_t": "int64", "uint64_t": "uint64",
    "size_t": "uint64", "bool": "uint8",
}
#: PTX .param type -> numpy dtype name
PTX_TYPES = {"f16": "float16", "f32": "float32", "f64": "float64", "s8": "int8", "u8": "uint8", "b8": "uint8",
             "s16": "int16", "u16": "uint16", "b16": "uint16", "s32": "int32", "u32": "uint32", "b32": "uint32",
             "s64": "int64", "u64": "uint64", "b64": "uint64"}
_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "struct"}


@dataclass(frozen=True)
class KernelParam:
    """One parameter: its name, whether it is a pointer (an array argument), and the element or value dtype
    (None where the type is not a plain number: a struct, a template parameter)."""

    name: str
    pointer: bool
    dtype: str | None
    ctype: str = ""


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


_GLOBAL = re.compile(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+"
                     r"(?:__launch_bounds__\s*\([^)]*\)\s*)?(\w+)\s*\(([^)]*)\)", re.S)


def cuda_kernels(text: str) -> dict[str, list[KernelParam]]:
    """``{kernel name: [parameters]}`` of the ``__global__`` functions of CUDA C source (a reading of the
    signatures good for ordinary kernels; templates and macros are not expanded)."""
    out = {}
    for m in _GLOBAL.finditer(_strip_comments(text)):
        params = []
        for i, raw in enumerate(p.strip() for p in m.group(2).split(",")):
            if not raw or raw == "void":
                continue
            raw = raw.split("=")[0].strip()
            pointer = "*" in raw or "[" in raw
            words = re.findall(r"[A-Za-z_]\w*", re.sub(r"\[[^\]]*\]", "", raw))
            name = words[-1] if len(words) > 1 else f"arg{i}"
            base = " ".join(w for w in words[:-1] if w not in _QUALIFIERS) if len(words) > 1 else words[0]
            params.append(KernelParam(name, pointer, C_TYPES.get(base), base + ("*" if pointer else "")))
        out[m.group(1)] = params
    return out


def ptx_params(kernel) -> list[KernelParam]:
    """The parameters of a parsed PTX kernel (:class:`isa.program.Kernel`): 64-bit integers may be pointers."""
    out = []
    for i, p in enumerate(kernel.params):
        short = p.name[len(kernel.name) + 1:] if p.name.startswith(kernel.name + "_") else p.name
        out.append(KernelParam(short or f"param_{i}", p.is_pointer_sized, PTX_TYPES.get(p.type), f".{p.type}"))
    return out


def resolve_kernel(module, name: str | None):
    """The entry ``name`` names: exactly, or the C++-mangled entry of that function (``_Z4gemmPfS_i`` for
    ``gemm``); the only entry when ``name`` is None."""
    if name is None or name in module.kernels:
        return select_kernel(module, name)
    mangled = [k for k in module.kernels if k.startswith(f"_Z{len(name)}{name}")]
    if len(mangled) == 1:
        return module.kernels[mangled[0]]
    if len(mangled) > 1:
        raise LaunchError(f"{module.source_name}: '{name}' is overloaded ({', '.join(mangled)}); name the "
                          f"entry exactly")
    return select_kernel(module, name)   # raises, listing the entries


def check_args(spec, kernel, cuda_params: list[KernelParam] | None = None) -> None:
    """Raise :class:`LaunchFileError` naming both lists when the launch file's ``[[args]]`` do not fit the
    kernel's parameters: their number, array vs value, the value's width, and (given the CUDA signature)
    their names."""
    params = kernel.params
    if not cuda_params or len(cuda_params) != len(params):
        cuda_params = None
    names = [c.name for c in (cuda_params or ptx_params(kernel))]
    mine = ", ".join(e.name for e in spec.args) or "none"
    theirs = ", ".join(f"{n}: .{p.type}" for n, p in zip(names, params))
    head = f"{spec.label}: [[args]] ({mine}) do not match the parameters of kernel '{kernel.name}' ({theirs})"
    if len(spec.args) != len(params):
        raise LaunchFileError(f"{head}: {len(spec.args)} [[args]] for {len(params)} parameters")
    for i, (e, p) in enumerate(zip(spec.args, params)):
        c = cuda_params[i] if cuda_params else None
        pname = names[i]
        # a python fill without a shape may give a value (a frontier's length, a graph's edge count)
        value = e.is_scalar or (e.fill == "python" and e.shape is None and not p.is_pointer_sized)
        if c is not None and c.name != e.name:
            raise LaunchFileError(f"{head}: [[args]] #{i + 1} is {e.name!r}, parameter {i + 1} is {c.name!r}")
        if not value and not p.is_pointer_sized:
            raise LaunchFileError(f"{head}: [[args]] #{i + 1} {e.name!r} is an array, but parameter {pname!r} "
                                  f"is a value (.{p.type})")
        if value and c is not None and c.pointer:
            raise LaunchFileError(f"{head}: [[args]] #{i + 1} {e.name!r} is a value, but parameter {pname!r} "
                                  f"is a pointer ({c.ctype}): give it fill and shape")
        if value and e.dtype.itemsize != p.size_bytes:
            raise LaunchFileError(f"{head}: [[args]] #{i + 1} {e.name!r} is {e.dtype.name} "
                                  f"({e.dtype.itemsize} bytes), parameter {pname!r} is .{p.type} "
                                  f"({p.size_bytes} bytes)")
        if value and (e.dtype.kind == "f") != (p.type[0] == "f") and p.type[0] != "b":
            raise LaunchFileError(f"{head}: [[args]] #{i + 1} {e.name!r} is {e.dtype.name}, parameter "
                                  f"{pname!r} is .{p.type}")
