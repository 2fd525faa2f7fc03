"""Builders shared by the memory tests: a hand-made KernelTrace with one warp and given memory accesses, and
the requests the LSU front end makes of it."""
import numpy as np

from gpusim.functional.trace import KernelTrace, StaticInstr
from gpusim.timing.lsu import LsuFrontEnd
from isa.units import MemSpace


def make_trace(accesses):
    """``accesses``: list of (space, addresses[32] or None-padded list, dict of StaticInstr fields).
    One warp executes them in order, one memory slot per access, each at its own PC."""
    instrs, addrs, spaces = [], [], []
    for pc, (space, addr, fields) in enumerate(accesses):
        f = {"access_bytes": 4, "is_load": True}
        f.update(fields)
        opcode = f.pop("opcode", f"ld.{space}")
        instrs.append(StaticInstr(pc=pc, opcode=opcode, unit="lsu", latency_class="global",
                                  mem_space=space, **f))
        a = np.full(32, -1, dtype=np.int64)
        a[:len(addr)] = addr
        addrs.append(a)
        spaces.append(MemSpace(space).code)
    n = len(accesses)
    return KernelTrace(
        kernel="probe", grid=(1, 1, 1), block=(32, 1, 1), shared_bytes=0, regs_per_thread=None,
        instructions=instrs, warp_block=np.zeros(1, np.int32), warp_in_block=np.zeros(1, np.int32),
        warp_start=np.array([0, n], np.int64), pc=np.arange(n, dtype=np.int32),
        active_mask=np.full(n, 0xFFFFFFFF, np.uint32), exec_mask=np.full(n, 0xFFFFFFFF, np.uint32),
        mem_slot=np.arange(n, dtype=np.int32), addresses=np.stack(addrs), mem_space=np.array(spaces, np.uint8))


class StandInGpu:
    """The attributes of GpuConfig the memory system reads."""

    def __init__(self, memory, sm_count=4, clock_mhz=1590.0):
        self.memory = memory
        self.clock_mhz = clock_mhz

        class _Sm:
            count = sm_count
        self.sm = _Sm()


def prepare(ms, trace, lsu=None):
    """What ``simulate`` does before the first cycle: the LSU front end (``lsu``, or a new one) builds the
    requests of ``trace`` and the memory system ``ms`` begins the kernel.  Returns the requests by slot."""
    requests = (lsu or LsuFrontEnd(ms.gpu)).requests(trace)
    ms.begin(requests)
    return requests
