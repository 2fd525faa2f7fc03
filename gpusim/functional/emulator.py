"""The functional SIMT emulator: runs a kernel launch and (optionally) records its trace.

How it executes: blocks are run in *batches* (as many whole blocks as fit in ``max_lanes`` lanes, 64 K by
default).  Every warp of a batch has a SIMT stack; at each step the emulator picks the lowest PC at which
some runnable warp stands and executes that instruction for *all* warps standing there at once, as one
numpy operation over their active lanes.  Regular kernels therefore run in lock step, one numpy call per
instruction for thousands of warps; divergent warps simply execute at different steps.  This is the
"whole block/grid at once where the instruction is uniform" choice of the design notes (measured in
``benchmarks/emulate.py``).

Divergence: a branch whose lanes disagree pushes the reconvergence entry (the branch's immediate
post-dominator, from :mod:`isa.cfg`) and the two paths; the taken path runs first, then the fall-through
path, then the warp continues reconverged.  ``bar.sync`` counts threads: it releases when every non-exited
thread of the block has arrived; if no warp of a batch can run and some wait at a barrier, the barrier can
never complete and a :class:`BarrierDeadlockError` names the block, the warps and the PCs.

Simplifications: one PC order among warps (no model of time); memory is sequentially consistent in that
order (races resolve in it); ``%clock`` counts emulator steps.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from gpusim.errors import (BarrierDeadlockError, BudgetExceededError, IllegalAddressError, KernelLookupError,
                           LaunchError, UnsupportedError)
from gpusim.functional import semantics as sem
from gpusim.functional.memory import GLOBAL_BASE, DeviceMemory
from gpusim.functional.trace import KernelTrace, StaticInstr, popcount32
from isa.opcodes import TYPE_BITS
from isa.program import Kernel, Module

FULL = np.uint32(0xFFFFFFFF)
_AR32 = np.arange(32, dtype=np.uint32)
_BIG = np.iinfo(np.int64).max
DEFAULT_BUDGET = 500_000_000   # warp instructions per launch
CACHE_OPS = ("ca", "cg", "cs", "lu", "cv", "nc", "wb", "wt")


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


class _Ctx:
    """Compile-time context of one kernel: symbol table and error helpers for the semantics."""

    def __init__(self, kernel: Kernel, module: Module, shared_layout: dict[str, int], const_layout,
                 global_addr: dict[str, int], param_layout: dict[str, int], local_layout: dict[str, int]):
        self.kernel = kernel
        self.module = module
        self.table: dict[str, tuple[str, int]] = {}
        for n, off in shared_layout.items():
            self.table[n] = ("shared", off)
        for n, off in const_layout.items():
            self.table[n] = ("const", off)
        for n, a in global_addr.items():
            self.table[n] = ("global", a)
        for n, off in param_layout.items():
            self.table[n] = ("param", off)
        for n, off in local_layout.items():
            self.table[n] = ("local", off)

    def symbol(self, name: str) -> tuple[str, int]:
        return self.table[name]

    def unsupported(self, ins, msg: str) -> UnsupportedError:
        return UnsupportedError(f"{self.module.source_name}:{ins.line}:{ins.col}: {msg}")

    def address_error(self, fr, st, ins, lane_pos, where, address, space, what) -> IllegalAddressError:
        lanes = st.lane_ids(fr)
        if where is not None:
            lane_pos = int(where[lane_pos])
        lane = int(lanes[lane_pos])
        blk_local, t = divmod(lane, fr.lanes_per_block)
        blk = fr.block0 + blk_local
        gx, gy, _ = fr.grid
        bx, by, _ = fr.block
        b3 = (blk % gx, (blk // gx) % gy, blk // (gx * gy))
        t3 = (t % bx, (t // bx) % by, t // (bx * by))
        if space == "global":
            near = fr.mem.nearest(address)
        else:
            near = f".{space} space"
        return IllegalAddressError(
            f"illegal address in kernel '{self.kernel.name}': {what} of {ins.opcode} at "
            f"{self.module.source_name}:{ins.line} (pc {ins.pc}); block {b3}, thread {t3}: address "
            f"{address:#x} ({near})")


class Frame:
    """State of one batch of blocks: registers (one array per register over all lanes), memory spaces."""

    def __init__(self, T: int, n_regs_bits: list[int]):
        self.T = T
        self.regs = [np.zeros(T, dtype=sem.STORAGE[b]) for b in n_regs_bits]
        self.recording = False

    def lane_block_shared(self, st, where):
        if st.lanes is None and where is None:
            return self.lane_block_all * self.shared_size
        lanes = st.lane_ids(self)
        if where is not None:
            lanes = lanes[where]
        return (lanes // self.lanes_per_block) * self.shared_size


@dataclass
class CompiledKernel:
    kernel: Kernel
    handlers: list
    ctx: _Ctx
    static: list[StaticInstr]
    is_control: list[bool]
    kind: list[str]


class Emulator:
    """Runs launches of the kernels of one :class:`Module`."""

    def __init__(self, module: Module, *, max_lanes: int = 65536, budget: int = DEFAULT_BUDGET):
        self.module = module
        self.max_lanes = max_lanes
        self.budget = budget
        # module-scope variables: const bank and global heap entries
        self.const_layout = {n: v.offset for n, v in module.globals.items() if v.space == "const"}
        self.const_bytes = module.const_bytes
        self._compiled: dict[tuple, CompiledKernel] = {}

    # -- launch ---------------------------------------------------------------------------------------
    def launch(self, kernel: str | None, grid, block, args: list, *, symbols: dict | None = None,
               shared_mem: int = 0, record: bool = False, regs_per_thread: int | None = None,
               progress=None) -> LaunchOutput:
        t0 = time.perf_counter()
        k = select_kernel(self.module, kernel)
        grid3 = dim3(grid, "grid")
        block3 = dim3(block, "block")
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

        mem = DeviceMemory()
        # module .global variables and their initial values
        global_addr: dict[str, int] = {}
        global_allocs = {}
        for n, v in self.module.globals.items():
            if v.space == "global":
                a = mem.allocate(n, v.size_bytes, v.init)
                global_addr[n] = a.address
                global_allocs[n] = a
        const = np.zeros(max(16, (self.const_bytes + 15) // 16 * 16), dtype=np.uint8)
        for n, v in self.module.globals.items():
            if v.space == "const" and v.init is not None:
                const[v.offset: v.offset + len(v.init)] = np.frombuffer(v.init, dtype=np.uint8)
        symbols = dict(symbols or {})
        for n, arr in symbols.items():
            v = self.module.globals.get(n)
            if v is None:
                raise LaunchError(f"no module variable '{n}' (__constant__ or __device__) in "
                                  f"{self.module.source_name}; it has: {', '.join(self.module.globals) or 'none'}")
            raw = np.frombuffer(np.ascontiguousarray(arr).tobytes(), dtype=np.uint8)
            if raw.size > v.size_bytes:
                raise LaunchError(f"symbol '{n}' is {v.size_bytes} bytes; {raw.size} bytes given")
            if v.space == "const":
                const[v.offset: v.offset + raw.size] = raw
            else:
                mem.write(global_allocs[n], raw)
        # kernel arguments: arrays become device buffers
        params = np.zeros(max(16, (k.param_bytes + 15) // 16 * 16), dtype=np.uint8)
        arg_allocs: list = []
        for i, (p, a) in enumerate(zip(k.params, args)):
            if isinstance(a, np.ndarray):
                if not p.is_pointer_sized:
                    raise LaunchError(f"argument {i} ({p.name}: .{p.type}) is a value, but an array was given")
                al = mem.allocate(f"arg{i} ({p.name})", a.nbytes, a)
                arg_allocs.append((al, a))
                raw = np.array(al.address, dtype=np.uint64).tobytes()
            else:
                arg_allocs.append(None)
                raw = _pack_scalar(a, p, i)
            params[p.offset: p.offset + len(raw)] = np.frombuffer(raw, dtype=np.uint8)

        ck = self._compile(k, global_addr)
        shared_static = ck.ctx.shared_static_bytes
        shared_total = _align(shared_static, 16) + int(shared_mem) if shared_mem else shared_static
        wpb = (tpb + 31) // 32
        lpb = wpb * 32
        n_blocks = grid3[0] * grid3[1] * grid3[2]
        per_batch = max(1, self.max_lanes // lpb)
        stats = EmulationStats(pc_warp_counts=np.zeros(len(k.instructions), dtype=np.int64))
        chunks = []
        for b0 in range(0, n_blocks, per_batch):
            nb = min(per_batch, n_blocks - b0)
            # NaN, inf and integer wrap-around are GPU semantics here, not numpy warnings
            with np.errstate(all="ignore"):
                chunk = self._run_batch(ck, mem, const, params, b0, nb, grid3, block3, tpb, wpb, shared_total,
                                        k.local_bytes, record, stats, n_blocks)
            if chunk is not None:
                chunks.append(chunk)
            if progress is not None:
                progress(b0 + nb, n_blocks)
        out_args = []
        for a, al in zip(args, arg_allocs):
            if al is None:
                out_args.append(a)
            else:
                alloc, orig = al
                out_args.append(mem.read(alloc).view(orig.dtype).reshape(orig.shape).copy())
        out_syms = {}
        for n, v in self.module.globals.items():
            if v.space == "const":
                out_syms[n] = const[v.offset: v.offset + v.size_bytes].copy()
            else:
                out_syms[n] = mem.read(global_allocs[n])
        for n, arr in symbols.items():   # give them back in the caller's dtype and shape
            a = np.asarray(arr)
            raw = out_syms[n][: a.nbytes]
            out_syms[n] = raw.view(a.dtype).reshape(a.shape).copy()
        stats.wall_seconds = time.perf_counter() - t0
        trace = None
        if record:
            trace = _assemble_trace(ck, chunks, grid3, block3, shared_total, regs_per_thread, n_blocks, wpb)
        return LaunchOutput(out_args, out_syms, stats, trace)

    # -- compilation ----------------------------------------------------------------------------------
    def _compile(self, k: Kernel, global_addr: dict[str, int]) -> CompiledKernel:
        key = (k.name, tuple(sorted(global_addr.items())))
        ck = self._compiled.get(key)
        if ck is not None:
            return ck
        shared_layout = {v.name: v.offset for v in k.shared_vars}
        top = k.shared_bytes
        dynamic = []
        for v in self.module.shared_globals:
            if v.size_bytes == 0:
                dynamic.append(v)
                continue
            off = _align(top, v.align)
            shared_layout[v.name] = off
            top = off + v.size_bytes
        for v in dynamic:
            shared_layout[v.name] = _align(top, 16)
        param_layout = {p.name: p.offset for p in k.params}
        local_layout = {v.name: v.offset for v in k.local_vars}
        ctx = _Ctx(k, self.module, shared_layout, self.const_layout, global_addr, param_layout, local_layout)
        ctx.shared_static_bytes = top
        handlers, is_control, kinds, static = [], [], [], []
        for ins in k.instructions:
            if ins.base in sem.CONTROL:
                handlers.append(None)
                is_control.append(True)
                kinds.append(ins.base if ins.base != "barrier" else "bar")
            else:
                builder = sem.BUILDERS.get(ins.base)
                if builder is None:
                    raise ctx.unsupported(ins, f"no semantics for {ins.opcode}")
                handlers.append(builder(ins, ctx))
                is_control.append(False)
                kinds.append("op")
            static.append(_static(ins))
        ck = CompiledKernel(k, handlers, ctx, static, is_control, kinds)
        self._compiled[key] = ck
        return ck

    # -- execution ------------------------------------------------------------------------------------
    def _run_batch(self, ck: CompiledKernel, mem, const, params, b0, nb, grid3, block3, tpb, wpb, shared_total,
                   local_bytes, record, stats: EmulationStats, n_blocks):
        k = ck.kernel
        instrs = k.instructions
        lpb = wpb * 32
        T = nb * lpb
        W = nb * wpb
        fr = Frame(T, [r.bits for r in k.registers])
        fr.recording = record
        fr.mem, fr.const, fr.params = mem, const, params
        fr.const_bytes = self.const_bytes
        fr.param_bytes = k.param_bytes
        fr.shared_size = max(shared_total, 0)
        fr.shared = np.zeros(_align(max(nb * shared_total, 16), 16), dtype=np.uint8)
        fr.local_size = _align(local_bytes, 16)
        fr.local = np.zeros(max(T * fr.local_size, 16), dtype=np.uint8)
        fr.local_trace_base = GLOBAL_BASE * 2 + b0 * wpb * 32 * fr.local_size
        fr.lanes_per_block = lpb
        fr.block0, fr.grid, fr.block = b0, grid3, block3
        lane = np.arange(T, dtype=np.int64)
        tl = lane % lpb
        blk_local = lane // lpb
        blk = b0 + blk_local
        fr.lane_block_all = blk_local
        bx, by, bz = block3
        gx, gy, gz = grid3
        u32 = np.uint32
        fr.special = {
            "%tid.x": (tl % bx).astype(u32), "%tid.y": ((tl // bx) % by).astype(u32),
            "%tid.z": (tl // (bx * by)).astype(u32),
            "%ntid.x": u32(bx), "%ntid.y": u32(by), "%ntid.z": u32(bz),
            "%ctaid.x": (blk % gx).astype(u32), "%ctaid.y": ((blk // gx) % gy).astype(u32),
            "%ctaid.z": (blk // (gx * gy)).astype(u32),
            "%nctaid.x": u32(gx), "%nctaid.y": u32(gy), "%nctaid.z": u32(gz),
            "%laneid": (lane & 31).astype(u32), "%warpid": ((tl // 32) % 64).astype(u32),
            "%nwarpid": u32(64), "%smid": u32(0), "%nsmid": u32(1), "%gridid": np.uint64(1),
            "%lanemask_eq": (u32(1) << (lane & 31).astype(u32)),
            "%lanemask_lt": ((u32(1) << (lane & 31).astype(u32)) - u32(1)),
            "%lanemask_le": (((u32(1) << (lane & 31).astype(u32)) - u32(1)) | (u32(1) << (lane & 31).astype(u32))),
            "%lanemask_gt": ~(((u32(1) << (lane & 31).astype(u32)) - u32(1)) |
                              (u32(1) << (lane & 31).astype(u32))),
            "%lanemask_ge": ~((u32(1) << (lane & 31).astype(u32)) - u32(1)),
            "%clock": u32(0), "%clock64": np.uint64(0), "%globaltimer": np.uint64(0),
            "%dynamic_smem_size": u32(max(shared_total - ck.ctx.shared_static_bytes, 0)),
            "%total_smem_size": u32(shared_total),
        }
        # SIMT state per warp: the top entry in cur_*, the rest in the stack arrays
        valid_threads = np.minimum(np.maximum(tpb - (np.arange(W) % wpb) * 32, 0), 32)
        init_mask = np.where(valid_threads >= 32, FULL, (np.uint64(1) << valid_threads.astype(np.uint64)) - 1
                             ).astype(np.uint32)
        cur_pc = np.zeros(W, dtype=np.int64)
        cur_mask = init_mask.copy()
        cur_rpc = np.full(W, -1, dtype=np.int64)
        D = 16
        spc = np.zeros((W, D), dtype=np.int64)
        smask = np.zeros((W, D), dtype=np.uint32)
        srpc = np.zeros((W, D), dtype=np.int64)
        sp = np.zeros(W, dtype=np.int64)
        waiting = np.zeros(W, dtype=bool)
        done = cur_mask == 0
        exited = np.zeros(W, dtype=np.uint32)
        eff = np.where(done, _BIG, cur_pc)
        warp_block = np.arange(W) // wpb
        block_live = np.bincount(warp_block, weights=popcount32(init_mask), minlength=nb).astype(np.int64)

        st = sem.Step()
        rec_pc, rec_w, rec_act, rec_exe, rec_addr_step, rec_addr, rec_space = [], [], [], [], [], [], []
        handlers, kinds, is_control = ck.handlers, ck.kind, ck.is_control
        n_steps = 0
        pc_counts = stats.pc_warp_counts

        def settle(ws):
            """Pop finished stack entries (reached reconvergence, or no lanes left) of warps ws."""
            nonlocal spc, smask, srpc
            while ws.size:
                need = (cur_mask[ws] == 0) | (cur_pc[ws] == cur_rpc[ws])
                if not need.any():
                    break
                w = ws[need]
                empty = sp[w] == 0
                if empty.any():
                    wd = w[empty]
                    done[wd] = True
                    cur_mask[wd] = 0
                    eff[wd] = _BIG
                wp = w[~empty]
                sp[wp] -= 1
                s = sp[wp]
                cur_pc[wp] = spc[wp, s]
                cur_mask[wp] = smask[wp, s]
                cur_rpc[wp] = srpc[wp, s]
                eff[wp] = cur_pc[wp]   # the popped entry may resume elsewhere (a pending fall-through path)
                ws = wp

        def release_blocks(blocks):
            for b in np.unique(blocks):
                ws = np.arange(b * wpb, (b + 1) * wpb)
                wait_w = ws[waiting[ws]]
                if wait_w.size == 0:
                    continue
                arrived = int(popcount32(cur_mask[wait_w]).sum())
                if arrived == block_live[b]:
                    waiting[wait_w] = False
                    eff[wait_w] = np.where(done[wait_w], _BIG, cur_pc[wait_w])
                    stats.barriers += 1

        while True:
            pc = int(eff.min())
            if pc == _BIG:
                if done.all():
                    break
                self._deadlock(ck, b0, wpb, W, waiting, done, cur_pc, cur_mask, exited, sp, spc, smask, grid3)
            selw = np.flatnonzero(eff == pc)
            n = selw.size
            ins = instrs[pc]
            act = cur_mask[selw]
            st.pc = pc
            st.selw = selw
            st.act = act
            st.addr = None
            st.E = None
            full_all = n == W and bool((act == FULL).all())
            if ins.guard is None:
                if full_all:
                    st.sel = slice(None)
                    st.lanes = None
                    st.exe = act
                else:
                    E = ((act[:, None] >> _AR32) & 1).astype(bool)
                    st.E = E
                    st.exe = act
                    lanes = ((selw[:, None] * 32) + _AR32.astype(np.int64))[E]
                    st.sel = st.lanes = lanes
            else:
                lm = (selw[:, None] * 32) + _AR32.astype(np.int64)
                P = fr.regs[ins.guard.id][lm]
                if ins.guard_negated:
                    P = ~P
                E = (((act[:, None] >> _AR32) & 1).astype(bool)) & P
                st.E = E
                st.exe = np.packbits(E, axis=1, bitorder="little").view("<u4")[:, 0]
                lanes = lm[E]
                st.sel = st.lanes = lanes
            n_steps += 1
            stats.warp_instructions += n
            if stats.warp_instructions > self.budget:
                raise BudgetExceededError(
                    f"kernel '{k.name}' exceeded the instruction budget of {self.budget:,} warp instructions "
                    f"(at pc {pc}, PTX line {ins.line}); raise it with budget= / --budget if the kernel is "
                    f"meant to run this long")
            stats.thread_instructions += int(popcount32(act).sum())
            pc_counts[pc] += n
            if not is_control[pc]:
                if st.lanes is None or st.lanes.size:
                    fr.special["%clock"] = np.uint32(n_steps & 0xFFFFFFFF)
                    handlers[pc](fr, st)
                cur_pc[selw] += 1
                eff[selw] += 1
                settle(selw)
                if record:
                    _rec(rec_pc, rec_w, rec_act, rec_exe, rec_addr_step, rec_addr, rec_space, st, b0 * wpb)
                continue
            kind = kinds[pc]
            if record:
                _rec(rec_pc, rec_w, rec_act, rec_exe, rec_addr_step, rec_addr, rec_space, st, b0 * wpb)
            if kind == "bra":
                stats.branches += n
                taken = st.exe
                if ins.guard is None or "uni" in ins.mods:
                    taken = act
                all_t = taken == act
                none_t = taken == 0
                div = ~(all_t | none_t)
                cur_pc[selw[all_t]] = ins.target
                cur_pc[selw[none_t]] = pc + 1
                if div.any():
                    d = selw[div]
                    stats.divergent_branches += d.size
                    if int(sp[d].max()) + 2 >= D:
                        grow = D
                        spc = np.concatenate([spc, np.zeros((W, grow), np.int64)], axis=1)
                        smask = np.concatenate([smask, np.zeros((W, grow), np.uint32)], axis=1)
                        srpc = np.concatenate([srpc, np.zeros((W, grow), np.int64)], axis=1)
                        D += grow
                    s = sp[d]
                    rpc = ins.reconverge
                    spc[d, s] = rpc
                    smask[d, s] = cur_mask[d]
                    srpc[d, s] = cur_rpc[d]
                    spc[d, s + 1] = pc + 1
                    smask[d, s + 1] = cur_mask[d] & ~taken[div]
                    srpc[d, s + 1] = rpc
                    sp[d] = s + 2
                    cur_pc[d] = ins.target
                    cur_mask[d] = taken[div]
                    cur_rpc[d] = rpc
                settle(selw)
                eff[selw] = np.where(done[selw] | waiting[selw], _BIG, cur_pc[selw])
            elif kind in ("ret", "exit"):
                e = st.exe if ins.guard is not None else act
                exited[selw] |= e
                cur_mask[selw] &= ~e
                smask[selw] &= ~e[:, None]
                blocks = warp_block[selw]
                np.subtract.at(block_live, blocks, popcount32(e).astype(np.int64))
                cur_pc[selw] += 1
                settle(selw)
                eff[selw] = np.where(done[selw] | waiting[selw], _BIG, cur_pc[selw])
                release_blocks(blocks)
            elif kind == "bar":
                if "warp" in ins.mods:          # bar.warp.sync: reconvergence hint only
                    cur_pc[selw] += 1
                    eff[selw] += 1
                    settle(selw)
                    continue
                cur_pc[selw] += 1
                waiting[selw] = True
                eff[selw] = _BIG
                release_blocks(warp_block[selw])
            else:  # membar / fence: ordering only; the emulator is sequentially consistent
                cur_pc[selw] += 1
                eff[selw] += 1
                settle(selw)
        stats.steps += n_steps
        if not record:
            return None
        return (rec_pc, rec_w, rec_act, rec_exe, rec_addr_step, rec_addr, rec_space, W)

    def _deadlock(self, ck, b0, wpb, W, waiting, done, cur_pc, cur_mask, exited, sp, spc, smask, grid3):
        k = ck.kernel
        src = self.module.source_name
        stuck = np.flatnonzero(waiting)
        b = int(stuck[0] // wpb)
        ws = range(b * wpb, (b + 1) * wpb)
        blk = b0 + b
        gx, gy, _ = grid3
        b3 = (blk % gx, (blk // gx) % gy, blk // (gx * gy))
        lines = []
        for w in ws:
            wi = w - b * wpb
            if done[w]:
                lines.append(f"  warp {wi}: exited")
                continue
            if waiting[w]:
                bar_pc = int(cur_pc[w]) - 1
                ins = k.instructions[bar_pc]
                desc = (f"  warp {wi}: lanes {_lanes(int(cur_mask[w]))} wait at {ins.opcode} "
                        f"({src}:{ins.line}, pc {bar_pc})")
                others = []
                for s in range(int(sp[w])):
                    m = int(smask[w, s])
                    if m and int(spc[w, s]) < len(k.instructions):
                        oi = k.instructions[int(spc[w, s])]
                        others.append(f"lanes {_lanes(m)} are held on another path at pc {int(spc[w, s])} "
                                      f"({src}:{oi.line})")
                if others:
                    desc += "; " + "; ".join(others)
                lines.append(desc)
        raise BarrierDeadlockError(
            f"barrier deadlock in kernel '{k.name}', block {b3}: not every thread of the block can reach the "
            f"barrier (is __syncthreads() inside divergent code?)\n" + "\n".join(lines))


def _lanes(mask: int) -> str:
    idx = [i for i in range(32) if mask >> i & 1]
    if not idx:
        return "none"
    runs, start, prev = [], idx[0], idx[0]
    for i in idx[1:] + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        runs.append(f"{start}" if start == prev else f"{start}-{prev}")
        if i is not None:
            start = prev = i
    return ",".join(runs)


def _rec(rec_pc, rec_w, rec_act, rec_exe, rec_addr_step, rec_addr, rec_space, st, w0):
    rec_pc.append(st.pc)
    rec_w.append(st.selw)
    rec_act.append(st.act)
    rec_exe.append(st.exe)
    if st.addr is not None:
        rec_addr_step.append(len(rec_pc) - 1)
        rec_addr.append(st.addr)
        rec_space.append(st.space)


def _assemble_trace(ck: CompiledKernel, chunks, grid3, block3, shared_total, regs, n_blocks, wpb) -> KernelTrace:
    pcs, warps, acts, exes, slots, addrs, spaces = [], [], [], [], [], [], []
    w_base = 0
    m_base = 0
    for (rec_pc, rec_w, rec_act, rec_exe, rec_addr_step, rec_addr, rec_space, W) in chunks:
        counts = np.array([len(w) for w in rec_w], dtype=np.int64)
        pc_arr = np.repeat(np.array(rec_pc, dtype=np.int32), counts)
        w_arr = np.concatenate(rec_w).astype(np.int64) + w_base if rec_w else np.zeros(0, np.int64)
        act = np.concatenate(rec_act) if rec_act else np.zeros(0, np.uint32)
        exe = np.concatenate(rec_exe).astype(np.uint32) if rec_exe else np.zeros(0, np.uint32)
        slot = np.full(pc_arr.size, -1, dtype=np.int64)
        if rec_addr_step:
            starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
            msize = np.array([a.shape[0] for a in rec_addr], dtype=np.int64)
            rows = np.concatenate([np.arange(starts[s], starts[s] + counts[s]) for s in rec_addr_step])
            slot[rows] = np.arange(rows.size) + m_base
            addrs.append(np.concatenate(rec_addr))
            spaces.append(np.repeat(np.array(rec_space, dtype=np.uint8), msize))
            m_base += rows.size
        pcs.append(pc_arr)
        warps.append(w_arr)
        acts.append(act)
        exes.append(exe)
        slots.append(slot)
        w_base += W
    pc_all = np.concatenate(pcs) if pcs else np.zeros(0, np.int32)
    w_all = np.concatenate(warps) if warps else np.zeros(0, np.int64)
    order = np.argsort(w_all, kind="stable")
    n_warps = n_blocks * wpb
    counts = np.bincount(w_all, minlength=n_warps)
    warp_start = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    slot_all = np.concatenate(slots)[order].astype(np.int32) if slots else np.zeros(0, np.int32)
    return KernelTrace(
        kernel=ck.kernel.name, grid=grid3, block=block3, shared_bytes=int(shared_total), regs_per_thread=regs,
        instructions=ck.static,
        warp_block=(np.arange(n_warps) // wpb).astype(np.int32),
        warp_in_block=(np.arange(n_warps) % wpb).astype(np.int32),
        warp_start=warp_start, pc=pc_all[order].astype(np.int32),
        active_mask=np.concatenate(acts)[order].astype(np.uint32),
        exec_mask=np.concatenate(exes)[order].astype(np.uint32),
        mem_slot=slot_all,
        addresses=np.concatenate(addrs) if addrs else np.zeros((0, 32), np.int64),
        mem_space=np.concatenate(spaces) if spaces else np.zeros(0, np.uint8),
        meta={"source": ck.ctx.module.source_name},
    )


def _static(ins) -> StaticInstr:
    mem = ins.base in ("ld", "st", "atom", "red")
    elem = max(1, TYPE_BITS.get(ins.type or "b32", 32) // 8) if mem else 0
    return StaticInstr(
        pc=ins.pc, opcode=ins.opcode, unit=ins.unit.value, latency_class=ins.latency_class.value,
        dst_regs=tuple(r.id for r in ins.regs_written()), src_regs=tuple(r.id for r in ins.regs_read()),
        mem_space=ins.space if mem else None, access_bytes=elem * ins.vec if mem else 0,
        is_load=ins.base in ("ld", "atom"), is_store=ins.base in ("st", "red"),
        is_atomic=ins.base in ("atom", "red"),
        cache_op=next(("." + m for m in ins.mods if m in CACHE_OPS), None) if mem else None,
        is_barrier=ins.base in ("bar", "barrier") and "warp" not in ins.mods,
        is_membar=ins.base in ("membar", "fence"), is_branch=ins.base == "bra",
        is_exit=ins.base in ("ret", "exit"), ptx_line=ins.line, src_file=ins.src_file, src_line=ins.src_line)


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _pack_scalar(a, p, i) -> bytes:
    t = p.type
    if isinstance(a, (bool, np.bool_)):
        a = int(a)
    if isinstance(a, (str, bytes)):
        raise LaunchError(f"argument {i} ({p.name}: .{t}) must be a number or numpy scalar, not the string {a!r}")
    if isinstance(a, np.ndarray) or not np.isscalar(a):
        raise LaunchError(f"argument {i} ({p.name}: .{t}) must be a number or numpy scalar, not {type(a).__name__}")
    dt = sem.DT.get(t)
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
