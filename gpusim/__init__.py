"""gpusim: a cycle-approximate GPU architecture simulator.

``gpusim.run(source, kernel=..., grid=..., block=..., args=[...], mode="emulate"|"timing")`` runs a kernel
(PTX or CUDA C) on a modelled GPU; see :mod:`gpusim.api`.
"""
from gpusim.api import RunResult, load_module, run

__version__ = "0.1.0"

__all__ = ["run", "load_module", "RunResult", "__version__"]
