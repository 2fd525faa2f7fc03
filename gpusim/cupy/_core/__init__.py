"""``cupy._core`` of the simulator: the array (:mod:`.core`) and raw kernels and modules (:mod:`.raw`)."""
from gpusim.cupy._core.core import ndarray
from gpusim.cupy._core.raw import RawKernel, RawModule

__all__ = ["ndarray", "RawKernel", "RawModule"]
