"""Rebuild the checked-in PTX of every bundled program and the register counts in their launch files,
reproducibly.

    python programs/regenerate.py            # rebuild everything (needs nvcc and ptxas, CUDA 13.0)
    python programs/regenerate.py --check    # rebuild into a temporary folder and report differences

For each ``programs/<name>.cu`` it runs exactly

    nvcc -arch=compute_90 -ptx -lineinfo -o programs/<name>.ptx programs/<name>.cu

(nvcc's default -O3; ``-lineinfo`` makes the ``.loc`` directives carry CUDA line numbers), from the repository
root.  nvcc writes the absolute path of the source into the ``.file`` directive; that one line is rewritten
to the bare file name (``.file 1 "vector_add.cu"``: the source sits next to the PTX), so the output does not
depend on where the repository is checked out.  Then it assembles every ``.ptx`` (generated and
hand-written) with ``ptxas -arch=sm_90 -v`` and writes the registers per thread of each kernel into the
``registers = ...`` line of its launch file's ``[program]`` table (``registers = 12``, or ``registers = {
matmul_tiled_16 = 32, matmul_tiled_32 = 32 }`` for a program of several kernels), so a launch file only
changes when a number does.

The validation corpus, ``programs/suites/<suite>/<name>.cu``, is built the same way but from a fixed staging
folder (:func:`build_corpus_ptx`), and each launch file there gets the registers of its own PTX (two suites
may name a kernel alike).
"""
from __future__ import annotations

import argparse
import difflib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ARCH_PTX = "compute_90"
ARCH_SASS = "sm_90"


def nvcc_command(cu: Path, ptx: Path) -> list[str]:
    """The one nvcc command line used for every program (paths relative to the repository root)."""
    return ["nvcc", f"-arch={ARCH_PTX}", "-ptx", "-lineinfo", "-o", str(ptx), str(cu)]


_FILE_DIRECTIVE = re.compile(r'^(\s*\.file\s+\d+\s+)"([^"]*)"', re.MULTILINE)


def normalise_file_directives(ptx: str) -> str:
    """Replace each ``.file N "path"`` with ``.file N "basename"`` (see the module docstring)."""
    return _FILE_DIRECTIVE.sub(lambda m: f'{m.group(1)}"{Path(m.group(2)).name}"', ptx)


_DEBUG_STR = re.compile(r"^\s*\.section\s+\.debug_str\s*\{.*?^\s*\}", re.MULTILINE | re.DOTALL)


def without_debug_strings(ptx: str) -> str:
    """The PTX with its ``.debug_str`` section removed. That section only names the inlined functions for
    ``inlined_at`` line info, and nvcc mangles those names with a hash of the source's absolute path, so it
    differs between two checkouts of the same repository while the code does not."""
    return _DEBUG_STR.sub("", ptx)


def build_ptx(cu: Path, out: Path) -> None:
    """Compile one ``.cu`` to ``out`` with :func:`nvcc_command`, run from the repository root when ``cu`` is
    inside it, then normalise the ``.file`` directive."""
    cu = cu.resolve()
    cwd = ROOT if cu.is_relative_to(ROOT) else cu.parent
    subprocess.run(nvcc_command(cu.relative_to(cwd), out.resolve()), cwd=cwd, check=True)
    out.write_text(normalise_file_directives(out.read_text()))


STAGE = Path("/tmp/gpusim-regenerate")


def build_corpus_ptx(cu: Path, out: Path) -> None:
    """:func:`build_ptx` for a corpus kernel, compiled where its PTX does not depend on the checkout.

    nvcc's output depends on the absolute path of the source: the hash in its internal names (the
    ``.debug_str`` section, which ``--check`` ignores) and, for some kernels, the code itself (its front end
    derives a module id from the path; the SHOC md5hash kernel's local-memory code changes with it).  So the
    source is copied to the fixed folder ``STAGE/<its path relative to the repository root>`` and compiled
    there, under a lock.  The bundled programs keep :func:`build_ptx`: their H100 records are keyed by the
    digests of their PTX files."""
    import fcntl
    rel = cu.resolve().relative_to(ROOT)
    STAGE.mkdir(parents=True, exist_ok=True)
    with open(STAGE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        staged = STAGE / rel
        staged.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(cu, staged)
        subprocess.run(nvcc_command(rel, rel.with_suffix(".ptx")), cwd=STAGE, check=True)
        ptx = staged.with_suffix(".ptx").read_text()
    out.write_text(normalise_file_directives(ptx))


def registers_table(ptx_files: list[Path]) -> dict[str, int]:
    """``{kernel: registers per thread}`` from ``ptxas -v`` for all ``ptx_files``."""
    sys.path.insert(0, str(ROOT))
    from gpusim.cuda.ptxas import ptxas_resources

    table = {}
    for ptx in ptx_files:
        for kernel, res in ptxas_resources(ptx, arch=ARCH_SASS).items():
            if kernel in table:
                raise SystemExit(f"kernel name {kernel!r} appears in two programs ({ptx.name})")
            table[kernel] = res.registers
    return dict(sorted(table.items()))


_REGISTERS_LINE = re.compile(r"^registers\s*=.*?(?=\s*#|$)", re.MULTILINE)


def with_registers(toml_text: str, kernels: list[str], table: dict[str, int]) -> str:
    """The launch file's text with its ``registers = ...`` line set from ``table`` for ``kernels``."""
    if len(kernels) == 1:
        value = str(table[kernels[0]])
    else:
        value = "{ " + ", ".join(f"{k} = {table[k]}" for k in kernels) + " }"
    if not _REGISTERS_LINE.search(toml_text):
        raise SystemExit("a launch file without a registers line in [program]")
    return _REGISTERS_LINE.sub(f"registers = {value}", toml_text, count=1)


def regenerate(dest: Path) -> list[Path]:
    """Write every generated ``.ptx`` and every launch file with its register counts into ``dest``; return
    the files written."""
    for tool in ("nvcc", "ptxas"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not on the PATH: install the CUDA toolkit (13.0) to regenerate")
    sys.path.insert(0, str(ROOT))
    import programs
    written = []
    for cu in sorted(HERE.glob("*.cu")):
        out = dest / (cu.stem + ".ptx")
        build_ptx(cu, out)
        written.append(out)
    hand_written = [p for p in sorted(HERE.glob("*.ptx")) if not (HERE / (p.stem + ".cu")).exists()]
    table = registers_table(sorted(written + hand_written, key=lambda p: p.name))
    tomls = []
    for name in programs.names():
        spec = programs.get(name)
        out = dest / f"{name}.toml"
        out.write_text(with_registers(spec.path.read_text(), list(spec.kernels), table))
        tomls.append(out)
    for _, spec in programs.suite_specs():
        rel = spec.path.relative_to(HERE)
        ptx = spec.ptx_path                       # a hand-written corpus PTX is only assembled
        if spec.cu_path is not None:
            ptx = dest / rel.with_suffix(".ptx")
            ptx.parent.mkdir(parents=True, exist_ok=True)
            build_corpus_ptx(spec.cu_path, ptx)
            written.append(ptx)
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(with_registers(spec.path.read_text(), list(spec.kernels), registers_table([ptx])))
        tomls.append(out)
    return written + tomls


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="report differences instead of overwriting")
    args = ap.parse_args(argv)
    if not args.check:
        for path in regenerate(HERE):
            print("wrote", path.relative_to(ROOT))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        differ = 0
        for path in regenerate(Path(tmp)):
            rel = path.relative_to(tmp)
            old = (HERE / rel).read_text() if (HERE / rel).exists() else ""
            if without_debug_strings(old) != without_debug_strings(path.read_text()):
                differ += 1
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), path.read_text().splitlines(True),
                                                           f"programs/{rel}", "regenerated", n=1))
        print(f"{differ} file(s) differ")
        return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
