"""The few ``cupy.cuda.runtime`` calls programs make, answered from the session's GPU preset."""
from __future__ import annotations

from gpusim.cupy import _session


def getDeviceCount() -> int:
    return 1


def getDevice() -> int:
    return 0


def setDevice(device: int) -> None:
    from gpusim.cupy.cuda.device import Device
    Device(device)


def deviceSynchronize() -> None:
    """Launches have run when they return."""


def getDeviceProperties(device: int) -> dict:
    """``cudaGetDeviceProperties`` fields from the preset (``clockRate`` in kHz, as CUDA gives it)."""
    g = _session.session().gpu
    return {"name": f"gpusim {g.name}".encode(), "multiProcessorCount": g.sm.count,
            "clockRate": int(g.clock_mhz * 1000), "maxThreadsPerBlock": g.sm.max_threads_per_block,
            "maxThreadsPerMultiProcessor": g.sm.max_threads, "warpSize": g.sm.warp_size,
            "sharedMemPerBlock": g.sm.shared_bytes_per_block,
            "sharedMemPerBlockOptin": g.sm.shared_bytes_per_block_optin,
            "sharedMemPerMultiprocessor": g.sm.shared_bytes_per_sm, "regsPerMultiprocessor": g.sm.registers,
            "l2CacheSize": g.memory.l2.size_bytes, "major": 9, "minor": 0}
