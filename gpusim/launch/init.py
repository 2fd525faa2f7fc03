"""``gpusim init kernel.cu|.ptx``: a commented starting launch file from the kernel's parameter list.

Every parameter becomes an ``[[args]]`` entry with a guess to check: pointers are arrays (``const``
pointers random inputs, others zero-filled outputs) with a ``shape`` to fill in, integer parameters named
like sizes (``n``, ``width``, ``rows``, ...) become the size parameters of ``[sizes]``, other scalars a
value to set.  The grid follows the size parameters with a 256-thread (1D) or 16x16 (2D) block.
"""
from __future__ import annotations

import re
from pathlib import Path

from gpusim.errors import GpusimError, LaunchFileError
from gpusim.launch.params import KernelParam, cuda_kernels, ptx_params

SIZE_NAMES = re.compile(r"^(n|num\w*|n_?\w+|len|length|size|count|width|height|depth|rows|cols|columns|"
                        r"w|h|d|m|k|nx|ny|nz|dim\w*|N|M|K)$", re.I)
OUTPUT_NAMES = re.compile(r"(out|result|res|dst|dest|sum|hist|bins|^c$|^p$|^y$)", re.I)
SMALL, DEFAULT = 1024, 16384


def kernel_parameters(source: Path, kernel: str | None) -> tuple[str, list[KernelParam]]:
    """(kernel name, parameters) of ``kernel`` (or the only kernel) in a ``.cu`` or ``.ptx`` file."""
    if source.suffix == ".cu":
        from isa.errors import read_text
        found = cuda_kernels(read_text(source))
    elif source.suffix == ".ptx":
        from isa.parser import load_ptx
        module = load_ptx(source, strict=False)
        found = {k.name: ptx_params(k) for k in module.kernels.values()}
    else:
        raise GpusimError(f"{source}: expected a .cu or .ptx file")
    if not found:
        raise GpusimError(f"{source}: no __global__ kernel found")
    if kernel is None:
        if len(found) > 1:
            raise GpusimError(f"{source} has {len(found)} kernels ({', '.join(found)}): pick one with --kernel")
        kernel = next(iter(found))
    if kernel not in found:
        raise GpusimError(f"{source} has no kernel {kernel!r}; it has: {', '.join(found)}")
    return kernel, found[kernel]


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def starting_file(source: Path, kernel: str | None = None) -> str:
    """The text of a starting launch file for ``kernel`` of ``source``."""
    name, params = kernel_parameters(source, kernel)
    ints = [p.name for p in params if not p.pointer and p.dtype and p.dtype[0] in "iu"]
    sizes = [n for n in ints if SIZE_NAMES.match(n)]
    is_ptx = source.suffix == ".ptx"
    size_of = {n: n for n in sizes}
    if not sizes and len(ints) == 1:      # PTX names say nothing: one integer value is likely the size
        size_of, sizes = {ints[0]: "n"}, ["n"]
    lines = [
        f"# Launch file for {source.name}: how `gpusim run {source.name}` launches kernel {name!r}, with which",
        "# inputs, and how `--check` checks the result. Written by `gpusim init`: check every guess marked",
        "# CHECK. Expressions are strings over the size's parameters: + - * / // % ** and cdiv, min, max, ceil,",
        "# floor, log2. The format: programs/README.md, \"Launch files\".",
        "",
        "[program]",
        f"kernel = {_q(name)}",
        'description = ""                 # one line: what the kernel computes',
        'default_size = "small"',
        "",
        "[sizes]                          # named problem sizes (--size NAME); their keys are the parameters",
    ]
    if sizes:
        lines.append("small   = { " + ", ".join(f"{s} = {SMALL if len(sizes) == 1 else 32}" for s in sizes) + " }")
        lines.append("default = { " + ", ".join(f"{s} = {DEFAULT if len(sizes) == 1 else 128}" for s in sizes)
                     + " }")
    else:
        lines.append(f"small   = {{ n = {SMALL} }}        # CHECK: no parameter looked like a size")
        lines.append(f"default = {{ n = {DEFAULT} }}")
    dims = sizes[:2] if sizes else ["n"]
    lines += ["", "[launch]"]
    if len(dims) == 1:
        lines += [f'grid  = ["cdiv({dims[0]}, 256)"]       # CHECK: one thread per element',
                  "block = [256]"]
    else:
        lines += [f'grid  = ["cdiv({dims[0]}, 16)", "cdiv({dims[1]}, 16)"]   # CHECK: one thread per element',
                  "block = [16, 16]"]
    lines += ["shared_mem = 0                   # dynamic shared memory per block in bytes (extern __shared__)",
              "", "# One [[args]] per kernel parameter, in order."]
    elements = " * ".join(sizes) if sizes else "n"
    for p in params:
        lines += ["", "[[args]]", f"name = {_q(p.name)}"]
        dtype = p.dtype or "float32"
        note = "" if p.dtype else f"      # CHECK: {p.ctype or 'this type'} is not a plain number"
        if p.pointer:
            if is_ptx:
                dtype, note = "float32", "      # CHECK: a .u64 parameter: a pointer to what? (or a 64-bit value)"
            lines.append(f"dtype = {_q(dtype)}{note}")
            lines.append(f"shape = [{_q(elements)}]" + " " * max(1, 22 - len(elements)) +
                         "# CHECK: how many elements it points to")
            output = OUTPUT_NAMES.search(p.name) and "const" not in p.ctype
            if output:
                lines.append('fill = "zeros"                   # an output (if the kernel also reads it, fill it)')
            elif dtype[0] == "f":
                lines += ['fill = "uniform"                 # uniform (low, high) | normal (mean, std) | '
                          'integers (low, high)', "low = 0.0", "high = 1.0"]
            else:
                lines += ['fill = "integers"                # [low, high)', "low = 0", "high = 100"]
        elif p.name in size_of:
            lines += [f"dtype = {_q(dtype)}", f"value = {_q(size_of[p.name])}  # the size parameter"
                      + ("" if size_of[p.name] == p.name else " (CHECK)")]
        else:
            value = "1.0" if dtype[0] == "f" else "1"
            lines += [f"dtype = {_q(dtype)}{note}", f"value = {value}" + " " * 24 + "# CHECK: a number or an expression"]
    lines += [
        "",
        "# [symbols.NAME]                 # __constant__ / __device__ contents: dtype, shape, fill as for an array",
        "",
        "# [reference]                    # for `gpusim run --check`: numpy code from the maths, not from the CUDA",
        f'# function = "{source.stem}_ref.py:reference"  # def reference(inputs, params): return {{"out": expected}}',
        '# tolerance = "exact"            # or { rtol = 1e-5, atol = 1e-6 } for float sums in another order',
        '# why = "one line: why exact, or why this tolerance"',
        "",
    ]
    return "\n".join(_align(line) for line in lines)


def _align(line: str) -> str:
    """Comments after code start in column 34 (the generated code holds no '#' of its own)."""
    code, hash_, comment = line.partition("#")
    if not hash_ or not code.strip():
        return line
    return f"{code.rstrip():<32} # {comment.strip()}"


def write_starting_file(source: Path, kernel: str | None = None, output: Path | None = None) -> Path:
    """Write :func:`starting_file` to ``output`` (default ``<source stem>.toml`` beside it); refuses to
    overwrite an existing file."""
    source = Path(source)
    if not source.is_file():
        raise GpusimError(f"{source}: no such file")
    out = Path(output) if output else source.with_suffix(".toml")
    if out.exists():
        raise LaunchFileError(f"{out} exists: edit it, or remove it to start again (gpusim init does not "
                              f"overwrite)")
    out.write_text(starting_file(source, kernel))
    return out
