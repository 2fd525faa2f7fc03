"""A launch as the host sees it: checking the launch configuration, placing arguments and module variables in
device memory, and reading the results back (``cudaMemcpy`` both ways, as one call).

:class:`DeviceImage` is the device side of one launch: the global heap (argument buffers and module
``.global`` variables), the constant bank and the parameter buffer; after the kernel ran,
:meth:`DeviceImage.outputs` gives the arguments and symbols back in the caller's dtypes and shapes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpusim.errors import KernelLookupError, LaunchError
from gpusim.functional.memory import DeviceMemory
from gpusim.functional.operands import DT
from gpusim.functional.trace import KernelTrace
from isa.opcodes import TYPE_BITS
from isa.program import Kernel, Module


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


class DeviceImage:
    """Device memory of one launch: heap, constant bank, parameter buffer (see the module docstring)."""

    def __init__(self, module: Module, k: Kernel, args: list, symbols: dict | None):
        self.module = module
        self.mem = mem = DeviceMemory()
        # module .global variables and their initial values
        self.global_addr: dict[str, int] = {}
        self._global_allocs = {}
        for n, v in module.globals.items():
            if v.space == "global":
                a = mem.allocate(n, v.size_bytes, v.init)
                self.global_addr[n] = a.address
                self._global_allocs[n] = a
        self.const = const = np.zeros(max(16, (module.const_bytes + 15) // 16 * 16), dtype=np.uint8)
        for n, v in module.globals.items():
            if v.space == "const" and v.init is not None:
                const[v.offset: v.offset + len(v.init)] = np.frombuffer(v.init, dtype=np.uint8)
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

    def outputs(self) -> tuple[list, dict[str, np.ndarray]]:
        """The arguments (arrays as new arrays) and module variables after the launch."""
        out_args = []
        for a, al in zip(self.args, self._arg_allocs):
            out_args.append(a if al is None else self.mem.read(al).view(a.dtype).reshape(a.shape).copy())
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


def pack_scalar(a, p, i) -> bytes:
    """A scalar argument as the bytes of parameter ``p`` (the ``i``-th), checked against its type."""
    t = p.type
    if isinstance(a, (bool, np.bool_)):
        a = int(a)
    if isinstance(a, (str, bytes)):
        raise LaunchError(f"argument {i} ({p.name}: .{t}) must be a number or numpy scalar, not the string {a!r}")
    if isinstance(a, np.ndarray) or not np.isscalar(a):
        raise LaunchError(f"argument {i} ({p.name}: .{t}) must be a number or numpy scalar, not {type(a).__name__}")
    dt = DT.get(t)
    if dt is None or p.size_bytes != np.dtype(dt).itemsize:
        # byte-array parameters (structs by value): accept raw bytes of the right size
        raise LaunchError(f"argument {i} ({p.name}): parameters of type .{t}[{p.size_bytes}] are not supported")
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
