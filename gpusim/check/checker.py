"""The checker: how the tools attach to the emulator, and what they share.

:class:`Checker` is what :meth:`gpusim.functional.emulator.Emulator.launch` takes as ``checker=``.  It
attaches in two places, both decided when the kernel is compiled, so that a launch without it runs the
plain emulator with nothing added:

* every memory instruction's :class:`~gpusim.functional.addressing.MemOp` gets a ``locate`` that runs
  :meth:`Checker.access`: the addressing steps themselves (memcheck decides what happens to bad lanes), then
  initcheck's and racecheck's shadow memory for the lanes that touch memory;
* the handlers of ``bar.sync``, ``exit``/``ret`` and the warp operations with a member mask are wrapped
  (:class:`Instrument`): synccheck looks before and after, racecheck counts ``__syncwarp``.

The wrappers find the launch's checker in the batch's frame (``fr.checker``), so one instrumented kernel
serves every checked launch.  In check mode the SIMT stacks use independent-thread barriers, and shared,
local and uninitialised global memory start as the poison pattern (:mod:`gpusim.check.initcheck`).

The tools count what they find in a :class:`Tally`, keyed by (tool, kind, severity, scope, space, the PCs
involved) with one example each; :meth:`Checker.findings` turns it into :class:`~gpusim.check.report.Finding`
objects with source locations, one per (tool, kind, scope, severity, lines).
"""
from __future__ import annotations

import numpy as np

from gpusim.check.initcheck import POISON, InitCheck
from gpusim.check.memcheck import MemCheck
from gpusim.check.racecheck import RaceCheck
from gpusim.check.report import TOOLS, Access, CheckReport, Finding, merge
from gpusim.check.symbols import Variables, provenance
from gpusim.check.synccheck import SyncCheck
from gpusim.errors import LaunchError
from gpusim.functional.faults import dim3_of
from gpusim.functional.memory import GLOBAL_BASE
from gpusim.functional.operands import DT, reader
from isa.opcodes import TYPE_BITS
from isa.program import Vec
from isa.units import MemSpace

_OPS = {"ld": "read", "ldu": "read", "st": "write", "atom": "atomic", "red": "atomic"}
_SINK_BYTES = 64
GLOBAL_RACES = ("block", "grid", "off")
_COLLECTIVES = {"shfl": "__shfl_sync", "vote": "vote.sync", "match": "__match_sync", "redux": "__reduce_sync",
                "elect": "elect.sync"}


class Tally:
    """Counts per finding key, with the first example of each (see the module docstring)."""

    def __init__(self):
        self.items: dict[tuple, list] = {}
        self.block0 = 0
        self.lanes_per_block = 32

    def add(self, key: tuple, count: int, example) -> None:
        have = self.items.get(key)
        if have is not None:
            have[0] += count
            return
        ex = example()
        if "lane" in ex:            # batch lane id -> launch lane id
            ex["who"] = (ex.pop("lane") + self.block0 * self.lanes_per_block,) * len(key[5])
        self.items[key] = [count, ex]


class Instrument:
    """Attaches a checker to a kernel while it is compiled (see the module docstring)."""

    def memop(self, mo) -> None:
        def locate(fr, st):
            return fr.checker.access(mo, fr, st)
        mo.locate = locate
        mo.check_op = access_kind(mo)
        mo.stored = None
        if mo.ins.base == "st":       # what a plain store writes (racecheck tells same-value writes apart)
            op = mo.ins.operands[1]
            items = list(op.items) if isinstance(op, Vec) else [op]
            mo.stored = ([None if r is None else reader(r, mo.ins.type, mo.ctx) for r in items],
                         DT[mo.ins.type])

    def wrap(self, ctx, handlers: list) -> list:
        out = list(handlers)
        for ins in ctx.kernel.instructions:
            pc, h = ins.pc, handlers[ins.pc]
            if ins.base in ("bar", "barrier") and "warp" in ins.mods:
                out[pc] = _collective(h, pc, "__syncwarp", reader(ins.operands[0], "b32", ctx), syncwarp=True)
            elif ins.base in ("bar", "barrier") and not ("cluster" in ins.mods and "arrive" in ins.mods):
                out[pc] = _barrier(h, pc)
            elif ins.base == "mbarrier" and ("try_wait" in ins.mods or "test_wait" in ins.mods):
                out[pc] = _mbarrier_wait(h)
            elif ins.base in ("ret", "exit"):
                out[pc] = _exit(h)
            elif ins.base in _COLLECTIVES and "sync" in ins.mods and len(ins.operands) >= 3:
                out[pc] = _collective(h, pc, _COLLECTIVES[ins.base], reader(ins.operands[-1], "b32", ctx))
        return out


def _barrier(h, pc):
    def h_bar_checked(fr, st):
        ck = fr.checker
        ck.before_barrier(fr, st, pc)
        epochs = fr.simt.epoch.copy()
        h(fr, st)
        ck.after(fr, epochs)
    return h_bar_checked


def _exit(h):
    def h_exit_checked(fr, st):
        epochs = fr.simt.epoch.copy()
        h(fr, st)
        fr.checker.after(fr, epochs)
    return h_exit_checked


def _mbarrier_wait(h):
    def h_mbarrier_wait_checked(fr, st):
        h(fr, st)
        fr.checker.mbarrier_waited(fr, st)
    return h_mbarrier_wait_checked


def _collective(h, pc, kind, mask_reader, syncwarp=False):
    def h_collective_checked(fr, st):
        fr.checker.collective(fr, st, pc, kind, mask_reader(fr, st.sel), syncwarp)
        h(fr, st)
    return h_collective_checked


INSTRUMENT = Instrument()


class Checker:
    """The checker of one launch: the tools asked for, their shadow state, the findings.

    ``tools``: any of racecheck, initcheck, synccheck, memcheck (none: only the check mode's poison fills and
    barrier semantics, which a reference run for a schedule comparison uses).  ``host``:
    ``{"uninitialised": [argument indices], "freed": [...]}``, the host-side state of argument buffers.
    ``global_races``: racecheck on global memory within a block (``"block"``, the default), also between
    blocks (``"grid"``: not by default, as graph kernels let blocks race by design, tolerating either order),
    or not at all (``"off"``: shared memory only, as compute-sanitizer's racecheck).  ``arg_names``: the
    arguments' names, for reports.  ``freed``: allocations of the heap freed before the launch (a
    :mod:`gpusim.cupy` session's, from :class:`~gpusim.check.memcheck.FreedMemory`).
    """

    instrument = INSTRUMENT

    def __init__(self, tools=TOOLS, host: dict | None = None, global_races: str = "block",
                 arg_names: list[str] | None = None, freed: list | None = None):
        unknown = [t for t in tools if t not in TOOLS]
        if unknown:
            raise LaunchError(f"unknown checker tool {unknown[0]!r}; the tools: {', '.join(TOOLS)}")
        self.tools = tuple(t for t in TOOLS if t in tools)
        self.host = {k: list(v) for k, v in (host or {}).items()}
        if global_races not in GLOBAL_RACES:
            raise LaunchError(f"global_races must be one of {', '.join(GLOBAL_RACES)}, not {global_races!r}")
        self.global_races = global_races
        self.arg_names = arg_names
        self.freed_before = list(freed or [])
        self.tally = Tally()
        self.sink = np.full(_SINK_BYTES, POISON, dtype=np.uint8)

    # -- the emulator's calls ----------------------------------------------------------------------------
    def begin_launch(self, module, ck, dev, grid3, block3, shared_total: int) -> None:
        k = ck.kernel
        # the linked program (the kernel and the device functions it calls): its name and instructions
        self.module, self.kernel, self.dev, self.grid, self.block = module, ck.ctx.kernel, dev, grid3, block3
        instructions = ck.instructions
        tpb = block3[0] * block3[1] * block3[2]
        self.tally.lanes_per_block = (tpb + 31) // 32 * 32
        prog = ck.program
        local_bytes = (prog.local_bytes + 15) // 16 * 16
        self.variables = Variables(module, k, ck.ctx.table, shared_total, local_bytes,
                                   {key: v.size_bytes for key, v in prog.function_shared})
        allocs = {i: dev.arg_allocation(i) for i in range(len(dev.args))}
        for i, a in allocs.items():      # reports name the buffers as the launch names them
            if a is not None and self.arg_names and i < len(self.arg_names):
                a.name = f"{self.arg_names[i]} (argument {i})"
        uninit = [allocs[i] for i in self.host.get("uninitialised", ()) if allocs.get(i) is not None]
        freed = [allocs[i] for i in self.host.get("freed", ()) if allocs.get(i) is not None]
        for a in uninit:        # memory nothing wrote holds whatever was there: the poison pattern
            dev.mem.buf[a.address - GLOBAL_BASE: a.end - GLOBAL_BASE] = POISON
        self.race = self.init = self.sync = self.mem = None
        if "racecheck" in self.tools:
            self.race = RaceCheck(self.tally, _granules(instructions), global_memory=self.global_races != "off",
                                  cross_block=self.global_races == "grid")
            self.race.begin_launch(dev.mem.buf.size)
        if "initcheck" in self.tools:
            self.init = InitCheck(self.tally, self.variables)
            self.init.begin_launch(dev, uninit)
        if "synccheck" in self.tools:
            self.sync = SyncCheck(self.tally, lambda pc: self.module.location(instructions[pc]).brief()
                                  if pc < len(instructions) else "the kernel's end")
        if "memcheck" in self.tools:
            self.mem = MemCheck(self.tally, self.variables, provenance(instructions), freed + self.freed_before)

    def begin_batch(self, fr) -> None:
        fr.checker = self
        fr.shared[:] = POISON
        fr.local[:] = POISON
        self.tally.block0 = fr.block0
        for tool in (self.race, self.init, self.sync):
            if tool is not None:
                tool.begin_batch(fr)

    def end_batch(self, fr) -> None:
        if self.sync is not None:
            self.sync.end_batch(fr)

    # -- memory ------------------------------------------------------------------------------------------
    def access(self, mo, fr, st):
        """``MemOp.locate`` in check mode (same result: the address and the parts)."""
        addr = mo.addresses(fr, st)
        op = mo.check_op
        parts = []
        for space, off, where in mo.split(addr):
            if off.size == 0:
                parts.append(mo.place(fr, st, space, off, where))
                continue
            if self.mem is not None:
                bad = self.mem.check(mo, fr, space, off, _lanes(fr, st, where))
            else:
                v = mo.violation(fr, space, off)
                if v is not None:
                    pos = int(np.flatnonzero(v[1])[0])
                    raise mo.ctx.address_error(fr, st, mo.ins, pos, where, int(off[pos]), space, v[0])
                bad = None
            if bad is None or not bad.any():
                part = mo.place(fr, st, space, off, where)
                parts.append(part)
                self._observe(mo, fr, st, op, space, where, part[3], off)
                continue
            good = ~bad
            if good.any():
                wg = _sub(where, good)
                part = mo.place(fr, st, space, off[good], wg)
                parts.append(part)
                self._observe(mo, fr, st, op, space, wg, part[3], off[good])
            self.sink[:] = POISON
            parts.append((space, _sub(where, bad), self.sink, np.zeros(int(bad.sum()), dtype=np.int64)))
        if fr.recording:             # a checked launch may still be timed (gpusim.cupy with sanitize)
            st.addr = mo.trace_offsets(addr)
            st.space = parts[0][0].code if parts else MemSpace.GLOBAL.code
        return addr, parts

    def _observe(self, mo, fr, st, op, space, where, phys, offsets) -> None:
        if phys.size == 0:
            return
        if self.init is not None and space in (MemSpace.SHARED, MemSpace.LOCAL, MemSpace.GLOBAL):
            self.init.access(fr, mo.ins.pc, op, space, _lanes(fr, st, where), phys, offsets, mo.elem, mo.ins.vec)
        if self.race is not None and space in (MemSpace.SHARED, MemSpace.GLOBAL):
            stored = None
            if mo.stored is not None:
                def stored():
                    return _stored_bytes(mo, fr, st, where, phys.size)
            buf = fr.shared if space is MemSpace.SHARED else fr.mem.buf
            self.race.access(fr, mo.ins.pc, op, space is MemSpace.SHARED, _lanes(fr, st, where), phys, offsets,
                             mo.size, buf, stored)

    # -- control -----------------------------------------------------------------------------------------
    def before_barrier(self, fr, st, pc: int) -> None:
        if self.sync is not None:
            self.sync.barrier(fr, st, pc)

    def after(self, fr, epochs: np.ndarray) -> None:
        """After a barrier or an exit: the blocks whose barrier completed."""
        changed = np.flatnonzero(fr.simt.epoch != epochs)
        if changed.size:
            if self.sync is not None:
                self.sync.released(fr, changed)
            if self.race is not None:
                self.race.released(fr)

    def mbarrier_waited(self, fr, st) -> None:
        if self.race is not None:
            self.race.mbarrier_waited(np.unique(fr.simt.block_of[st.selw]))

    def collective(self, fr, st, pc: int, kind: str, masks, syncwarp: bool) -> None:
        if self.sync is not None:
            self.sync.collective(fr, st, pc, kind, masks)
        if syncwarp and self.race is not None:
            self.race.syncwarp(st.selw)

    def deadlock(self, err) -> None:
        """The emulator's barrier deadlock, as a synccheck finding."""
        if self.sync is None:
            return
        ins = self.kernel.instructions[_pc_of(self.kernel, err.location)]
        head, _, rest = str(err).partition("\n")
        details = [ln for ln in rest.splitlines() if ln.startswith("  warp")]
        self.tally.add(("synccheck", "barrier deadlock", "error", None, None, (("__syncthreads()", ins.pc),)), 1,
                       lambda: {"message": "not every thread of the block can reach the barrier: the launch "
                                           "cannot complete (it would hang on a GPU)", "details": details})

    # -- results -----------------------------------------------------------------------------------------
    def report(self, schedule: str = "lockstep", completed: bool = True, stopped: str | None = None):
        """The :class:`~gpusim.check.report.CheckReport` of the launch the checker watched."""
        return CheckReport(kernel=self.kernel.name, source=self.module.source_name, tools=self.tools,
                           schedule=schedule, findings=self.findings(), completed=completed, stopped=stopped,
                           grid=self.grid, block=self.block)

    def findings(self) -> list[Finding]:
        out = []
        ins = self.kernel.instructions
        for key, (count, ex) in self.tally.items.items():
            tool, kind, severity, scope, space, accesses = key
            whos = ex.get("who", (None,) * len(accesses))
            acc = [Access(what, pc, self.module.location(ins[pc]), *self._coords(who))
                   for (what, pc), who in zip(accesses, whos)]
            msg = ex.get("message") or self._race_message(scope, space, ex)
            out.append(Finding(tool, kind, severity, msg, acc, count, space, scope, list(ex.get("details", ()))))
        return merge(out)

    def _coords(self, who):
        if who is None:
            return None, None
        lpb = self.tally.lanes_per_block
        b, t = divmod(int(who), lpb)
        return dim3_of(b, self.grid), dim3_of(t, self.block)

    def _race_message(self, scope, space, ex) -> str:
        addr = ex.get("address")
        where = ""
        if addr is not None:
            if space == "shared":
                name = self.variables.name_of(MemSpace.SHARED, addr)
                where = f"at __shared__ {addr:#x}" + (f" ({name})" if name else "")
            else:
                where = f"at __global__ {addr:#x} ({self.dev.mem.nearest(addr)})"
        why = {"warp": "with no __syncwarp() between them (lanes of one warp need not run in lock-step)",
               "block": "with no __syncthreads() between them",
               "grid": "by different blocks of one launch, which nothing orders"}[scope]
        return f"{where} {why}".strip()


def _lanes(fr, st, where):
    lanes = st.lane_ids(fr)
    return lanes if where is None else lanes[where]


def _stored_bytes(mo, fr, st, where, n: int) -> np.ndarray:
    """``[lanes, size]`` bytes a store writes, for the part's lanes (``_`` elements: zeros)."""
    readers, dt = mo.stored
    cols = []
    for r in readers:
        if r is None:
            cols.append(np.zeros((n, mo.elem), dtype=np.uint8))
            continue
        v = np.asarray(r(fr, st.sel)).astype(dt, copy=False)
        v = np.broadcast_to(v, (len(st.lane_ids(fr)),)) if v.ndim == 0 else v
        v = v if where is None else v[where]
        cols.append(np.ascontiguousarray(v).view(np.uint8).reshape(n, mo.elem))
    return np.concatenate(cols, axis=1) if len(cols) > 1 else cols[0]


def _sub(where, mask):
    """The positions (among the executing lanes) of the part's lanes that ``mask`` selects."""
    if where is None:
        idx = np.flatnonzero(mask)
        return None if idx.size == mask.size else idx
    return where[mask]


def access_kind(mo) -> str:
    """What a memory operand does, for the tools: ``read``, ``write``, ``atomic`` (a read-modify-write that
    does not race with other atomics; mbarrier operations too), or ``atomic-init`` (``mbarrier.init``: it
    writes the word)."""
    base = mo.ins.base
    if base in _OPS:
        return _OPS[base]
    if base == "cp.async":                 # shared destination <- global source
        return "write" if mo.operand == 0 else "read"
    if base == "st.async":
        return "write" if mo.operand == 0 else "atomic"
    if base == "mbarrier":
        return "atomic-init" if "init" in mo.ins.mods else "atomic"
    if base in ("red.async", "cp.reduce.async"):
        return "atomic"
    return "read"


def _granules(instructions) -> dict[bool, int]:
    """The racecheck granules ``{shared: bytes}``: the kernel's smallest access to shared (or global)
    memory, generic ones counting for both, at most a word."""
    def smallest(spaces):
        return max(1, min([4] + [max(1, TYPE_BITS.get(i.type or "b32", 32) // 8) * i.vec for i in instructions
                                 if i.base in _OPS and i.space in spaces]))
    return {True: smallest(("shared", "generic", None)), False: smallest(("global", "generic", None))}


def _pc_of(kernel, loc) -> int:
    for ins in kernel.instructions:
        if ins.line == loc.ptx_line and (not loc.ptx_col or ins.col == loc.ptx_col):
            return ins.pc
    return 0
