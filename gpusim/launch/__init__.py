"""Launch files: any kernel from the command line.

A launch file (TOML, ``kernel.toml`` beside ``kernel.cu``/``kernel.ptx``) names the grid and block (or how
they follow from named sizes), each kernel argument (random, zeros, a range, a ``.npy`` file, a python
function; scalars), optional ``__constant__`` contents and an optional numpy reference with its tolerance.
The bundled programs (``programs/*.toml``) and the validation suites (``programs/suites/<suite>/*.toml``)
are launch files too.  Format: ``programs/README.md``, "Launch files".

    from gpusim.launch import load, find
    spec = load("gemm.toml")             # a LaunchSpec; LaunchFileError names the file, table and key
    spec = load(find("gemm.cu"))         # the launch file beside a kernel (find: None when there is none)
"""
from gpusim.launch.params import check_args, cuda_kernels, ptx_params, resolve_kernel
from gpusim.launch.reader import find, load
from gpusim.launch.spec import CheckResult, Launch, LaunchSpec, Tolerance

__all__ = ["load", "find", "LaunchSpec", "Launch", "Tolerance", "CheckResult", "check_args", "cuda_kernels",
           "ptx_params", "resolve_kernel"]
