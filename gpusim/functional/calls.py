"""Device-function calls at run time: the per-thread call stack, parameter frames, and the builtins.

A linked program (:mod:`isa.link`) gives every function its return point, its registers, and its regions in
the thread's local memory and *parameter frame* (``fr.pframe``, ``[lanes x frame bytes]``: the ``.param``
variables of call sequences and of functions).  At a ``call`` the caller's argument ``.param``\\ s are copied
into the callee's formals and the return address is pushed on the calling lanes' stacks
(:class:`CallStack`); at the callee's return point its return ``.param``\\ s are copied into the caller's
and the lanes go back.  A recursive function's registers, local variables and frame are saved when it is
entered and restored when it returns (one record per call, shared by the lanes that made it).

Builtins (``.extern`` functions the CUDA runtime provides): ``vprintf`` (device ``printf``: the format is
applied in the emulator and printed, lanes in order) and ``__assertfail`` (a failed ``assert``: a
:class:`~gpusim.errors.KernelError` naming the thread, the assertion and its CUDA line).
"""
from __future__ import annotations

import re
import sys

import numpy as np

from gpusim.errors import KernelError
from gpusim.functional.memory import GENERIC_WINDOWS, GLOBAL_BASE, WINDOW_SIZE
from isa.units import MemSpace

MAX_CALL_DEPTH = 1024     # nested calls per thread; beyond it a CallDepthError (runaway recursion)


class CallDepthError(KernelError):
    """A thread nested more than :data:`MAX_CALL_DEPTH` calls (runaway recursion)."""


class DeviceTrapError(KernelError):
    """``trap`` or a failed device-side ``assert``: the kernel aborts (CUDA's cudaErrorAssert / LaunchFailure)."""


class CallStack:
    """Return addresses (per lane) and the saved state of recursive activations."""

    def __init__(self, n_lanes: int, max_depth: int = MAX_CALL_DEPTH):
        self.depth = np.zeros(n_lanes, dtype=np.int64)
        self.ret_pc = np.zeros((n_lanes, 4), dtype=np.int32)
        self.max_depth = max_depth
        self.top_record = np.full(n_lanes, -1, dtype=np.int64)
        self.records: dict[int, list] = {}
        self._next = 0

    def push(self, lanes: np.ndarray, ret_pc: int) -> int:
        """Push ``ret_pc`` for ``lanes``; returns the deepest depth reached (for the depth check)."""
        d = self.depth[lanes]
        top = int(d.max()) if d.size else 0
        if top >= self.ret_pc.shape[1]:
            grow = np.zeros((self.ret_pc.shape[0], self.ret_pc.shape[1] * 2), dtype=np.int32)
            grow[:, : self.ret_pc.shape[1]] = self.ret_pc
            self.ret_pc = grow
        self.ret_pc[lanes, d] = ret_pc
        self.depth[lanes] = d + 1
        return top + 1

    def pop(self, lanes: np.ndarray) -> np.ndarray:
        d = self.depth[lanes] - 1
        self.depth[lanes] = d
        return self.ret_pc[lanes, d]

    def save(self, fr, lanes: np.ndarray, fn) -> None:
        """Keep ``fn``'s registers, local variables and parameter frame of ``lanes`` (entering it)."""
        lo, hi = fn.local_range
        flo, fhi = fn.frame_range
        rec = [lanes.copy(), [fr.regs[r][lanes].copy() for r in fn.registers],
               fr.local2d[lanes, lo:hi].copy() if hi > lo else None,
               fr.pframe[lanes, flo:fhi].copy() if fhi > flo else None,
               self.top_record[lanes].copy(), lanes.size]
        rid = self._next
        self._next += 1
        self.records[rid] = rec
        self.top_record[lanes] = rid

    def restore(self, fr, lanes: np.ndarray, fn) -> None:
        """Give ``lanes`` (returning from ``fn``) the state saved when they entered it."""
        lo, hi = fn.local_range
        flo, fhi = fn.frame_range
        ids = self.top_record[lanes]
        for rid in np.unique(ids):
            mine = lanes[ids == rid]
            rec = self.records[int(rid)]
            pos = np.searchsorted(rec[0], mine)
            for r, vals in zip(fn.registers, rec[1]):
                fr.regs[r][mine] = vals[pos]
            if rec[2] is not None:
                fr.local2d[mine, lo:hi] = rec[2][pos]
            if rec[3] is not None:
                fr.pframe[mine, flo:fhi] = rec[3][pos]
            self.top_record[mine] = rec[4][pos]
            rec[5] -= mine.size
            if rec[5] <= 0:
                del self.records[int(rid)]


def copy_frame(fr, lanes, src: tuple[int, int], dst: tuple[int, int]) -> None:
    """Copy ``.param`` bytes within the parameter frame (argument -> formal, return -> result)."""
    (so, sn), (do, dn) = src, dst
    n = min(sn, dn)
    if n:
        fr.pframe[lanes, do:do + n] = fr.pframe[lanes, so:so + n]


# ---- reading device memory from a builtin (printf's format and arguments, assert's strings) -------------
def read_bytes(fr, lane: int, addr: int, n: int) -> bytes:
    """``n`` bytes at generic address ``addr`` as lane ``lane`` sees them."""
    for space, base in GENERIC_WINDOWS.items():
        if base <= addr < base + WINDOW_SIZE:
            off = addr - base
            if space is MemSpace.LOCAL:
                return bytes(fr.local2d[lane, off:off + n])
            if space is MemSpace.SHARED:
                b = (lane // fr.lanes_per_block) * fr.shared_size + off
                return bytes(fr.shared[b:b + n])
            if space is MemSpace.CONST:
                return bytes(fr.const[off:off + n])
            return bytes(fr.params[off:off + n])
    off = addr - GLOBAL_BASE
    if off < 0 or off + n > fr.mem.buf.size:
        raise KernelError(f"a builtin read {n} bytes at {addr:#x}, outside device memory")
    return bytes(fr.mem.buf[off:off + n])


def read_string(fr, lane: int, addr: int, limit: int = 4096) -> str:
    out = bytearray()
    while len(out) < limit:
        chunk = read_bytes(fr, lane, addr + len(out), 1)
        if chunk == b"\0":
            break
        out += chunk
    return out.decode("utf-8", "replace")


_CONV = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|z|j|t|L)?([diouxXcsfFeEgGaAp%])")


def format_printf(fr, lane: int, fmt: str, args_addr: int) -> str:
    """C printf of ``fmt`` with the argument buffer ``vprintf`` receives (each argument aligned to its size;
    floats are passed as doubles)."""
    out = []
    pos = 0
    off = 0

    def take(size: int, kind: str):
        nonlocal off
        off = (off + size - 1) // size * size
        raw = read_bytes(fr, lane, args_addr + off, size)
        off += size
        return np.frombuffer(raw, dtype={("i", 4): "<i4", ("i", 8): "<i8", ("u", 4): "<u4", ("u", 8): "<u8",
                                         ("f", 8): "<f8"}[(kind, size)])[0].item()
    for m in _CONV.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags, width, prec, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = str(take(4, "i"))
        if prec == "*":
            prec = str(take(4, "i"))
        spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
        wide = length in ("l", "ll", "z", "j", "t")
        if conv in "di":
            out.append((spec + "d") % take(8 if wide else 4, "i"))
        elif conv in "ouxX":
            out.append((spec + conv) % take(8 if wide else 4, "u"))
        elif conv == "c":
            out.append((spec + "c") % chr(take(4, "i") & 0xFF))
        elif conv in "fFeEgGaA":
            v = take(8, "f")
            out.append(float.hex(v) if conv in "aA" else (spec + conv) % v)
        elif conv == "s":
            out.append((spec + "s") % read_string(fr, lane, take(8, "u")))
        elif conv == "p":
            out.append(f"0x{take(8, 'u'):x}")
    out.append(fmt[pos:])
    return "".join(out)


def builtin_vprintf(fr, lanes: np.ndarray, args: list[np.ndarray]) -> np.ndarray:
    """``vprintf(format, args)`` for each lane in order; returns the characters printed per lane."""
    fmt_ptr, arg_ptr = args
    n = np.zeros(lanes.size, dtype=np.int32)
    for k, lane in enumerate(lanes):
        text = format_printf(fr, int(lane), read_string(fr, int(lane), int(fmt_ptr[k])), int(arg_ptr[k]))
        sys.stdout.write(text)
        n[k] = len(text)
    sys.stdout.flush()
    return n
