"""Build hook for ``pip install``: compile the timing model's hot modules with Cython where possible.

The modules stay plain Python (the reference model); their ``.pxd`` files declare the C types for the
compiled build (see ``gpusim/compiled.py``).  Each extension is optional: without a C compiler (or with
``GPUSIM_PURE_PYTHON=1`` at install time) the install succeeds and gpusim runs as plain Python.
"""
import os

from setuptools import Extension, setup

# The same list as gpusim.compiled.COMPILED_MODULES (tests/timing/test_compiled.py checks).
COMPILED_MODULES = ["gpusim.timing.sm", "gpusim.timing.schedulers"]

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
    exts = [Extension(name, [name.replace(".", "/") + ".py"], optional=True) for name in COMPILED_MODULES]
    try:
        built = cythonize(exts, compiler_directives=DIRECTIVES, quiet=True)
    except Exception as e:     # a .pxd that no longer matches its .py: install the plain-Python model
        print(f"gpusim: Cython could not translate the timing model ({e}); installing it as plain Python")
        return []
    for ext in built:          # cythonize's copies drop ``optional``: without it a missing C compiler fails the install
        ext.optional = True
    return built


setup(ext_modules=ext_modules())
