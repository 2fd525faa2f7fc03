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


def compare_args(argv, doc: str, subset: int, example: str):
    """The compare scripts' command line: ``--all`` (every case, else a subset of ``subset``), ``--gpu`` and
    repeatable ``--set KEY=VALUE``; returns the parsed arguments and the preset with the fields replaced."""
    import argparse
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--all", action="store_true", help=f"every case of the record (default: a subset of {subset})")
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help=f"a preset field to change, e.g. {example} (repeatable)")
    a = ap.parse_args(argv)
    return a, gpu_with(a.gpu, a.set)


def print_mean_error(errs: list[float]) -> None:
    """The last line of a compare script: the mean absolute cycle error over its cases."""
    print(f"mean absolute cycle error {100 * sum(errs) / len(errs):.1f}% ({len(errs)} cases)")
