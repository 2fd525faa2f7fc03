"""Build hook for ``pip install``: compile the timing model's and memory system's hot modules with Cython where
possible.

The modules stay plain Python (the reference model); their ``.pxd`` files declare the C types for the
compiled build (see ``gpusim/compiled.py``).  Each extension is optional: without a C compiler (or with
``GPUSIM_PURE_PYTHON=1`` at install time) the install succeeds and gpusim runs as plain Python.
"""
import os
import sys

from setuptools import Extension, setup

# The same list as gpusim.compiled.COMPILED_MODULES (tests/timing/test_compiled.py checks).
COMPILED_MODULES = ["gpusim.timing.sm", "gpusim.timing.schedulers", "gpusim.memory.request",
                    "gpusim.memory.cycle_heap", "gpusim.memory.cycle_table", "gpusim.memory.cache",
                    "gpusim.memory.const_cache", "gpusim.memory.interconnect", "gpusim.memory.dram.mapping",
                    "gpusim.memory.dram.controller", "gpusim.memory.system"]

DIRECTIVES = {
    "language_level": 3,
    "annotation_typing": False,   # the .py files' annotations are documentation; the .pxd files hold C types
    "boundscheck": False,         # indices come from the trace and the decoded kernel, checked by the pure path's tests
    "wraparound": False,
    "initializedcheck": False,
}


def ext_modules():
    if os.environ.get("GPUSIM_PURE_PYTHON", "").strip().lower() not in ("", "0", "false", "no"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("gpusim: Cython not available, installing the plain-Python timing model")
        return []
    # No fused multiply-add: the compiled model must round every product as Python does (same numbers).
    flags = [] if sys.platform == "win32" else ["-ffp-contract=off"]
    exts = [Extension(name, [name.replace(".", "/") + ".py"], optional=True, extra_compile_args=flags)
            for name in COMPILED_MODULES]
    try:
        built = cythonize(exts, compiler_directives=DIRECTIVES, quiet=True)
    except Exception as e:     # a .pxd that no longer matches its .py: install the plain-Python model
        print(f"gpusim: Cython could not translate the timing model ({e}); installing it as plain Python")
        return []
    for ext in built:          # cythonize's copies drop ``optional``: without it a missing C compiler fails the install
        ext.optional = True
    return built


setup(ext_modules=ext_modules())
