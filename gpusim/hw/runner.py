"""Run a program on the real GPU through CuPy: the same PTX, the same seeded inputs, the same launch.

    >>> from gpusim.hw.runner import run_on_gpu
    >>> r = run_on_gpu("matmul_tiled", size="small")        # checked-in PTX through cupy.RawModule
    >>> r.outputs[2], r.time_ms                              # arguments after the launch, median kernel time

``source`` is a bundled program's name or file (``programs/matmul_tiled.cu``: its launch file gives the launch
and inputs), or any ``.ptx``/``.cu`` file with ``kernel``, ``grid``, ``block`` and ``args`` given.
``backend="ptx"`` (default) loads the checked-in PTX (``cupy.RawModule(path=...)``, JIT-compiled by the
driver, which is exactly what the simulator runs); ``backend="nvrtc"`` compiles the ``.cu`` with NVRTC.

Timing: ``warmup`` launches, then ``repeats`` launches each between two CUDA events; ``time_ms`` is the
median.  Each timed launch runs on the *outputs of the previous launch* (inputs are only restored before the
launch whose outputs are returned), so kernels that accumulate (histograms, atomics) return the result of a
single launch on fresh inputs: the returned outputs come from the first launch, before any timing.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpusim.errors import GpusimError, KernelError, LaunchError, ToolMissingError


def _cupy():
    """CuPy and a usable device, or ToolMissingError saying what is missing."""
    try:
        import cupy as cp
    except ImportError as e:
        raise ToolMissingError(
            f"running on a real GPU needs CuPy ({e}); install it with `pip install -e .[gpu]` "
            f"(cupy-cuda13x; cupy-cuda12x for a CUDA 12 driver) on a machine with an NVIDIA GPU") from None
    try:
        n = cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001 - no driver, no device, driver too old
        raise ToolMissingError(f"CuPy is installed but no CUDA GPU is usable: {e}") from None
    if n < 1:
        raise ToolMissingError("CuPy is installed but no CUDA GPU was found")
    return cp


def have_gpu() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    try:
        _cupy()
        return True
    except ToolMissingError:
        return False


@dataclass
class HwResult:
    """What :func:`run_on_gpu` returns."""

    program: str | None
    size: str | None
    kernel: str
    grid: tuple
    block: tuple
    shared_mem: int
    backend: str
    outputs: list                      # every argument after the (first) launch, numpy
    inputs: list                       # the arguments as passed in
    symbols: dict                      # module variables written before the launch
    time_ms: float | None = None       # median of the timed launches
    times_ms: list = field(default_factory=list)
    reference: dict | None = None      # spec.reference(inputs) for bundled programs
    check: object = None               # spec.check(outputs, reference)


def resolve(source, size=None, seed=0, kernel=None, grid=None, block=None, args=None, shared_mem=None,
            symbols=None):
    """(spec, launch parameters, args, symbols) from a program name or file and the overrides."""
    import programs
    spec = None
    if isinstance(source, programs.ProgramSpec):
        spec = source
    else:
        p = Path(str(source))
        try:
            spec = programs.find(p) if (p.suffix or p.exists()) else programs.get(str(source))
        except Exception:  # noqa: BLE001 - not a bundled program
            spec = None
    if spec is not None:
        size = size or spec.default_size
        launch = spec.launch(size)
        kernel = kernel or launch.kernel
        grid = grid or launch.grid
        block = block or launch.block
        shared_mem = launch.shared_mem if shared_mem is None else shared_mem
        if args is None:
            args = spec.make_args(size, seed)
            if symbols is None:
                symbols = spec.make_symbols(size, seed)
    if kernel is None or grid is None or block is None or args is None:
        raise LaunchError(f"{source}: not a bundled program; give kernel, grid, block and args")
    return spec, size, kernel, _dim3(grid), _dim3(block), int(shared_mem or 0), list(args), dict(symbols or {})


def _dim3(d) -> tuple:
    d = tuple(int(x) for x in (d if isinstance(d, (tuple, list)) else (d,)))
    return d + (1,) * (3 - len(d))


_MODULES: dict = {}


def load_module(spec, source, backend: str = "ptx"):
    """A cached ``cupy.RawModule`` of a program's PTX (``backend="ptx"``) or CUDA C (``"nvrtc"``)."""
    cp = _cupy()
    if backend == "ptx":
        path = Path(spec.ptx_path) if spec is not None else Path(str(source))
        if path.suffix != ".ptx":
            path = path.with_suffix(".ptx")
    elif backend == "nvrtc":
        path = Path(spec.cu_path) if spec is not None and spec.cu_path else Path(str(source))
        if path.suffix != ".cu":
            raise LaunchError(f"{source}: backend 'nvrtc' needs CUDA C; this program is PTX only")
    else:
        raise LaunchError(f"backend must be 'ptx' or 'nvrtc', not {backend!r}")
    key = (str(path), backend)
    if key not in _MODULES:
        if not path.exists():
            raise GpusimError(f"{path}: no such file")
        try:
            if backend == "ptx":
                # RawModule(code=...) takes CUDA C; PTX goes in by path (cuModuleLoad JIT-compiles it)
                mod = cp.RawModule(path=str(path))
            else:
                code = path.read_text()
                mod = cp.RawModule(code=code, backend="nvrtc", options=("-std=c++17",))
            mod.compile()
        except Exception as e:  # noqa: BLE001 - CuPy raises several types for compile/JIT errors
            raise KernelError(f"{path.name}: loading the module on the GPU failed: {e}") from None
        _MODULES[key] = mod
    return _MODULES[key]


def _set_symbols(cp, module, symbols: dict, kernel: str) -> None:
    for name, value in symbols.items():
        value = np.ascontiguousarray(value)
        try:
            ptr = module.get_global(name)
        except Exception as e:  # noqa: BLE001
            raise KernelError(f"kernel {kernel}: module variable {name!r} not found on the GPU: {e}") from None
        cp.ndarray(value.shape, value.dtype, memptr=ptr).set(value)


def _device_args(cp, args):
    return [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]


def run_on_gpu(source, size: str | None = None, *, seed: int = 0, kernel=None, grid=None, block=None,
               args=None, symbols=None, shared_mem=None, backend: str = "ptx", warmup: int = 3,
               repeats: int = 20, check: bool = True) -> HwResult:
    """Run a program on the GPU; see the module docstring. ``repeats=0`` skips timing."""
    cp = _cupy()
    spec, size, kernel, grid, block, smem, args, symbols = resolve(
        source, size, seed, kernel, grid, block, args, shared_mem, symbols)
    module = load_module(spec, source, backend)
    try:
        fn = module.get_function(kernel)
    except Exception as e:  # noqa: BLE001
        raise KernelError(f"kernel {kernel}: not found in the module ({e})") from None
    if smem > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = smem
    _set_symbols(cp, module, symbols, kernel)
    inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    dev = _device_args(cp, args)
    try:
        fn(grid, block, tuple(dev), shared_mem=smem)
        cp.cuda.Device().synchronize()
    except Exception as e:  # noqa: BLE001 - cudaErrorIllegalAddress and friends
        raise KernelError(f"kernel {kernel} (grid {grid}, block {block}) failed on the GPU: {e}") from None
    outputs = [cp.asnumpy(a) if isinstance(a, cp.ndarray) else a for a in dev]
    res = HwResult(program=spec.name if spec else None, size=size, kernel=kernel, grid=grid, block=block,
                   shared_mem=smem, backend=backend, outputs=outputs, inputs=inputs, symbols=symbols)
    if repeats > 0:
        # every timed launch starts from the inputs: kernels that update their arguments in place (counters,
        # frontiers, accumulators) would otherwise run on what the previous launch left, or out of bounds
        pristine = [cp.asarray(a) if isinstance(a, np.ndarray) else None for a in inputs]
        res.times_ms = time_kernel(cp, fn, grid, block, dev, smem, warmup, repeats, kernel,
                                   restore=list(zip(dev, pristine)))
        res.time_ms = statistics.median(res.times_ms)
    if spec is not None and check:
        res.reference = spec.reference(inputs, symbols, size)
        res.check = spec.check(outputs, res.reference)
    return res


def time_kernel(cp, fn, grid, block, dev_args, smem, warmup, repeats, kernel="kernel", restore=()) -> list[float]:
    """Per-launch times in ms (CUDA events around each launch) after ``warmup`` untimed launches;
    ``restore``: ``(device array, its initial contents)`` pairs copied back before each launch (untimed)."""
    restore = [(d, p) for d, p in restore if p is not None]

    def reset():
        for d, p in restore:
            cp.copyto(d, p)
    try:
        for _ in range(warmup):
            reset()
            fn(grid, block, tuple(dev_args), shared_mem=smem)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        times = []
        for _ in range(repeats):
            reset()
            start.record()
            fn(grid, block, tuple(dev_args), shared_mem=smem)
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop))
    except Exception as e:  # noqa: BLE001
        raise KernelError(f"kernel {kernel} failed on the GPU while timing: {e}") from None
    return times


def provenance() -> dict:
    """GPU name, SM count, clocks, L2, driver, CUDA runtime, CuPy version, date (UTC) and host."""
    import datetime
    import platform
    cp = _cupy()
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"]
    name = name.decode() if isinstance(name, bytes) else str(name)

    def ver(v):
        return f"{v // 1000}.{(v % 1000) // 10}"
    out = {
        "gpu_name": name,
        "sm_count": int(props["multiProcessorCount"]),
        "compute_capability": f"{props['major']}.{props['minor']}",
        "sm_clock_max_mhz": float(props.get("clockRate", 0)) / 1000.0,
        "mem_clock_max_mhz": float(props.get("memoryClockRate", 0)) / 1000.0,
        "mem_bus_width_bits": int(props.get("memoryBusWidth", 0)),
        "l2_bytes": int(props.get("l2CacheSize", 0)),
        "driver": ver(cp.cuda.runtime.driverGetVersion()),
        "cuda_runtime": ver(cp.cuda.runtime.runtimeGetVersion()),
        "cupy": cp.__version__,
        "numpy": np.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": platform.node(),
    }
    try:
        import subprocess
        q = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.sm,clocks.mem,clocks.max.sm,"
                            "power.limit,pstate", "--format=csv,noheader"], capture_output=True, text=True,
                           timeout=20)
        if q.returncode == 0:
            out["nvidia_smi"] = q.stdout.strip()
    except Exception:  # noqa: BLE001 - provenance is best effort
        pass
    return out
