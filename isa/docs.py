"""Generate ``isa/README.md`` from the opcode table (:mod:`isa.opcodes`).

``python -m isa.docs`` prints the markdown; ``python -m isa.docs --write`` rewrites ``isa/README.md``.  A test
keeps the checked-in README equal to this output, so the table in code stays the single source of truth.
"""
from __future__ import annotations

import sys
from pathlib import Path

from isa.opcodes import OPCODES, SPECIAL_REGISTERS, VECTOR_SPECIALS, OpSpec

INTRO = """\
# The gpusim ISA: a documented subset of PTX

Generated from `isa/opcodes.py` by `python -m isa.docs` (do not edit by hand; a test checks it).

gpusim reads real PTX (ISA 6.x-9.x syntax, `.target sm_xx`, `.address_size 64`) as NVRTC/nvcc emit it for
`-arch=compute_90`, restricted to the instructions below.  The parser (`isa/parser.py`) decodes every
instruction once, checks operand types against register declarations, resolves labels, lays out variables
and computes each branch's reconvergence point.  Every problem is an `isa.errors.PtxError` (an
`isa.errors.IsaError`) reading `file:line:col: message` (e.g. `matmul.ptx:42:9: unknown opcode
'fma.rz.f16x2'`); in PTX with line information (`.loc`, from `-lineinfo`) it names the CUDA line instead,
`matmul.cu:17: message`, prints that line of the `.cu` file found beside the PTX, and gives the PTX position
below it, as the emulator's errors do (`isa/location.py`).  Directives:
`.version .target .address_size .entry .param .reg .shared .const .global .local .loc .file .maxntid
.reqntid .align`, array initialisers, `.extern .shared` dynamic shared memory.  Device functions (`call`),
textures, surfaces and tensor-core instructions are not supported.

## Registers and types

Registers are declared with `.reg .type %name` or `%name<N>`; `.pred` registers hold one bit, the others
16, 32 or 64 bits (8-bit types live in 16-bit registers).  A register holds raw bits: an instruction views it
as its own type, so `mov.b32 %f1, %r1` is a bit copy and integer types of the same width are
interchangeable.  Integer arithmetic wraps modulo 2^width.  Loads, stores and `cvt` may use a register wider
than the type (sign- or zero-extended by the type).  Immediates: decimal, hex (`0x`), float bits (`0f3F800000`,
`0d...`) and decimal floats.

Special registers (read with `mov`): SPECIALS.

## State spaces and generic addresses

`.global` (the device heap: allocations bounds-checked, an out-of-bounds access raises
`IllegalAddressError` naming kernel, block, thread, PTX line, address and the nearest allocation),
`.shared` (per block), `.local` (per thread), `.const` (64 KB, module variables) and `.param` (kernel
parameters).  Generic addresses (`cvta.<space>`, and `ld`/`st`/`atom` without a space) map every space
into one 64-bit space through fixed windows: global addresses are the heap's own (from `0x7F0000000000`),
shared offset 0 is `0x010000000000`, local `0x020000000000`, const `0x030000000000`, param
`0x040000000000`; `cvta.to.<space>` subtracts the window base.

## Control flow, reconvergence and barriers

A guarded branch (`@%p bra L`, `@!%p bra L`) is evaluated per lane.  When the lanes of a warp disagree, the
warp runs the taken path, then the fall-through path, each with its lanes masked, and the paths
*reconverge at the branch's immediate post-dominator* in the control-flow graph (`isa/cfg.py`; a SIMT
stack as in GPGPU-Sim and pre-Volta hardware).  Branches whose paths only meet at kernel exit reconverge at
exit.  `bra.uni` asserts a uniform branch.  `ret`/`exit` finish the active lanes.

`bar.sync`/`barrier.sync` wait for every non-exited thread of the block.  A barrier that some threads can
never reach (`__syncthreads()` in divergent code) is detected and raised as `BarrierDeadlockError` naming
the block, the warps, their lanes and PCs.  `membar`/`fence` order memory only (the emulator is
sequentially consistent).  A runaway kernel stops at the instruction budget (`BudgetExceededError`).

## Float exactness

f32 `add sub mul` and `div.rn rcp.rn sqrt.rn` are IEEE-754 correctly rounded, bit for bit.  `fma.rn.f32`
(and `mad.f32`, which is fused) rounds once (exact via round-to-odd).  Directed rounding (`.rz .rm .rp`) is
exact for f32 `add sub mul fma` and `cvt`.  `.ftz` flushes subnormal inputs and results to zero of the same
sign.  `.sat` clamps to [0, 1] (NaN -> 0).  f64 `add sub mul div sqrt` are IEEE; **f64 `fma` uses extended
precision (x87 80-bit long double)** and can differ from the GPU by one ulp in rare double-rounding cases;
f64 directed rounding is not modelled (rejected at load).  `div.full.f32` and `div.approx.f32` are within 2
ulp and `rcp/sqrt.approx` within 1 ulp of the exact result (the emulator computes them correctly rounded);
`ex2 lg2 sin cos rsqrt tanh` are approximations of the math function.  `min`/`max` return the non-NaN
operand (`.NaN` propagates NaN).  Float -> int `cvt` saturates, and NaN converts to 0.

## Instructions

Columns: the base opcode, its instruction types, its other modifiers, its operand shape (`d` destination,
`a b c e` sources, `m` memory operand `[addr]`, `p` predicate destination, `i` immediate, `l` label, `?`
optional), its semantics, and how the timing model classifies it: functional unit and latency class (for
types that change it: `int` / `f32` / `f64`).
"""

FAMILY_TITLES = {
    "arithmetic": "Integer and float arithmetic", "logic": "Logic, shifts and bit manipulation",
    "comparison": "Comparison and selection", "move": "Data movement and conversion",
    "memory": "Memory and atomics", "warp": "Warp-level", "control": "Control flow and synchronisation",
}


def _classes(spec: OpSpec) -> tuple[str, str]:
    seen = {}
    for label, t in (("int", "s32"), ("f32", "f32"), ("f64", "f64")):
        if spec.types and t not in spec.types and not (label == "int" and any(x[0] in "subp" for x in spec.types)):
            continue
        u, lat = spec.unit_and_latency(t)
        seen.setdefault((u.value, lat.value), []).append(label)
    if len(seen) == 1:
        (u, lat), = seen
        return u, lat
    units = " / ".join(f"{u} ({', '.join(ls)})" for (u, _), ls in seen.items())
    lats = " / ".join(f"{lat} ({', '.join(ls)})" for (_, lat), ls in seen.items())
    return units, lats


def _cell(items) -> str:
    return " ".join(f"`.{x}`" for x in items) if items else "-"


def generate() -> str:
    specials = ", ".join(f"`{n}`" + (" (`.x .y .z`)" if n in VECTOR_SPECIALS else "")
                         for n in SPECIAL_REGISTERS)
    out = [INTRO.replace("SPECIALS", specials)]
    families: dict[str, list[OpSpec]] = {}
    for spec in OPCODES.values():
        families.setdefault(spec.family, []).append(spec)
    for fam, specs in families.items():
        out.append(f"\n### {FAMILY_TITLES.get(fam, fam)}\n")
        out.append("| opcode | types | modifiers | operands | semantics | unit | latency class |")
        out.append("| --- | --- | --- | --- | --- | --- | --- |")
        for s in specs:
            unit, lat = _classes(s)
            sem = s.semantics.replace("|", "\\|")
            ops = s.operands.replace("|", "\\|") or "-"
            out.append(f"| `{s.name}` | {_cell(s.types)} | {_cell(s.modifiers)} | `{ops}` | {sem} | {unit} | "
                       f"{lat} |")
    out.append("\nMemory instructions take the latency class of their state space: global and local: `global`, "
               "shared: `shared`, const and param: `const`.\n")
    return "\n".join(out)


README = Path(__file__).with_name("README.md")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = generate()
    if "--write" in argv:
        README.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
