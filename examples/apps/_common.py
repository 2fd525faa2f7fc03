"""What the example apps share: timing kernels with CUDA events, digests of outputs, the command line.

Nothing here imports CuPy: each app chooses ``cupy`` or ``gpusim.cupy`` in its first lines and hands the
module over, so the same code runs on the GPU and on the simulator.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


class KernelTimer:
    """Launches kernels between two CUDA events and sums their elapsed times per kernel name.

    On the GPU an event pair measures the kernel as the stream ran it; on the simulator it is the simulated
    time at the preset's clock.  The events are read once, at :meth:`times_ms`, so timing adds no
    synchronisation between launches."""

    def __init__(self, cupy):
        self.cupy = cupy
        self.pairs: list[tuple[str, object, object]] = []

    def launch(self, name: str, kernel, grid, block, args, shared_mem: int = 0) -> None:
        start, end = self.cupy.cuda.Event(), self.cupy.cuda.Event()
        start.record()
        kernel(grid, block, args, shared_mem=shared_mem)
        end.record()
        self.pairs.append((name, start, end))

    def times_ms(self) -> dict:
        """{kernel: {"launches": n, "total_ms": t}} over every launch so far."""
        out: dict = {}
        if self.pairs:
            self.pairs[-1][2].synchronize()
        for name, start, end in self.pairs:
            d = out.setdefault(name, {"launches": 0, "total_ms": 0.0})
            d["launches"] += 1
            d["total_ms"] += float(self.cupy.cuda.get_elapsed_time(start, end))
        return out


def digest(a: np.ndarray) -> str:
    """SHA-256 of an array's dtype, shape and bytes (C order, little-endian)."""
    a = np.ascontiguousarray(a)
    h = hashlib.sha256(f"{a.dtype.str}{a.shape}".encode())
    h.update(a.tobytes())
    return h.hexdigest()


def parser(doc: str, sizes: dict) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    p.add_argument("--size", default="small", choices=sorted(sizes), help="problem size (default small)")
    p.add_argument("--sim", action="store_true", help="run on gpusim (import gpusim.cupy as cupy)")
    p.add_argument("--json", metavar="PATH", help="also write the outputs' digests and kernel times as JSON")
    return p


def finish(app: str, size: str, params: dict, outputs: dict, timer: KernelTimer, backend: str,
           json_path: str | None) -> dict:
    """Print the per-kernel times and the outputs' digests; write them as JSON when asked."""
    times = timer.times_ms()
    result = {"app": app, "size": size, "params": params, "backend": backend,
              "outputs": {k: {"sha256": digest(v), "dtype": str(v.dtype), "shape": list(v.shape),
                              "sum": float(np.asarray(v, dtype=np.float64).sum())} for k, v in outputs.items()},
              "kernels": times}
    print(f"{app} ({size}: {', '.join(f'{k}={v}' for k, v in params.items())}) on {backend}")
    for name, t in times.items():
        print(f"  {name:<18} {t['launches']:>5} launches  {t['total_ms'] * 1e3:>10.2f} us")
    for k, o in result["outputs"].items():
        print(f"  output {k}: sha256 {o['sha256'][:16]}  sum {o['sum']:.6g}")
    if json_path:
        Path(json_path).write_text(json.dumps(result, indent=1))
    return result


def backend_name(cupy) -> str:
    return "gpusim" if cupy.__name__.startswith("gpusim") else "cupy"


def want_sim(argv=None) -> bool:
    """The import switch: ``--sim`` on the command line or ``GPUSIM_CUPY=1`` in the environment."""
    import os
    argv = sys.argv if argv is None else argv
    return "--sim" in argv or os.environ.get("GPUSIM_CUPY", "") not in ("", "0")
