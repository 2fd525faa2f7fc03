"""The bug corpus: small CUDA kernels with planted bugs, each with a fixed twin, and the manifest saying
what was planted where (``bugs.toml``).  See ``programs/bugs/README.md``.

    from programs import bugs
    for b in bugs.manifest():          # one dict per planted bug, in manifest order
        b["name"], b["fixed"], b["tool"], b["kind"], b["lines"]
    bugs.kernels()                      # every kernel of the corpus: the buggy ones and their fixed twins
    bugs.path("race_scan_war", ".cu")   # programs/bugs/race_scan_war.cu
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "bugs.toml"

TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")


@lru_cache(maxsize=1)
def _manifest() -> tuple[dict, ...]:
    return tuple(tomllib.loads(MANIFEST.read_text())["bug"])


def manifest() -> list[dict]:
    """The planted bugs, in manifest order (copies: callers may modify them)."""
    return [dict(b) for b in _manifest()]


def get(name: str) -> dict:
    """The manifest entry of bug ``name``."""
    for b in _manifest():
        if b["name"] == name:
            return dict(b)
    raise KeyError(f"no planted bug {name!r} in {MANIFEST.name}")


def kernels() -> list[str]:
    """Every kernel of the corpus, each buggy kernel followed by its fixed twin."""
    return [k for b in _manifest() for k in (b["name"], b["fixed"])]


def path(kernel: str, suffix: str) -> Path:
    """``programs/bugs/<kernel><suffix>`` (suffix ``.cu``, ``.ptx`` or ``.toml``)."""
    return HERE / f"{kernel}{suffix}"


def host_setup(kernel: str) -> dict:
    """The host-side setup of a kernel's launch beyond its launch file: ``{"uninitialised": [arg names],
    "freed": [arg names]}`` (``bugs.toml``'s ``host`` for a buggy kernel, ``fixed_host`` for its twin;
    by default the fixed twin has the same setup minus ``freed``)."""
    for b in _manifest():
        if kernel == b["name"]:
            return dict(b.get("host", {}))
        if kernel == b["fixed"]:
            if "fixed_host" in b:
                return dict(b["fixed_host"])
            return {k: v for k, v in b.get("host", {}).items() if k != "freed"}
    raise KeyError(f"no kernel {kernel!r} in {MANIFEST.name}")
