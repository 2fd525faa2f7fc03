"""gpusim: a cycle-approximate GPU architecture simulator.

``gpusim.run(source, kernel=..., grid=..., block=..., args=[...], mode="emulate"|"timing")`` runs a kernel
(PTX or CUDA C) on a modelled GPU; see :mod:`gpusim.api`.
"""
__version__ = "0.1.0"

__all__ = ["run", "load_module", "__version__"]


def __getattr__(name):
    # imported lazily so that `isa` (which uses gpusim.errors) can be imported without the whole simulator
    if name in ("run", "load_module", "RunResult"):
        from gpusim import api
        return getattr(api, name)
    raise AttributeError(f"module 'gpusim' has no attribute {name!r}")
