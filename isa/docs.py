"""Generate ``isa/README.md`` from the opcode table (:mod:`isa.opcodes`).

``python -m isa.docs`` prints the markdown; ``python -m isa.docs --write`` rewrites ``isa/README.md``.  A test
keeps the checked-in README equal to this output, so the table in code stays the single source of truth.
"""
from __future__ import annotations

import sys
from pathlib import Path

from isa.opcodes import OPCODES, PTX_ISA, SPECIAL_REGISTERS, VECTOR_SPECIALS, OpSpec, coverage

INTRO = """\
# The gpusim ISA: PTX

Generated from `isa/opcodes.py` by `python -m isa.docs` (do not edit by hand; a test checks it).

gpusim reads real PTX (ISA 6.x-9.x syntax, `.target sm_xx`, `.address_size 64`) as NVRTC/nvcc emit it for
`-arch=compute_90`.  [Coverage](#coverage-of-the-ptx-isa-90) lists every instruction of the PTX ISA 9.0
manual: COVERAGE.  The parser (`isa/parser.py`) decodes every
instruction once, checks operand types against register declarations, resolves labels, lays out variables
and computes each branch's reconvergence point.  Every problem is an `isa.errors.PtxError` (an
`isa.errors.IsaError`) reading `file:line:col: message` (e.g. `matmul.ptx:42:9: unknown opcode
'fma.rz.f16x2'`); in PTX with line information (`.loc`, from `-lineinfo`) it names the CUDA line instead,
`matmul.cu:17: message`, prints that line of the `.cu` file found beside the PTX, and gives the PTX position
below it, as the emulator's errors do (`isa/location.py`).  Directives:
`.version .target .address_size .entry .func .param .reg .shared .const .global .local .loc .file .maxntid
.reqntid .align .branchtargets .calltargets .callprototype`, array initialisers, `.extern .shared` dynamic
shared memory.  A module loads even when a kernel or function in it uses something gpusim does not support:
the error (naming the construct and its CUDA line) comes when a kernel that needs it is launched.

## Device functions

`.func` with `.param` parameters and return values (scalars, and structs by value as `.b8` arrays), called
with `call (ret), f, (args)` as nvcc emits it (the `{ .param ...; st.param; call; ld.param }` sequence) or
through a function pointer (`call (ret), %rd, (args), prototype;`), recursion, `brx.idx` through a
`.branchtargets` table, and the builtins `vprintf` (device `printf`) and `__assertfail` (a failed `assert`
raises `DeviceTrapError` naming the thread and the CUDA line).  `isa/link.py` lays a kernel's functions out
after it; the lanes of a warp that call, or return on different paths, reconverge at the return address (a
call is a divergent branch for the lanes that do not take it; every `ret` of a function goes to one return
point).  Recursion: up to 1024 nested calls per thread, then `CallDepthError`; a recursive function's
registers, local variables and parameters are saved per activation (a pointer to an outer activation's
local variable sees the innermost one's).

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
parameters; a device function's are per thread).  Generic addresses (`cvta.<space>`, and `ld`/`st`/`atom` without a space) map every space
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
`cp.async` copies at once (its `commit_group`/`wait_group` have nothing left to wait for; the timing model
sees a global load).  `nanosleep` moves on; `%clock`, `%clock64` and `%globaltimer` count the emulator's
steps (they increase, but are not a time).  A launch's blocks are clusters of one block.

## Float exactness

f32 `add sub mul` and `div.rn rcp.rn sqrt.rn` are IEEE-754 correctly rounded, bit for bit.  `fma.rn.f32`
(and `mad.f32`, which is fused) rounds once (exact via round-to-odd), and so does `fma.rn.f64` (Dekker's
exact product, TwoSum, the tail rounded to odd; exact rationals near overflow and underflow).  16-bit floats
(`.f16 .bf16` and the packed `.f16x2 .bf16x2`) are computed in float64 and rounded once.  Directed rounding
(`.rz .rm .rp`) is exact for f32 `add sub mul fma` and `cvt`.  `.ftz` flushes subnormal inputs and results to
zero of the same sign.  `.sat` clamps to [0, 1] (NaN -> 0).  f64 `add sub mul div sqrt fma` are IEEE; f64
directed rounding is not modelled (rejected when the kernel is launched).  The `.approx` functions are
computed to float32 accuracy (correctly rounded or within an ulp), which is inside the bounds the PTX ISA
documents for the GPU's (`div.full.f32`: 2 ulp; `rcp.approx.f32`: 1 ulp; `sqrt.approx.f32`: 2^-23
relative; `rsqrt.approx.f32`: 2^-22.9 relative; `ex2.approx.f32`: 2 ulp; `lg2.approx.f32`: 2^-22.6
absolute; `sin/cos.approx.f32`: 2^-20.5 absolute in [-2pi, 2pi], 2^-14.7 in [-100pi, 100pi], nothing
outside; `tanh.approx.f32`: 2^-10.987 relative); the table below gives the measured distance to the H100's
results.  `min`/`max` return the non-NaN operand (`.NaN` propagates NaN).  Float -> int `cvt` saturates, and
NaN converts to 0.  An f16/bf16 result that is NaN is the canonical 0x7FFF, as the H100 writes it.

**Checked against the H100.** `benchmarks/isa_device.py` ran 58 snippets of edge cases (integer, bit, warp,
video, 16- and 8-bit float instructions), 10 kernels (atomics of every type, 16-bit float min/max atomics,
cp.async, 32-bit address wrap-around, mbarrier, device functions), 15 `.approx` cases and 5 FMA-contraction
kernels through CuPy on an H100 80GB HBM3 (driver 580.159.04, CUDA 13.0, CuPy 14.2.0, SM clock 1980 MHz
max; 2026-11-22); `tests/golden/h100/isa/isa_device.json.gz` keeps the PTX, inputs and outputs, and
`tests/hw/test_isa_device.py` reruns them in the emulator: bit for bit (all 534,272 snippet outputs), except
the order-dependent results of atomics and mbarrier arrivals (compared as multisets).  Where the H100 and a
plain reading of the PTX ISA's pseudo-code differ, gpusim follows the H100: a warp's lanes that run one plain
`mbarrier.arrive` arrive together (each gets the state from before the warp's arrival), and the scalar video
instructions (below).  `st.async`/`red.async` are not checked there: the PTX ISA defines them only in a
cluster of more than one CTA, which a CuPy launch does not make.

**Scalar video instructions** (`vadd vsub vabsdiff vmin vmax vshl vshr vset vmad`) have no hardware of their own
on sm_90: ptxas lowers each to 64-bit integer code, and that code is what the GPU runs, so gpusim follows
it (`scalar_video_lane` in `gpusim/functional/inst_int.py`): a shift's `.sat` and merge see the signed
34-bit intermediate (`-87 << 32` is +2^32: `.sat` gives 0x7FFFFFFF); `.sat` to `.u32` clamps only below
(0xFFFFFFFF + 1 gives 0); `.sat` into a byte or half gives the part's largest value for any result above
it or negative; `d.h1` keeps the result's upper half; the secondary `.min`/`.max` compare at 64 bits, c
extended by d's type (vset: a's), against the exact result of vabsdiff/vmin/vmax and of an unsaturated
shift, and against the low 32 bits sign-extended of vadd/vsub and of a saturated result (so 0 + 0x80000000
is above c = 0xFFFFFFFF for a `.u32` d).  `vmad` is one signed 32 x 32 -> 64-bit multiply-add: a whole
`.u32` word multiplies as `.s32` (a byte or half is extended by its type), c is sign-extended whatever the
types, the sum wraps at 64 bits, `.shr7`/`.shr15` shift all 64 bits (arithmetically when the result is
signed: an `.s32` type or a negation), and `.sat` to `.u32` clamps the 64-bit sum as a signed value
(`vmad.u32.u32.u32.sat` of 0xFFFFFFFF x 2 is 0, not 0xFFFFFFFF; `.shr7` of it is 0xFFFFFFFF); ptxas rejects
-a or -b together with -c, and a negation with `.po`, and so does gpusim.  The H100 record checks these on
148,480 outputs of probes (shift amounts 0..40 and beyond, every operand type, c at the edges and beside the
result) and 344,064 of vmad (every type, `.sat`, `.shr7`/`.shr15`, each negation and `.po`, words and
parts; 16 x 16 edge words, c at the edges and beside minus the product), and
`python benchmarks/video_lowering.py` (needs ptxas and nvdisasm) runs ptxas's lowering of all 6,320 forms
(operation, types, `.sat`, `.add/.min/.max` or `d.sel`, part selectors; vmad's scale, negations and `.po`)
in a small interpreter of the SASS it emits against the emulator: the interpreter gives the H100's bits on
all 504,320 recorded scalar video outputs (344,320 of vmad), and the emulator the interpreter's on 1,264,000
inputs (200 per form).

The `.approx` functions, emulator against the H100 on the same inputs (`python -m pytest -s -q
tests/hw/test_isa_device.py -k approx` prints these rows): the largest absolute and relative difference,
the largest difference in the unit of the PTX ISA bound, and each one's own largest distance from the exact
value (float64) in that unit.  Absolute differences of the wide-range functions are those of huge results;
their relative and ulp columns are the meaningful ones.

| instruction (case) | inputs | n | max abs emu-H100 | max rel emu-H100 | emu-H100 in the bound's unit | H100 vs exact | emulator vs exact | PTX ISA bound |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
| `sin.approx.f32` (sin) | [-pi, pi] | 4096 | 3.28e-07 | 0.000479 | 3.28e-07 abs | 3.25e-07 abs | 5.65e-08 abs | 2^-20.5 abs in [-2pi, 2pi], 2^-14.7 abs in [-100pi, 100pi] |
| `sin.approx.f32` (sin_wide) | [-100pi, 100pi] | 4096 | 3.55e-05 | 0.243 | 3.55e-05 abs | 3.55e-05 abs | 5.14e-08 abs | 2^-20.5 abs in [-2pi, 2pi], 2^-14.7 abs in [-100pi, 100pi] |
| `cos.approx.f32` (cos) | [-pi, pi] | 4096 | 4.02e-07 | 0.000254 | 4.02e-07 abs | 3.97e-07 abs | 6.53e-08 abs | 2^-20.5 abs in [-2pi, 2pi], 2^-14.7 abs in [-100pi, 100pi] |
| `cos.approx.f32` (cos_wide) | [-100pi, 100pi] | 4096 | 3.46e-05 | 0.0166 | 3.46e-05 abs | 3.46e-05 abs | 5.9e-08 abs | 2^-20.5 abs in [-2pi, 2pi], 2^-14.7 abs in [-100pi, 100pi] |
| `ex2.approx.f32` (ex2) | [-126, 127] | 4040 | 5.07e+30 | 2.24e-07 | 2 ulp | 1.79 ulp | 0.949 ulp | 2 ulp |
| `ex2.approx.ftz.f32` (ex2_ftz) | [-140, 127] | 3874 | 5.07e+30 | 2.25e-07 | 2 ulp | 1.81 ulp | 0.947 ulp | 2 ulp |
| `lg2.approx.f32` (lg2) | 2^[-126, 127] | 4096 | 7.63e-06 | 2.29e-05 | 0.98 of the bound | 0.99 of the bound | 0.493 of the bound | 2^-22.6 abs (+ the result's rounding) |
| `rcp.approx.f32` (rcp) | +-2^[-120, 120] | 4096 | 7.92e+28 | 1.19e-07 | 1 ulp | 0.965 ulp | 0.5 ulp | 1 ulp |
| `rcp.approx.ftz.f64` (rcp_f64) | 2^[-1000, 1000] | 4096 | 2.66e+294 | 8.99e-07 | 8.99e-07 rel | 8.99e-07 rel | 0 rel | 2^-20 rel (as tested) |
| `rsqrt.approx.f32` (rsqrt) | 2^[-120, 120] | 4096 | 6.87e+10 | 1.7e-07 | 1.7e-07 rel | 1.07e-07 rel | 8.73e-08 rel | 2^-22.9 rel |
| `rsqrt.approx.ftz.f64` (rsqrt_f64) | 2^[-1000, 1000] | 4096 | 5.55e+143 | 8.29e-07 | 8.29e-07 rel | 8.29e-07 rel | 0 rel | 2^-20 rel (as tested) |
| `sqrt.approx.f32` (sqrt) | 2^[-120, 120] | 4096 | 6.87e+10 | 1.19e-07 | 1.19e-07 rel | 9.33e-08 rel | 5.91e-08 rel | 2^-23 rel |
| `tanh.approx.f32` (tanh) | [-10, 10] | 4096 | 7.27e-06 | 1.02e-05 | 1.02e-05 rel | 1.02e-05 rel | 9.32e-08 rel | 2^-10.987 rel |
| `div.approx.f32` (div_approx) | [-1e6, 1e6] / +-2^[-100, 100] | 4096 | 3.96e+28 | 1.43e-07 | 2 ulp | 1.51 ulp | 0.5 ulp | 2 ulp |
| `div.full.f32` (div_full) | [-1e6, 1e6] / +-2^[-100, 100] | 4096 | 7.92e+28 | 1.36e-07 | 2 ulp | 1.64 ulp | 0.5 ulp | 2 ulp |

**FMA contraction.** As ptxas does by default (`nvcc --fmad=true`), a `mul.f32`/`mul.f64` without a rounding
modifier whose every use is an `add`/`sub` (also without one) in the same basic block is fused into each of
them (`isa/contract.py`, which gives the rule learnt from ptxas's SASS): results are rounded once, as on the
GPU, and the timing model sees one FFMA.  `gpusim run --fmad=false` / `gpusim.run(..., fmad=False)` keeps them
apart, as `nvcc --fmad=false`.

**If-conversion.** As ptxas does at `-O3`, a forward `@p bra` over at most 7 arithmetic instructions (a
triangle), or an if/else of at most 6 on each side (a diamond), becomes the same instructions guarded by the
predicate (`isa/ifconvert.py`, rule learnt from ptxas 13.0's sm_90 SASS; a block with a memory access keeps
its branch): no branch, no divergence, every lane issues the guarded instructions.  Of the bundled and suite
programs, 15 branches in 4 kernels are converted (mri_q's sinf/cosf quadrant fix-ups, cutcp, black_scholes,
s3d); no lecture program has one.

**32-bit addresses** (a `.shared` address in a `.u32` register, `[%r5+64]`) wrap modulo 2^32 as on the GPU.

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


def coverage_table() -> tuple[list[str], int, int]:
    """The rows of the coverage table and the counts (supported, out of scope)."""
    rows = ["| section | instruction | status | where (supported) or why (out of scope) |",
            "| --- | --- | --- | --- |"]
    n_in = n_out = 0
    for section, name, key in PTX_ISA:
        status, what = coverage(name, key)
        if status == "supported":
            n_in += 1
            rows.append(f"| {section} | `{name}` | supported | `{what}` row below |")
        else:
            n_out += 1
            rows.append(f"| {section} | `{name}` | out of scope | {what} |")
    return rows, n_in, n_out


def generate() -> str:
    specials = ", ".join(f"`{n}`" + (" (`.x .y .z`)" if n in VECTOR_SPECIALS else "")
                         for n in SPECIAL_REGISTERS)
    rows, n_in, n_out = coverage_table()
    out = [INTRO.replace("SPECIALS", specials).replace(
        "COVERAGE", f"{n_in} supported, {n_out} out of scope (tensor-core, TMA bulk copies, textures and surfaces, "
                    f"cluster launch control, multimem, cvt.pack, sm_100 mixed precision)")]
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
               "shared: `shared`, const and param: `const`.  A device function's `ld/st.param` is a register move "
               "(`int`, `alu`).\n")
    out.append(f"\n## Coverage of the PTX ISA 9.0\n\nEvery instruction the PTX ISA 9.0 manual describes (section "
               f"9.7), as it names them: {n_in} supported, {n_out} out of scope.  An instruction in neither list is "
               f"an unknown opcode; an out-of-scope one is reported with its reason when a kernel that uses it is "
               f"launched.\n")
    out.extend(rows)
    out.append("")
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
