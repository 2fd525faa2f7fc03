"""The kernel trace: what the functional emulator records for the timing model.

A :class:`KernelTrace` is self-contained (it does not need the PTX source to be replayed) and is stored as
flat numpy arrays, one row per *dynamic warp instruction*, grouped by warp (CSR layout).  It holds the warps
of a whole launch, or of a *chunk* of it (whole blocks, warps ``first_warp ..``: what the emulator hands the
timing model batch by batch, :mod:`gpusim.functional.stream`); :meth:`KernelTrace.join` makes one of
consecutive chunks.

====================  ==========  =====================================================================
field                 dtype       meaning
====================  ==========  =====================================================================
``warp_block``        int32[W]    linear block index (x fastest) of each warp
``warp_in_block``     int32[W]    warp index inside its block
``warp_start``        int64[W+1]  rows ``warp_start[w]:warp_start[w+1]`` are warp ``w``'s instructions, in
                                  program (issue) order
``pc``                int32[N]    static instruction index (into ``instructions``)
``active_mask``       uint32[N]   SIMT active mask (bit i = lane i) when the instruction issued
``exec_mask``         uint32[N]   lanes that executed it: active and guard predicate true
``mem_slot``          int32[N]    row into ``addresses`` for memory instructions, else -1
``addresses``         int64[M,32] per-lane byte address in its state space (-1: lane did not access)
``mem_space``         uint8[M]    resolved state space of the access (``isa.units.MemSpace`` code)
====================  ==========  =====================================================================

``instructions`` is a list of :class:`StaticInstr`: what the timing model needs to know of each PC (unit,
latency class, registers read and written, memory space and width, barrier/exit/branch flags, PTX and CUDA
source lines).  Branch outcomes are implicit: the next row of the same warp has the taken PC.

Addresses are *state-space* addresses, never physical ones: a global address; the byte offset in the block's
shared memory; the byte offset in the thread's own local memory (0 .. the kernel's local size: every thread
of a warp reading its ``float a[8]`` element 2 records 8 in all 32 lanes); the offset in the constant bank or
the kernel parameters.  A generic access records the space it resolved to.  Where those bytes sit
physically (local words interleaved across the 32 lanes of a warp, shared memory per SM) is the memory
system's address map.

Files: :meth:`KernelTrace.save` writes one compressed ``.npz`` (the static part as JSON in it), and
:meth:`KernelTrace.load` reads it back; the format has a version number checked on load.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from gpusim.errors import GpusimError
from isa.units import MemSpace

TRACE_FORMAT_VERSION = 5   # 5: atoms whose result nothing reads (result_unread); 4: the guard predicate; 3: branch
                           # targets and the local frame size; 2: local addresses are per-thread offsets
READABLE_VERSIONS = (2, 3, 4, 5)  # an older file lacks what later ones added: the timing model falls back to the trace for
                               # branch targets, and without the guard (guard_reg -1) a guard waits its writer's latency
# the names of the spaces a trace holds, indexed by MemSpace code (for the timing and memory models' tables)
MEM_SPACES = tuple(s.value for s in MemSpace.concrete())


@dataclass(frozen=True)
class StaticInstr:
    """One PC of the kernel as the timing model sees it."""

    pc: int
    opcode: str                      # full PTX mnemonic, e.g. "ld.global.v4.f32", "fma.rn.f32"
    unit: str                        # isa.units.Unit value
    latency_class: str               # isa.units.LatencyClass value
    dst_regs: tuple[int, ...] = ()   # register ids written (ids are per kernel, dense from 0)
    src_regs: tuple[int, ...] = ()   # register ids read, including the guard predicate
    guard_reg: int = -1              # the guard predicate's register id (``@p``/``@!p``), -1: unguarded
    mem_space: str | None = None     # a MemSpace value ("generic" included), or None if not a memory instruction
    access_bytes: int = 0            # bytes per lane (vector width x element size)
    is_load: bool = False
    is_store: bool = False
    is_atomic: bool = False          # atom (returns a value) or red (does not)
    result_unread: bool = False      # an atom whose result nothing reads: ptxas's RED (isa.aggregate), timed as red
    aggregated: str = ""             # an atomic ptxas sends once per warp: "leader", "full_warp" (isa.aggregate)
    cache_op: str | None = None      # ".ca", ".cg", ".cs", ".lu", ".cv", ".wb", ".wt", or None
    is_barrier: bool = False
    is_membar: bool = False
    is_branch: bool = False
    branch_target: int = -1          # the PC a branch goes to when taken (-1: not a branch, or not recorded)
    is_exit: bool = False            # ret/exit of the entry function: the lanes finish
    ptx_line: int = 0                # 1-based line in the PTX file
    src_file: str | None = None      # from .loc/.file, when the PTX carries line info
    src_line: int | None = None
    no_unroll: bool = False          # a loop header under `.pragma "nounroll"` (ptxas keeps the loop rolled)
    imm_srcs: int = 0                # immediate source operands (an SASS ALU instruction has one immediate slot)
    if_converted: bool = False       # a branch ptxas predicates away (gpusim.timing.ifconvert): no row issues it
    sass_form: str = ""              # the SASS instruction ptxas makes of it after folding others in (gpusim.timing.fusion):
                                     # "IADD3", "LOP3", "LEA", "IMAD", "IMAD.WIDE"; "": as its PTX opcode says


@dataclass
class KernelTrace:
    """A recorded kernel launch (see the module docstring for the array layout)."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int                       # static + dynamic shared memory per block
    regs_per_thread: int | None             # from the compiler if known, else None
    instructions: list[StaticInstr]
    warp_block: np.ndarray
    warp_in_block: np.ndarray
    warp_start: np.ndarray
    pc: np.ndarray
    active_mask: np.ndarray
    exec_mask: np.ndarray
    mem_slot: np.ndarray
    addresses: np.ndarray
    mem_space: np.ndarray
    meta: dict = field(default_factory=dict)  # provenance: program name, source digest, gpusim version
    local_bytes_per_thread: int | None = None   # the kernel's local frame (.local), None if not recorded
    first_warp: int = 0                     # launch index of warp 0 of this trace: > 0 for a later chunk

    # -- sizes -------------------------------------------------------------------------------------
    @property
    def n_warps(self) -> int:
        return int(self.warp_block.shape[0])

    @property
    def n_blocks(self) -> int:
        """Blocks of the launch (a chunk holds some of them)."""
        return int(self.grid[0] * self.grid[1] * self.grid[2])

    @property
    def launch_warps(self) -> int:
        """Warps of the whole launch (``n_warps`` for a whole trace)."""
        return self.n_blocks * self.warps_per_block

    @property
    def is_chunk(self) -> bool:
        return self.first_warp != 0 or self.n_warps != self.launch_warps

    @classmethod
    def join(cls, chunks: "list[KernelTrace]") -> "KernelTrace":
        """One trace of consecutive chunks of a launch (in warp order): the rows concatenated, the memory
        slots of each chunk after those of the chunks before it."""
        if not chunks:
            raise GpusimError("no chunks to join")
        if len(chunks) == 1:
            return chunks[0]
        first = chunks[0]
        rows = np.cumsum([0] + [c.n_instructions for c in chunks])
        slots = np.cumsum([0] + [int(c.addresses.shape[0]) for c in chunks])
        for a, b in zip(chunks, chunks[1:]):
            if b.first_warp != a.first_warp + a.n_warps:
                raise GpusimError(f"chunks are not consecutive: warps {a.first_warp}+{a.n_warps} then {b.first_warp}")
        static = {f: getattr(first, f) for f in ("kernel", "grid", "block", "shared_bytes", "regs_per_thread",
                                                "instructions", "meta", "local_bytes_per_thread", "first_warp")}
        return cls(
            **static,
            warp_block=np.concatenate([c.warp_block for c in chunks]),
            warp_in_block=np.concatenate([c.warp_in_block for c in chunks]),
            warp_start=np.concatenate([c.warp_start[:-1] + r for c, r in zip(chunks, rows)] + [rows[-1:]]),
            pc=np.concatenate([c.pc for c in chunks]),
            active_mask=np.concatenate([c.active_mask for c in chunks]),
            exec_mask=np.concatenate([c.exec_mask for c in chunks]),
            mem_slot=np.concatenate([np.where(c.mem_slot >= 0, c.mem_slot + s, -1).astype(np.int32)
                                     for c, s in zip(chunks, slots)]),
            addresses=np.concatenate([c.addresses for c in chunks]),
            mem_space=np.concatenate([c.mem_space for c in chunks]),
        )

    def select_blocks(self, lo: int, hi: int, *, first_block: int, grid) -> "KernelTrace":
        """Blocks ``lo .. hi - 1`` (launch numbering, all inside this trace) as a chunk of another launch of
        ``grid`` in which they are blocks ``first_block ..``: their rows and memory slots (renumbered from 0
        in slot order), the rest of the static facts kept.  A sampled simulation times such a launch."""
        wpb = self.warps_per_block
        w0, w1 = lo * wpb - self.first_warp, hi * wpb - self.first_warp
        if not 0 <= w0 <= w1 <= self.n_warps:
            raise GpusimError(f"blocks {lo}..{hi - 1} are not all in this trace (warps {self.first_warp}.."
                              f"{self.first_warp + self.n_warps - 1})")
        r0, r1 = int(self.warp_start[w0]), int(self.warp_start[w1])
        slot = self.mem_slot[r0:r1]
        used = slot >= 0
        keep = np.sort(slot[used])
        new_slot = np.full(slot.shape, -1, dtype=np.int32)
        new_slot[used] = np.searchsorted(keep, slot[used]).astype(np.int32)
        n = w1 - w0
        return replace(
            self, grid=tuple(int(g) for g in grid),
            warp_block=(first_block + np.arange(n) // wpb).astype(np.int32),
            warp_in_block=self.warp_in_block[w0:w1].copy(),
            warp_start=(self.warp_start[w0:w1 + 1] - r0).astype(np.int64),
            pc=self.pc[r0:r1].copy(), active_mask=self.active_mask[r0:r1].copy(),
            exec_mask=self.exec_mask[r0:r1].copy(), mem_slot=new_slot,
            addresses=self.addresses[keep], mem_space=self.mem_space[keep],
            first_warp=first_block * wpb)

    @property
    def threads_per_block(self) -> int:
        return int(self.block[0] * self.block[1] * self.block[2])

    @property
    def warps_per_block(self) -> int:
        return (self.threads_per_block + 31) // 32

    @property
    def n_instructions(self) -> int:
        """Dynamic warp instructions (Nsight's ``smsp__inst_executed.sum``)."""
        return int(self.pc.shape[0])

    def warp_rows(self, w: int) -> slice:
        return slice(int(self.warp_start[w]), int(self.warp_start[w + 1]))

    def thread_instructions(self) -> int:
        """Sum of active lanes over all warp instructions (``smsp__thread_inst_executed.sum``)."""
        return int(_popcount32(self.active_mask).sum())

    # -- files -------------------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        path = Path(path)
        if self.is_chunk:
            raise GpusimError(f"{path}: a trace file holds a whole launch, and this is a chunk of one (warps "
                              f"{self.first_warp}..{self.first_warp + self.n_warps - 1} of {self.launch_warps})")
        header = {
            "format": "gpusim-trace",
            "version": TRACE_FORMAT_VERSION,
            "kernel": self.kernel,
            "grid": list(self.grid),
            "block": list(self.block),
            "shared_bytes": self.shared_bytes,
            "regs_per_thread": self.regs_per_thread,
            "local_bytes_per_thread": self.local_bytes_per_thread,
            "instructions": [asdict(i) for i in self.instructions],
            "meta": self.meta,
        }
        with open(path, "wb") as f:
            np.savez_compressed(
                f,
                header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8),
                warp_block=self.warp_block, warp_in_block=self.warp_in_block,
                warp_start=self.warp_start, pc=self.pc, active_mask=self.active_mask,
                exec_mask=self.exec_mask, mem_slot=self.mem_slot, addresses=self.addresses,
                mem_space=self.mem_space,
            )
        return path

    @classmethod
    def load(cls, path: str | Path) -> "KernelTrace":
        path = Path(path)
        try:
            z = np.load(path, allow_pickle=False)
            header = json.loads(bytes(z["header"]).decode())
        except FileNotFoundError:
            raise GpusimError(f"{path}: no such trace file") from None
        except Exception as e:  # noqa: BLE001 - any decoding problem means "not a trace"
            raise GpusimError(f"{path}: not a gpusim trace file ({e})") from None
        if header.get("format") != "gpusim-trace":
            raise GpusimError(f"{path}: not a gpusim trace file")
        if header.get("version") not in READABLE_VERSIONS:
            raise GpusimError(f"{path}: trace format version {header.get('version')}, this gpusim reads "
                              f"version {TRACE_FORMAT_VERSION}; re-record it with `gpusim trace`")
        try:
            instrs = [StaticInstr(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items()})
                      for d in header["instructions"]]
            if header["version"] < 5:
                instrs = unread_atoms_as_red(instrs)
            return cls(
                kernel=header["kernel"], grid=tuple(header["grid"]), block=tuple(header["block"]),
                shared_bytes=header["shared_bytes"], regs_per_thread=header["regs_per_thread"],
                instructions=instrs, warp_block=z["warp_block"], warp_in_block=z["warp_in_block"],
                warp_start=z["warp_start"], pc=z["pc"], active_mask=z["active_mask"], exec_mask=z["exec_mask"],
                mem_slot=z["mem_slot"], addresses=z["addresses"], mem_space=z["mem_space"],
                meta=header.get("meta", {}), local_bytes_per_thread=header.get("local_bytes_per_thread"),
            )
        except KeyError as e:
            raise GpusimError(f"{path}: a damaged gpusim trace file (no {e.args[0]!r} in it); re-record it with "
                              f"`gpusim trace`") from None
        except Exception as e:  # noqa: BLE001 - zlib.error, BadZipFile, TypeError: the arrays do not decode
            raise GpusimError(f"{path}: a damaged gpusim trace file ({type(e).__name__}: {e}); re-record it with "
                              f"`gpusim trace`") from None


def unread_atoms_as_red(instrs: list[StaticInstr]) -> list[StaticInstr]:
    """The PCs of a trace recorded before format 5 with each ``atom`` whose result no PC reads made the RED
    ptxas emits (``isa.aggregate.result_can_be_dropped``, read from the opcode), as the recorder now makes
    it: no destination, a store."""
    from isa.aggregate import result_can_be_dropped
    read = {r for ins in instrs for r in ins.src_regs}
    out = []
    for ins in instrs:
        parts = ins.opcode.split(".")
        space = next((p for p in parts if p in ("global", "shared", "shared::cta")), None)
        type_ = next((p for p in reversed(parts) if p[:1] in "bfsu" and p[1:2].isdigit()), None)
        if parts[0] == "atom" and ins.dst_regs and not read.intersection(ins.dst_regs) \
                and result_can_be_dropped(parts[1:], space, type_):
            ins = timed_as_red(ins)
        out.append(ins)
    return out


def timed_as_red(ins: StaticInstr) -> StaticInstr:
    """An ``atom`` whose result nothing reads as ptxas's RED (``isa.aggregate``): no destination, a store."""
    return replace(ins, result_unread=True, dst_regs=(), is_load=False, is_store=True)


def _popcount32(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint32)
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x)
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return (x * 0x01010101) >> 24


popcount32 = _popcount32
