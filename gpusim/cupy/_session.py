"""The simulated device behind :mod:`gpusim.cupy`: one device address space, the program's clock, the
mode, and the record of every launch.

A :class:`Session` is what a process sees as "the GPU".  It owns one
:class:`~gpusim.functional.memory.DeviceMemory` (every array, pool block and module variable is an allocation
in it, and a kernel's pointer arguments are addresses in it), the loaded modules' images, and in timing mode
one memory system for the whole program (:class:`~gpusim.memory.persistent.PersistentMemory`: the L2 and
DRAM keep their state from one launch to the next).  Launches are run when they are made, in program order,
whatever the stream: the program clock (``clock_cycles``, SM cycles at the preset's clock) advances by each
kernel's simulated cycles, and events read it.

Modes: ``"timing"`` (the default: every launch is emulated and then timed) and ``"emulate"`` (functional
only: right results, no time).  ``flush_caches=True`` gives every launch a cold memory system, as Nsight
Compute's cache control does between the kernels it profiles; the default (``False``) keeps L2 warm
across launches, as a program running on the GPU sees it and CUDA events measure it.  The defaults can be
set without touching the program: ``GPUSIM_CUPY_MODE``, ``GPUSIM_CUPY_GPU``, ``GPUSIM_CUPY_FLUSH=1``.

``sanitize`` (``set_mode(sanitize="all")`` or a tool list; ``GPUSIM_CUPY_SANITIZE=all``) runs every launch
under the checker (:mod:`gpusim.check`): each launch's report is kept in its record (``rec.sanitizer``) and,
when it finds something, printed to stderr as it happens, as compute-sanitizer does.  Memcheck then also
knows the arrays the program freed to the device (``free_all_blocks``) since sanitizing began: a kernel
using one is a use after free.  (A block freed into the memory pool is still allocated, as in CuPy.)

What is not simulated (and is counted in :attr:`Session.host_ops`, shown by :func:`report`): array
creation, copies between host and device or within the device, elementwise arithmetic and reductions, all
of which run in numpy on the host and take no simulated time; host-side launch overhead and PCIe transfers.
"""
from __future__ import annotations

import os
import sys
import warnings
from collections import Counter
from dataclasses import dataclass, field

from gpusim.errors import GpusimError, LaunchError
from gpusim.functional.memory import DeviceMemory

MODES = ("emulate", "timing")


@dataclass
class LaunchRecord:
    """One kernel launch of the program: where and when it ran and what the simulator measured.

    ``start_cycle``: the program clock when it started (SM cycles); ``timing``: the
    :class:`~gpusim.timing.TimingResult` (cycles, counters, stalls) in timing mode, else None; ``stats``: the
    emulator's :class:`~gpusim.functional.host.EmulationStats`."""

    index: int
    kernel: str
    module: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_mem: int
    stream: int
    start_cycle: int
    mode: str
    stats: object
    timing: object = None
    flushed: bool = False
    sanitizer: object = None        # the launch's gpusim.check.CheckReport when the session sanitizes

    @property
    def cycles(self) -> int | None:
        return None if self.timing is None else int(self.timing.cycles)

    @property
    def counters(self) -> dict:
        return {} if self.timing is None else self.timing.counters

    @property
    def stalls(self) -> dict:
        return {} if self.timing is None else self.timing.stalls

    @property
    def top_stall(self) -> str | None:
        if self.timing is None:
            return None
        top = self.timing.top_stalls(1)
        return top[0][0] if top else None


@dataclass(eq=False)
class Session:
    """The simulated device (see the module docstring)."""

    mode: str = "timing"
    gpu_name: object = "h100"
    flush_caches: bool = False
    scheduler: str | None = None
    mem: DeviceMemory = field(default_factory=DeviceMemory)
    clock_cycles: int = 0
    launches: list = field(default_factory=list)
    host_ops: Counter = field(default_factory=Counter)
    transfer_bytes: Counter = field(default_factory=Counter)
    sanitize: tuple = ()

    def __post_init__(self):
        from gpusim.config import load_gpu
        if self.mode not in MODES:
            raise GpusimError(f"gpusim.cupy mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        self.gpu = load_gpu(self.gpu_name)
        self._memory = None            # PersistentMemory, made at the first timed launch
        self._warned_no_time = False
        self.pool = None               # the default MemoryPool (gpusim.cupy.cuda.memory), set by it
        self._freed = None             # gpusim.check's FreedMemory, following the heap while sanitizing
        self.configure(sanitize=self.sanitize)

    # -- configuration -------------------------------------------------------------------------------
    def configure(self, mode=None, gpu=None, flush_caches=None, scheduler=None, sanitize=None) -> None:
        from gpusim.config import load_gpu
        if mode is not None:
            if mode not in MODES:
                raise GpusimError(f"gpusim.cupy mode must be one of {', '.join(MODES)}, not {mode!r}")
            self.mode = mode
        if gpu is not None:
            self.gpu = load_gpu(gpu)
            self.gpu_name = gpu
            self._memory = None        # another GPU: another memory system
        if flush_caches is not None:
            self.flush_caches = bool(flush_caches)
        if scheduler is not None:
            self.scheduler = scheduler
        if sanitize is not None:
            from gpusim.check import tools_of
            self.sanitize = tools_of(sanitize) if sanitize else ()
            if self.sanitize and self._freed is None:
                from gpusim.check.memcheck import FreedMemory
                self._freed = FreedMemory()
                self.mem.listeners.append(self._freed)

    @property
    def clock_mhz(self) -> float:
        return float(self.gpu.clock_mhz)

    def cycles_to_ms(self, cycles: int) -> float:
        return cycles / (self.clock_mhz * 1e3)

    def note_host_op(self, what: str) -> None:
        """Count an operation that runs in numpy on the host (unsimulated)."""
        self.host_ops[what] += 1

    def note_no_time(self) -> None:
        if self.mode == "emulate" and not self._warned_no_time:
            self._warned_no_time = True
            warnings.warn("gpusim.cupy is in emulate mode: kernels take no simulated time, so events read 0 ms "
                          "(gpusim.cupy.set_mode('timing') times them)", stacklevel=4)

    # -- launches ------------------------------------------------------------------------------------
    def launch(self, loaded, kernel, grid, block, args: list, shared_mem: int, stream: int,
               regs_per_thread: int | None):
        """Run ``kernel`` of a loaded module (``loaded``: its emulator and image in this heap) with packed
        arguments; time it in timing mode; keep the record."""
        from gpusim.functional.host import dim3
        timing = self.mode == "timing"
        checker = None
        if self.sanitize:
            from gpusim.check import Checker
            checker = Checker(self.sanitize, freed=self._freed.allocations())
        out = loaded.emulator.launch(kernel.name, grid, block, args, shared_mem=int(shared_mem), record=timing,
                                     regs_per_thread=regs_per_thread, image=loaded.image, checker=checker)
        rec = LaunchRecord(index=len(self.launches), kernel=kernel.name, module=loaded.image.module.source_name,
                           grid=dim3(grid, "grid"), block=dim3(block, "block"), shared_mem=int(shared_mem),
                           stream=stream, start_cycle=self.clock_cycles, mode=self.mode, stats=out.stats)
        if checker is not None:
            rec.sanitizer = checker.report()
            if not rec.sanitizer.ok:
                print(rec.sanitizer.format(), file=sys.stderr)
        if timing:
            from gpusim.timing import simulate
            if self.flush_caches:
                memory, rec.flushed = None, True       # a cold memory system, as gpusim.run has
            else:
                memory = self._persistent_memory()
                memory.start_launch(self.clock_cycles)
            rec.timing = simulate(out.trace, self.gpu, scheduler=self.scheduler, regs_per_thread=regs_per_thread,
                                  memory=memory)
            self.clock_cycles += int(rec.timing.cycles)
        self.launches.append(rec)
        return rec

    def _persistent_memory(self):
        if self._memory is None:
            from gpusim.memory.persistent import PersistentMemory
            from gpusim.memory.system import MemorySystem
            self._memory = PersistentMemory(MemorySystem(self.gpu))
        return self._memory


_current: Session | None = None


def _env_defaults() -> dict:
    mode = os.environ.get("GPUSIM_CUPY_MODE", "timing")
    gpu = os.environ.get("GPUSIM_CUPY_GPU", "h100")
    flush = os.environ.get("GPUSIM_CUPY_FLUSH", "0").lower() in ("1", "true", "yes", "on")
    sanitize = os.environ.get("GPUSIM_CUPY_SANITIZE", "")
    return {"mode": mode, "gpu_name": gpu, "flush_caches": flush, "sanitize": sanitize}


def session() -> Session:
    """The current session (made on first use, from the environment's defaults)."""
    global _current
    if _current is None:
        _current = Session(**_env_defaults())
    return _current


def new_session(**kw) -> Session:
    """Start a fresh device (a new heap, clock and record), keeping the current mode, GPU and flag unless
    given."""
    global _current
    old = _current
    base = _env_defaults() if old is None else {"mode": old.mode, "gpu_name": old.gpu_name,
                                                 "flush_caches": old.flush_caches, "scheduler": old.scheduler,
                                                 "sanitize": old.sanitize}
    base.update({k: v for k, v in kw.items() if v is not None})
    _current = Session(**base)
    return _current


def check_same_session(obj_session: Session, what: str) -> None:
    if obj_session is not session():
        raise LaunchError(f"{what} belongs to an earlier gpusim.cupy session (gpusim.cupy.reset() started a new "
                          f"device); make it again in this one")


def caller_location() -> str:
    """``file:line`` of the user code that called into gpusim.cupy (names allocations in fault messages)."""
    f = sys._getframe(1)
    here = os.path.dirname(os.path.abspath(__file__))
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(here):
        f = f.f_back
    if f is None:
        return "?"
    return f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno}"
