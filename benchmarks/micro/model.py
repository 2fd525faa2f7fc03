"""The model's side of the microbenchmarks' compare scripts: a preset with fields replaced from the command line."""
from __future__ import annotations

import ast


def gpu_with(preset: str, sets: list[str]):
    """``preset`` with ``KEY=VALUE`` fields replaced (dotted paths under the GPU config, e.g.
    ``memory.l2.dirty_limit_bytes=0``); a value is read as a Python literal where it is one, else as text."""
    from gpusim.config import load_gpu
    overrides = {}
    for item in sets:
        key, _, value = item.partition("=")
        try:
            overrides[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            overrides[key.strip()] = value.strip()
    return load_gpu(preset, overrides or None)
