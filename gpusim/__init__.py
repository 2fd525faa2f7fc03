"""gpusim: a cycle-approximate GPU architecture simulator.

``gpusim.run(source, kernel=..., grid=..., block=..., args=[...], mode="emulate"|"timing")`` runs a kernel
(PTX or CUDA C) on a modelled GPU; see :mod:`gpusim.api`.
"""
from gpusim.compiled import select_implementation

select_implementation()    # compiled timing-model modules, or plain Python (gpusim/compiled.py)

from gpusim.api import RunResult, load_module, run  # noqa: E402

__version__ = "0.1.0"

__all__ = ["run", "load_module", "RunResult", "__version__"]
