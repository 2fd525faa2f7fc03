"""Rebuild the checked-in PTX of the bug corpus, exactly as ``programs/regenerate.py`` builds the bundled
programs' (the same nvcc command line and ``.file`` normalisation, from the repository root).

    python programs/bugs/regenerate.py            # rebuild every programs/bugs/<kernel>.ptx (nvcc 13.0)
    python programs/bugs/regenerate.py --check    # rebuild into a temporary folder and report differences

i.e. ``nvcc -arch=compute_90 -ptx -lineinfo -o programs/bugs/<kernel>.ptx programs/bugs/<kernel>.cu``.
The corpus's kernels are not in ``programs/registers.json``: they are not bundled programs.
"""
from __future__ import annotations

import argparse
import difflib
import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _programs_regenerate():
    spec = importlib.util.spec_from_file_location("programs_regenerate", HERE.parent / "regenerate.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def regenerate(dest: Path) -> list[Path]:
    if shutil.which("nvcc") is None:
        raise SystemExit("nvcc is not on the PATH: install the CUDA toolkit (13.0) to regenerate")
    build_ptx = _programs_regenerate().build_ptx
    written = []
    for cu in sorted(HERE.glob("*.cu")):
        out = dest / (cu.stem + ".ptx")
        build_ptx(cu, out)
        written.append(out)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="report differences instead of overwriting")
    args = ap.parse_args(argv)
    if not args.check:
        for p in regenerate(HERE):
            print("wrote", p.relative_to(HERE.parent.parent))
        return 0
    regen = _programs_regenerate()
    with tempfile.TemporaryDirectory() as tmp:
        differ = 0
        for p in regenerate(Path(tmp)):
            old = (HERE / p.name).read_text() if (HERE / p.name).exists() else ""
            if regen.without_debug_strings(old) != regen.without_debug_strings(p.read_text()):
                differ += 1
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), p.read_text().splitlines(True),
                                                           f"programs/bugs/{p.name}", "regenerated", n=1))
        print(f"{differ} file(s) differ")
        return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
