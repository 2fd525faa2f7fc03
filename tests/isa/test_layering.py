"""The ISA is the bottom layer: importing all of it loads nothing of gpusim."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_isa_imports_no_gpusim_module():
    code = ("import pkgutil, importlib, sys, isa\n"
            "for m in pkgutil.iter_modules(isa.__path__): importlib.import_module('isa.' + m.name)\n"
            "print(sorted(n for n in sys.modules if n == 'gpusim' or n.startswith('gpusim.')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_isa_error_derives_from_the_isa_base():
    from isa import errors
    classes = [v for v in vars(errors).values() if isinstance(v, type) and issubclass(v, Exception)]
    assert errors.IsaError in classes and all(issubclass(c, errors.IsaError) for c in classes)
