"""A launch as the host sees it: checking the launch configuration, placing arguments and module variables in
device memory, and reading the results back (``cudaMemcpy`` both ways, as one call).

:class:`DeviceImage` is the device side of one launch: the global heap (argument buffers and module
``.global`` variables), the constant bank and the parameter buffer; after the kernel ran,
:meth:`DeviceImage.outputs` gives the arguments and symbols back in the caller's dtypes and shapes.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from gpusim.errors import KernelLookupError, LaunchError
from gpusim.functional.memory import DeviceMemory
from gpusim.functional.operands import DT
from gpusim.functional.trace import KernelTrace
from isa.opcodes import TYPE_BITS
from isa.program import Kernel, Mem, Module, Reg, SymbolAddr


class DtypeMismatchWarning(UserWarning):
    """An array argument's dtype does not fit how the kernel reads it (a float64 array read as .f32)."""


_ADDRESS_OPS = ("mov", "cvta", "add", "sub", "mad", "selp", "cvt")
_ACCESS_OPS = ("ld", "st", "atom", "red", "ldu")


def pointer_access_types(prog) -> dict[str, dict[str, object]]:
    """For each pointer parameter of the program's kernel: the element types (``f32``, ``s32`` ...) its loads,
    stores and atomics use, with the first instruction of each.  A flow-insensitive propagation of "holds an
    address derived from parameter p" through 64-bit moves and address arithmetic."""
    cached = getattr(prog, "_access_types", None)
    if cached is not None:
        return cached
    params = {p.name for p in prog.kernel.params if p.is_pointer_sized}
    taint: dict[int, set[str]] = {}
    changed = True
    instrs = prog.instructions
    while changed:
        changed = False
        for ins in instrs:
            if not ins.operands or not isinstance(ins.operands[0], Reg) or ins.operands[0].bits != 64:
                continue
            d = ins.operands[0].id
            new: set[str] = set()
            if ins.base == "ld" and ins.space == "param" and isinstance(ins.operands[1], Mem) and \
                    isinstance(ins.operands[1].base, SymbolAddr) and ins.operands[1].base.name in params:
                new = {ins.operands[1].base.name}
            elif ins.base in _ADDRESS_OPS:
                for o in ins.operands[1:]:
                    if isinstance(o, Reg) and o.id in taint:
                        new |= taint[o.id]
            if new - taint.get(d, set()):
                taint.setdefault(d, set()).update(new)
                changed = True
    out: dict[str, dict[str, object]] = {}
    for ins in instrs:
        if ins.base not in _ACCESS_OPS or ins.space in ("param", "const", "shared", "local") or ins.frame_param:
            continue
        m = ins.operands[0] if ins.base in ("st", "red") else ins.operands[1]
        # only an address that can come from one parameter says how that parameter's array is read
        if isinstance(m, Mem) and isinstance(m.base, Reg) and len(taint.get(m.base.id, ())) == 1 and ins.type:
            (p,) = taint[m.base.id]
            out.setdefault(p, {}).setdefault(ins.type, ins)
    prog._access_types = out
    return out


@dataclass
class EmulationStats:
    """What the emulator observed (no timing): instruction counts and control-flow behaviour."""

    warp_instructions: int = 0
    thread_instructions: int = 0
    steps: int = 0
    divergent_branches: int = 0          # warp-level branches whose lanes disagreed
    branches: int = 0                    # warp-level branch instructions executed
    barriers: int = 0                    # block-level barrier releases
    pc_warp_counts: np.ndarray | None = None   # warp executions per PC: the "passes" of each instruction
    wall_seconds: float = 0.0

    @property
    def warp_instructions_per_second(self) -> float:
        return self.warp_instructions / self.wall_seconds if self.wall_seconds else 0.0


@dataclass
class LaunchOutput:
    args: list
    symbols: dict[str, np.ndarray]
    stats: EmulationStats
    trace: KernelTrace | None = None


def select_kernel(module: Module, name: str | None) -> Kernel:
    """The kernel a launch names (or the module's only one): an unknown name is a :class:`LaunchError`."""
    try:
        return module.kernel(name)
    except KernelLookupError as e:
        raise LaunchError(str(e)) from None


def dim3(x, what: str) -> tuple[int, int, int]:
    if isinstance(x, (int, np.integer)):
        t = (int(x), 1, 1)
    else:
        try:
            t = tuple(int(v) for v in x)
        except TypeError:
            raise LaunchError(f"{what} must be an int or a tuple of up to 3 ints, not {x!r}") from None
        if not 1 <= len(t) <= 3:
            raise LaunchError(f"{what} must have 1 to 3 dimensions, not {len(t)}")
        t = t + (1,) * (3 - len(t))
    if any(v < 1 for v in t):
        raise LaunchError(f"{what} dimensions must be >= 1, got {t}")
    return t  # type: ignore[return-value]


def check_launch(k: Kernel, grid3, block3, args, shared_mem: int) -> None:
    """The checks ``cudaLaunchKernel`` makes, with messages that say which limit and by how much."""
    tpb = block3[0] * block3[1] * block3[2]
    if tpb > 1024:
        raise LaunchError(f"{tpb} threads per block: the limit is 1024 (block {block3})")
    if block3[2] > 64:
        raise LaunchError(f"block z dimension {block3[2]} exceeds 64")
    if grid3[1] > 65535 or grid3[2] > 65535 or grid3[0] > 2 ** 31 - 1:
        raise LaunchError(f"grid {grid3} exceeds the limits (2^31-1, 65535, 65535)")
    if k.reqntid is not None and tuple(k.reqntid) + (1,) * (3 - len(k.reqntid)) != block3:
        raise LaunchError(f"kernel '{k.name}' requires block {k.reqntid} (.reqntid), launched with {block3}")
    if k.maxntid is not None:
        mx = 1
        for v in k.maxntid:
            mx *= v
        if tpb > mx:
            raise LaunchError(f"kernel '{k.name}' allows at most {mx} threads per block (.maxntid), "
                              f"launched with {tpb}")
    if shared_mem < 0:
        raise LaunchError("shared_mem must be >= 0 bytes")
    if not isinstance(args, (list, tuple)):
        raise LaunchError("args must be a list of numpy arrays and scalars")
    if len(args) != len(k.params):
        raise LaunchError(f"kernel '{k.name}' takes {len(k.params)} arguments "
                          f"({', '.join(p.name + ':' + p.type for p in k.params)}), got {len(args)}")


class ModuleImage:
    """A module's variables in device memory: its ``.global`` variables as allocations of ``mem`` (with
    their initial values) and its constant bank.

    One launch of :func:`gpusim.run` builds one with a fresh heap; a :mod:`gpusim.cupy` session builds one
    per loaded module in the session's heap, so the variables keep their addresses and values across
    launches, as a loaded CUDA module's do.  ``const_in_heap``: the constant bank is an allocation of the
    heap too (it has a device address, which ``cudaGetSymbolAddress``/``RawModule.get_global`` give and
    host copies write through); otherwise it is a separate buffer, which keeps a single launch's heap
    layout to its arguments and ``.global`` variables.
    """

    def __init__(self, module: Module, mem: DeviceMemory, *, const_in_heap: bool = False):
        self.module = module
        self.mem = mem
        self.global_addr: dict[str, int] = {}
        self.global_allocs = {}
        for n, v in module.globals.items():
            if v.space == "global":
                a = mem.allocate(n, v.size_bytes, v.init)
                self.global_addr[n] = a.address
                self.global_allocs[n] = a
        const_bytes = max(16, (module.const_bytes + 15) // 16 * 16)
        init = np.zeros(const_bytes, dtype=np.uint8)
        for n, v in module.globals.items():
            if v.space == "const" and v.init is not None:
                init[v.offset: v.offset + len(v.init)] = np.frombuffer(v.init, dtype=np.uint8)
        self.const_alloc = None
        self._const = init
        if const_in_heap:
            self.const_alloc = mem.allocate(f"{module.source_name}: constant bank", const_bytes, init)

    @property
    def const(self) -> np.ndarray:
        """The constant bank's bytes (a view: writes go to the device)."""
        if self.const_alloc is None:
            return self._const
        return self.mem.view(self.const_alloc.address, self.const_alloc.size_bytes)

    def symbol_address(self, name: str) -> tuple[int, int]:
        """(device address, size in bytes) of module variable ``name`` (a ``.const`` one only when the
        constant bank is in the heap)."""
        v = self.module.globals.get(name)
        if v is None:
            raise LaunchError(f"no module variable '{name}' (__constant__ or __device__) in "
                              f"{self.module.source_name}; it has: {', '.join(self.module.globals) or 'none'}")
        if v.space == "global":
            return self.global_addr[name], v.size_bytes
        if v.space == "const" and self.const_alloc is not None:
            return self.const_alloc.address + v.offset, v.size_bytes
        raise LaunchError(f"module variable '{name}' is in .{v.space} space, which has no device address here")

    def free(self) -> None:
        """Unmap the variables (the module is unloaded)."""
        for a in list(self.global_allocs.values()) + ([self.const_alloc] if self.const_alloc else []):
            self.mem.free(a)
        self.global_allocs, self.const_alloc = {}, None


class DeviceImage:
    """Device memory of one launch: heap, constant bank, parameter buffer (see the module docstring).

    ``image``: the module's variables already in a heap that outlives the launch (a :mod:`gpusim.cupy`
    session); then pointer arguments are device addresses (integers), the module variables are read back
    through that heap rather than returned, and array arguments become temporary allocations that the
    launch frees once it has copied them back."""

    def __init__(self, module: Module, k: Kernel, args: list, symbols: dict | None,
                 image: ModuleImage | None = None):
        self.module = module
        self.persistent = image is not None
        if image is None:
            image = ModuleImage(module, DeviceMemory())
        self.image = image
        self.mem = mem = image.mem
        self.global_addr = image.global_addr
        self._global_allocs = image.global_allocs
        const = image.const
        self.symbols = symbols = dict(symbols or {})
        for n, arr in symbols.items():
            v = module.globals.get(n)
            if v is None:
                raise LaunchError(f"no module variable '{n}' (__constant__ or __device__) in "
                                  f"{module.source_name}; it has: {', '.join(module.globals) or 'none'}")
            raw = np.frombuffer(np.ascontiguousarray(arr).tobytes(), dtype=np.uint8)
            if raw.size > v.size_bytes:
                raise LaunchError(f"symbol '{n}' is {v.size_bytes} bytes; {raw.size} bytes given")
            if v.space == "const":
                const[v.offset: v.offset + raw.size] = raw
            else:
                mem.write(self._global_allocs[n], raw)
        # kernel arguments: arrays become device buffers
        self.params = params = np.zeros(max(16, (k.param_bytes + 15) // 16 * 16), dtype=np.uint8)
        self.args = args
        self._arg_allocs: list = []
        for i, (p, a) in enumerate(zip(k.params, args)):
            if isinstance(a, np.ndarray):
                if not p.is_pointer_sized:
                    raise LaunchError(f"argument {i} ({p.name}: .{p.type}) is a value, but an array was given")
                al = mem.allocate(f"arg{i} ({p.name})", a.nbytes, a)
                self._arg_allocs.append(al)
                raw = np.array(al.address, dtype=np.uint64).tobytes()
            else:
                self._arg_allocs.append(None)
                raw = pack_scalar(a, p, i)
            params[p.offset: p.offset + len(raw)] = np.frombuffer(raw, dtype=np.uint8)

    @property
    def const(self) -> np.ndarray:
        return self.image.const

    def warn_dtypes(self, prog) -> None:
        """Warn (:class:`DtypeMismatchWarning`) when an array argument is read with another element type
        than its dtype: the kernel reads the array's bytes as that type (garbage, as on the GPU)."""
        seen = pointer_access_types(prog)
        for i, (p, a) in enumerate(zip(prog.kernel.params, self.args)):
            if not isinstance(a, np.ndarray) or p.name not in seen or a.dtype.kind not in "fiub":
                continue
            types = {t: ins for t, ins in seen[p.name].items() if t not in ("b8", "u8", "s8")}
            if len(types) != 1:
                continue
            (t, ins), = types.items()
            bits = TYPE_BITS[t]
            kind_ok = t[0] not in "fsu" or (t[0] == "f") == (a.dtype.kind == "f")
            if a.dtype.itemsize * 8 == bits and kind_ok:
                continue
            loc = self.module.location(ins)
            warnings.warn(DtypeMismatchWarning(
                f"argument {i} ({p.name}) is a {a.dtype} array, but kernel '{prog.kernel.name}' accesses it as "
                f".{t} ({ins.opcode} at {loc.brief()}): its bytes are read as .{t} values (garbage, as on the "
                f"GPU); pass a {np.dtype(_NP_OF_PTX.get(t, a.dtype))} array"), stacklevel=4)

    def arg_allocation(self, i: int):
        """The device buffer of argument ``i`` (an :class:`~gpusim.functional.memory.Allocation`), None for a
        value argument."""
        return self._arg_allocs[i]

    def outputs(self) -> tuple[list, dict[str, np.ndarray]]:
        """The arguments (arrays as new arrays) and module variables after the launch (no variables when the
        heap outlives the launch: they stay in it)."""
        out_args = []
        for a, al in zip(self.args, self._arg_allocs):
            out_args.append(a if al is None else self.mem.read(al).view(a.dtype).reshape(a.shape).copy())
        if self.persistent:
            for al in self._arg_allocs:
                if al is not None:
                    self.mem.free(al)
            return out_args, {}
        out_syms = {}
        for n, v in self.module.globals.items():
            if v.space == "const":
                out_syms[n] = self.const[v.offset: v.offset + v.size_bytes].copy()
            else:
                out_syms[n] = self.mem.read(self._global_allocs[n])
        for n, arr in self.symbols.items():   # give them back in the caller's dtype and shape
            a = np.asarray(arr)
            out_syms[n] = out_syms[n][: a.nbytes].view(a.dtype).reshape(a.shape).copy()
        return out_args, out_syms


_NP_OF_PTX = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "s32": np.int32, "u32": np.uint32,
              "s64": np.int64, "u64": np.uint64, "s16": np.int16, "u16": np.uint16, "b32": np.uint32,
              "b64": np.uint64, "b16": np.uint16}


def pack_scalar(a, p, i) -> bytes:
    """A scalar argument as the bytes of parameter ``p`` (the ``i``-th), checked against its type."""
    t = p.type
    if isinstance(a, (bool, np.bool_)):
        a = int(a)
    if isinstance(a, (bytes, bytearray, np.void)) and t == "b8":
        pass
    elif isinstance(a, (str, bytes)):
        raise LaunchError(f"argument {i} ({p.name}: .{t}) must be a number or numpy scalar, not the string {a!r}")
    if t != "b8" and (isinstance(a, np.ndarray) or not np.isscalar(a)):
        raise LaunchError(f"argument {i} ({p.name}: .{t}) must be a number or numpy scalar, not {type(a).__name__}")
    dt = DT.get(t)
    if dt is None or p.size_bytes != np.dtype(dt).itemsize:
        # byte-array parameters (structs by value): raw bytes or a numpy structured scalar of the right size
        raw = a.tobytes() if isinstance(a, np.void) else bytes(a) if isinstance(a, (bytes, bytearray)) else None
        if raw is None or len(raw) != p.size_bytes:
            raise LaunchError(f"argument {i} ({p.name}) is a {p.size_bytes}-byte .param (a struct by value): "
                              f"pass {p.size_bytes} bytes or a numpy structured scalar of that size")
        return raw
    if isinstance(a, np.generic):
        if np.dtype(a.dtype).itemsize != np.dtype(dt).itemsize:
            raise LaunchError(f"argument {i} ({p.name}) is .{t} ({np.dtype(dt).itemsize} bytes); "
                              f"a {a.dtype} was given")
        return a.tobytes()
    if t[0] == "f":
        return np.array(a, dtype=dt).tobytes()
    if isinstance(a, float):
        raise LaunchError(f"argument {i} ({p.name}) is an integer .{t}; a float {a} was given")
    bits = TYPE_BITS[t]
    lo = -(1 << (bits - 1)) if t[0] == "s" else 0
    hi = (1 << bits) - 1 if t[0] != "s" else (1 << (bits - 1)) - 1
    if not lo <= int(a) <= hi and not (t[0] in "bu" and -(1 << (bits - 1)) <= int(a) < 0):
        raise LaunchError(f"argument {i} ({p.name}) = {a} does not fit in .{t}")
    return (int(a) & ((1 << bits) - 1)).to_bytes(bits // 8, "little")
