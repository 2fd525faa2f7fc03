"""CUDA C front end: compile ``.cu`` to PTX through NVRTC and read per-kernel register counts.

* :func:`compile_cuda` -> :class:`CompiledModule` (``pip install -e .[cuda]``; no GPU needed).
* :func:`kernel_resources` reads registers / static shared memory from a cubin (pure Python).
* :func:`ptxas_resources` runs ``ptxas -v`` when the CUDA toolkit is installed.
"""
from gpusim.cuda.cubin import KernelResources, kernel_resources
from gpusim.cuda.nvrtc import CompiledModule, CompileError, cache_dir, compile_cuda, nvrtc_version
from gpusim.cuda.ptxas import find_ptxas, parse_ptxas_verbose, ptxas_resources, ptxas_version

__all__ = ["compile_cuda", "CompiledModule", "CompileError", "cache_dir", "nvrtc_version",
           "KernelResources", "kernel_resources", "ptxas_resources", "parse_ptxas_verbose", "find_ptxas",
           "ptxas_version"]
