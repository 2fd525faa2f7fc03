"""The device, as ``cupy.cuda.device``: one simulated GPU (device 0) with the preset's properties."""
from __future__ import annotations

from gpusim.errors import GpusimError


class Device:
    """``cupy.cuda.Device``: device 0, the session's simulated GPU."""

    def __init__(self, device=None):
        device = 0 if device is None else int(device)
        if device != 0:
            raise GpusimError(f"gpusim.cupy simulates one GPU (device 0); device {device} does not exist")
        self.id = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def use(self) -> None:
        pass

    def synchronize(self) -> None:
        """Launches have run when they return (see :mod:`gpusim.cupy.cuda.stream`)."""

    @property
    def compute_capability(self) -> str:
        """"90": the simulator runs PTX for compute_90 whatever the preset."""
        return "90"

    @property
    def attributes(self) -> dict:
        from gpusim.cupy.cuda import runtime
        p = runtime.getDeviceProperties(0)
        return {"MultiProcessorCount": p["multiProcessorCount"], "ClockRate": p["clockRate"],
                "MaxThreadsPerBlock": p["maxThreadsPerBlock"], "WarpSize": p["warpSize"],
                "MaxSharedMemoryPerBlock": p["sharedMemPerBlock"], "L2CacheSize": p["l2CacheSize"]}

    def __int__(self) -> int:
        return 0

    def __eq__(self, other) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "<CUDA Device 0 (gpusim)>"
