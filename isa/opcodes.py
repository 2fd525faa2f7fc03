"""The opcode table: the single source of truth for the PTX subset gpusim supports.

Each :class:`OpSpec` names one base mnemonic (``add``, ``ld``, ``setp`` ...), the instruction types and
modifiers it accepts, its operand shape, a one-line semantics, and how the timing model classifies it
(functional unit and latency class, which may depend on the instruction type: ``add.f32`` goes to the FP32
pipe, ``add.s32`` to the integer ALU).  ``isa/README.md`` is generated from this table
(``python -m isa.docs``) and a test keeps the two in step.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from isa.units import LatencyClass as L
from isa.units import MemSpace
from isa.units import Unit as U

# --- types ----------------------------------------------------------------------------------------------
INT_TYPES = ("s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64")
BIT_TYPES = ("b8", "b16", "b32", "b64")
FLOAT_TYPES = ("f16", "f32", "f64")
HALF_TYPES = ("f16", "f16x2", "bf16", "bf16x2")   # 16-bit floats, alone or two packed in 32 bits
INT16X2 = ("u16x2", "s16x2")                        # two 16-bit integers packed in 32 bits (sm_90)
FP8X2 = ("e4m3x2", "e5m2x2")                        # two 8-bit floats packed in 16 bits (sm_89/sm_90)
ALL_TYPES = INT_TYPES + BIT_TYPES + FLOAT_TYPES + ("pred", "bf16", "f16x2", "bf16x2", "b128", "tf32") + INT16X2 + \
    FP8X2

TYPE_BITS = {
    "s8": 8, "u8": 8, "b8": 8, "s16": 16, "u16": 16, "b16": 16, "f16": 16, "bf16": 16,
    "s32": 32, "u32": 32, "b32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32,
    "s64": 64, "u64": 64, "b64": 64, "f64": 64, "pred": 1, "b128": 128, "u16x2": 32, "s16x2": 32,
    "tf32": 32, "e4m3x2": 16, "e5m2x2": 16,
}

I32 = ("s32", "u32")
I64 = ("s64", "u64")
INTS = ("s16", "u16") + I32 + I64
LOGIC = ("b16", "b32", "b64", "pred")
F = ("f32", "f64")

ROUND_FLOAT = ("rn", "rz", "rm", "rp")
ROUND_INT = ("rni", "rzi", "rmi", "rpi")
CMP_OPS = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
           "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
BOOL_OPS = ("and", "or", "xor")
SPACES = tuple(s.value for s in MemSpace.concrete())   # the state-space modifiers
CACHE_LD = ("ca", "cg", "cs", "lu", "cv", "nc")
CACHE_ST = ("wb", "cg", "cs", "wt")
ATOM_OPS = ("add", "min", "max", "exch", "cas", "and", "or", "xor", "inc", "dec")


ALU = (U.INT, L.ALU)
FMA = (U.FP32, L.FMA)
DFMA = (U.FP64, L.FP64)


def _by_type(int_: tuple[U, L], f32: tuple[U, L], f64: tuple[U, L]):
    def classify(t: str) -> tuple[U, L]:
        if t == "f64":
            return f64
        if t in ("f32",) + HALF_TYPES:
            return f32
        return int_
    return classify


def _fixed(unit: U, lat: L):
    return lambda t: (unit, lat)


# --- cvt: which SASS instruction ptxas makes of each form ------------------------------------------------
# ptxas 13.0 -arch=sm_90 (tests/golden/h100/micro/cvt: cvt_forms.ptx, one kernel per form, and its .sass).  The
# conversions through floating point are XU instructions (I2F, F2I, F2F, FRND: the quarter-rate pipe ncu calls
# pipe_xu, the model's sfu unit, on the short scoreboard), but for the int -> f32 forms with round-to-nearest or
# toward zero from a 32-bit integer (or a zero-extended narrower one): those are I2FP.F32.{S,U}32, an ALU
# instruction.  f32 -> f16/bf16 is F2FP (ALU), f16 -> f32 HADD2.F32 (FMA pipe), bf16 -> f32 a shift, .sat/.ftz
# of an f32 an FADD, integer widening and narrowing a move (or nothing).
_I2FP_SOURCES = ("s32", "u32", "u16", "u8")       # ld.u8/u16 zero-extend: ptxas converts the 32-bit register
_FLOATS = ("f32", "f64", "tf32") + HALF_TYPES + FP8X2   # tf32: ptxas rounds with 4 integer instructions, no XU


def cvt_sass(dst: str, src: str, mods) -> str:
    """The head of the SASS mnemonic ptxas 13.0 (sm_90) makes of ``cvt.<mods>.<dst>.<src>``: ``I2FP``, ``I2F``,
    ``F2I``, ``F2F``, ``FRND``, ``F2FP``, ``HADD2``, ``FADD`` or ``MOV`` (integer to integer, moves and shifts)."""
    mods = set(mods)
    dst_float, src_float = dst in _FLOATS, src in _FLOATS
    if not dst_float and not src_float:
        return "MOV"
    if dst_float and not src_float:
        if dst == "f32" and src in _I2FP_SOURCES and not mods & {"rm", "rp"}:
            return "I2FP"
        return "I2F"
    if src_float and not dst_float:
        return "F2I"
    if mods & set(ROUND_INT):
        return "FRND"
    if dst == src:
        return "FADD"
    if "f64" in (dst, src):
        return "F2F"
    if dst == "f32":                                   # from f16 (HADD2.F32) or bf16 (a shift into the high half)
        return "HADD2" if src.startswith("f16") else "MOV"
    return "F2FP"                                      # f32 -> f16/bf16/fp8 (and their x2 packs), fp8 -> f16x2


_CVT_PIPES = {"I2F": (U.SFU, L.CONVERT), "F2I": (U.SFU, L.CONVERT), "F2F": (U.SFU, L.CONVERT),
              "FRND": (U.SFU, L.CONVERT), "HADD2": (U.FP32, L.FMA), "FADD": (U.FP32, L.FMA)}


def cvt_unit_and_latency(dst: str, src: str, mods) -> tuple[U, L]:
    """Pipe and latency class of a ``cvt``: the XU at the conversion latency for I2F/F2I/F2F/FRND, the FMA pipe
    for HADD2/FADD, the ALU for the rest (I2FP, F2FP, moves).  Simplification: the model issues what sm_90 does
    for every preset; ptxas for sm_80 makes the I2FP forms I2F (XU) too."""
    return _CVT_PIPES.get(cvt_sass(dst, src, mods), ALU)




@dataclass(frozen=True)
class OpSpec:
    """One base mnemonic of the supported PTX subset.

    ``operands``: the operand kinds in order, ``d`` destination register (``d2`` a vector destination is
    allowed), ``a``..``c`` sources (register, immediate or special register), ``m`` a memory operand
    ``[addr]``, ``p`` a predicate destination, ``l`` a label, ``?`` marks optional trailing operands.
    ``types``: allowed instruction types (the last ``.type`` suffix; ``cvt`` has two).
    ``modifiers``: allowed non-type suffixes.
    """

    name: str
    types: tuple[str, ...]
    operands: str
    semantics: str
    classify: object = field(default=_fixed(*ALU), compare=False, repr=False)
    modifiers: tuple[str, ...] = ()
    family: str = ""
    ntypes: int = 1        # how many type suffixes it takes (cvt, set, slct, dp4a: 2; bra, call: 0)

    def unit_and_latency(self, itype: str | None) -> tuple[U, L]:
        return self.classify(itype or "")  # type: ignore[operator]


def _arith(name, types, operands, semantics, modifiers=(), classify=None, family="arithmetic"):
    return OpSpec(name, types, operands, semantics,
                  classify or _by_type(ALU, FMA, DFMA), tuple(modifiers), family)


OPCODES: dict[str, OpSpec] = {}


def _add(*specs: OpSpec) -> None:
    for s in specs:
        OPCODES[s.name] = s


_add(
    # integer and float arithmetic
    _arith("add", INTS + F + ("f16",), "d a b", "d = a + b (integers wrap; .sat clamps s32)",
           ROUND_FLOAT + ("ftz", "sat", "cc")),
    _arith("sub", INTS + F + ("f16",), "d a b", "d = a - b", ROUND_FLOAT + ("ftz", "sat", "cc")),
    _arith("mul", INTS + F + ("f16",), "d a b",
           "d = a * b; .lo/.hi: low/high half of the double-width product; .wide: full product into a 2x wide d",
           ROUND_FLOAT + ("ftz", "sat", "lo", "hi", "wide"),
           classify=_by_type((U.INT, L.IMAD), FMA, DFMA)),
    _arith("mad", INTS + F, "d a b c", "d = a * b + c; .lo/.hi/.wide as for mul; f32: fused (= fma)",
           ROUND_FLOAT + ("ftz", "sat", "lo", "hi", "wide"),
           classify=_by_type((U.INT, L.IMAD), FMA, DFMA)),
    _arith("fma", F + ("f16",), "d a b c", "d = a * b + c with a single rounding", ROUND_FLOAT + ("ftz", "sat")),
    _arith("div", INTS + F, "d a b",
           "d = a / b; integers truncate toward zero (x/0 = all ones); .rn IEEE, .full/.approx within 2 ulp",
           ROUND_FLOAT + ("full", "approx", "ftz"),
           classify=_by_type((U.INT, L.SFU), (U.SFU, L.SFU), (U.FP64, L.SFU))),
    _arith("rem", INTS, "d a b", "d = a % b, sign of a (C semantics; x%0 = x)",
           classify=_fixed(U.INT, L.SFU)),
    _arith("min", INTS + F, "d a b", "d = min(a, b); float: a NaN operand yields the other", ("ftz", "NaN")),
    _arith("max", INTS + F, "d a b", "d = max(a, b); float: a NaN operand yields the other", ("ftz", "NaN")),
    _arith("abs", INTS + F, "d a", "d = |a| (float: clears the sign bit)", ("ftz",)),
    _arith("neg", INTS + F, "d a", "d = -a (float: flips the sign bit)", ("ftz",)),
    _arith("rcp", F, "d a", "d = 1 / a; .rn IEEE, .approx within 1 ulp",
           ROUND_FLOAT + ("approx", "ftz"), classify=_by_type((U.SFU, L.SFU), (U.SFU, L.SFU), (U.FP64, L.SFU))),
    _arith("sqrt", F, "d a", "d = sqrt(a); .rn IEEE, .approx within 1 ulp",
           ROUND_FLOAT + ("approx", "ftz"), classify=_by_type((U.SFU, L.SFU), (U.SFU, L.SFU), (U.FP64, L.SFU))),
    _arith("rsqrt", F, "d a", "d = 1 / sqrt(a) (approx)", ("approx", "ftz"),
           classify=_fixed(U.SFU, L.SFU)),
    _arith("ex2", ("f32",), "d a", "d = 2 ** a (approx)", ("approx", "ftz"), classify=_fixed(U.SFU, L.SFU)),
    _arith("lg2", ("f32",), "d a", "d = log2(a) (approx)", ("approx", "ftz"), classify=_fixed(U.SFU, L.SFU)),
    _arith("sin", ("f32",), "d a", "d = sin(a) (approx)", ("approx", "ftz"), classify=_fixed(U.SFU, L.SFU)),
    _arith("cos", ("f32",), "d a", "d = cos(a) (approx)", ("approx", "ftz"), classify=_fixed(U.SFU, L.SFU)),
    _arith("tanh", ("f32",), "d a", "d = tanh(a) (approx)", ("approx",), classify=_fixed(U.SFU, L.SFU)),
    _arith("copysign", F, "d a b", "d = |b| with the sign of a"),
    _arith("testp", F, "d a", "d (pred) = class test of a: .finite .infinite .number .notanumber .normal "
                              ".subnormal", ("finite", "infinite", "number", "notanumber", "normal", "subnormal")),
    # bit manipulation
    OpSpec("and", LOGIC, "d a b", "d = a & b", family="logic"),
    OpSpec("or", LOGIC, "d a b", "d = a | b", family="logic"),
    OpSpec("xor", LOGIC, "d a b", "d = a ^ b", family="logic"),
    OpSpec("not", LOGIC, "d a", "d = ~a", family="logic"),
    OpSpec("cnot", ("b16", "b32", "b64"), "d a", "d = (a == 0) ? 1 : 0", family="logic"),
    OpSpec("lop3", ("b32",), "d a b c i", "d = LUT(a, b, c) with the 8-bit truth table i", family="logic"),
    OpSpec("shl", ("b16", "b32", "b64"), "d a b", "d = a << b (b >= width gives 0)", family="logic"),
    OpSpec("shr", ("b16", "b32", "b64", "s16", "s32", "s64", "u16", "u32", "u64"), "d a b",
           "d = a >> b; .s fills with the sign bit, .u/.b with zeros (b >= width saturates)", family="logic"),
    OpSpec("popc", ("b32", "b64"), "d a", "d (u32) = number of set bits of a", family="logic"),
    OpSpec("clz", ("b32", "b64"), "d a", "d (u32) = number of leading zeros of a", family="logic"),
    OpSpec("brev", ("b32", "b64"), "d a", "d = a with its bits reversed", family="logic"),
    OpSpec("bfe", ("s32", "u32", "s64", "u64"), "d a b c",
           "d = bit field of a at position b, length c (sign-extended for .s)", family="logic"),
    OpSpec("bfi", ("b32", "b64"), "d a b c e", "d = b with the field (pos c, len e) replaced by the low bits of a",
           family="logic"),
    OpSpec("prmt", ("b32",), "d a b c", "d = bytes of {b, a} selected by the nibbles of c (default mode)",
           family="logic"),
    # comparison and selection
    OpSpec("setp", INTS + BIT_TYPES[1:] + F + HALF_TYPES, "p a b c?",
           "p = a CMP b, optionally combined with predicate c by .and/.or/.xor (d|q: q = !(a CMP b) BOOL c; "
           ".f16x2/.bf16x2: p|q the low and high halves' comparisons)",
           _by_type(ALU, FMA, DFMA), CMP_OPS + BOOL_OPS + ("ftz",), "comparison"),
    OpSpec("set", INTS + F + ("f16", "bf16"), "d a b c?", "d = (a CMP b) ? all ones (or 1.0f) : 0 (.u32/.s32/.f32 "
           "results; half-precision destinations are not modelled)",
           _by_type(ALU, FMA, DFMA), CMP_OPS + BOOL_OPS + ("ftz",), "comparison"),
    OpSpec("selp", INTS + BIT_TYPES[1:] + F, "d a b c", "d = c ? a : b (c a predicate)",
           _fixed(*ALU), (), "comparison"),
    # data movement and conversion
    OpSpec("mov", INTS + BIT_TYPES[1:] + F + ("pred",), "d a",
           "d = a (register, immediate, special register, or the address of a variable)", family="move"),
    OpSpec("cvt", ("s8", "u8") + INTS + F + HALF_TYPES + ("tf32",) + FP8X2, "d a b?",
           "d = a converted; .rni/.rzi/.rmi/.rpi round float to integral, .rn/.rz/.rm/.rp float rounding, "
           ".sat saturates (floats to [0, 1]); to and from .bf16 (.relu, .satfinite); cvt.rn.f16x2.f32 / "
           ".bf16x2.f32 d, a, b packs a into the upper half and b into the lower; .tf32 (.rna, .rn, .rz); the "
           "8-bit floats .e4m3x2/.e5m2x2 from two .f32 or an .f16x2 (.rn.satfinite) and back to .f16x2 (the "
           "sm_100 6- and 4-bit floats, .ue8m0x2 and stochastic .rs are not modelled). Pipe by form, as ptxas "
           "sm_90 emits it (cvt_sass): I2F/F2I/F2F/FRND on the XU (sfu, convert latency); .rn/.rz int->f32 from "
           "32 bits (I2FP), f32->f16 (F2FP) and int->int on the ALU; f16->f32, .sat/.ftz f32 on the FMA pipe",
           _by_type(ALU, (U.SFU, L.CONVERT), (U.SFU, L.CONVERT)), ROUND_FLOAT + ROUND_INT + ("sat", "ftz", "relu", "satfinite", "rna"),
           "move"),
    OpSpec("cvta", ("u32", "u64"), "d a",
           "d = generic address of a (.to: state-space address of a generic one); spaces global/shared/local/const",
           _fixed(*ALU), ("to",) + SPACES, "move"),
    OpSpec("ld", ("s8", "u8") + INTS + BIT_TYPES + F + ("f16",), "d m", "d = memory[m] (.v2/.v4: several consecutive elements)",
           _fixed(U.LSU, L.GLOBAL), SPACES + CACHE_LD + ("v2", "v4", "volatile", "relaxed", "acquire", "gpu",
                                                          "cta", "sys", "weak"), "memory"),
    OpSpec("st", ("s8", "u8") + INTS + BIT_TYPES + F + ("f16",), "m a", "memory[m] = a (.v2/.v4 vectors)",
           _fixed(U.LSU, L.GLOBAL), SPACES + CACHE_ST + ("v2", "v4", "volatile", "relaxed", "release", "gpu",
                                                          "cta", "sys", "weak"), "memory"),
    OpSpec("atom", INTS + BIT_TYPES[1:] + ("f32", "f64") + HALF_TYPES, "d m a b?",
           "d = memory[m]; memory[m] = op(memory[m], a) atomically (cas: a compare, b new value; .cas.b16 and "
           "64-bit; float .add (f32 on .global flushes subnormals, f16/bf16 need .noftz); float .min/.max only "
           "on f16/bf16 vectors (PTX has none on f32/f64); .exch; "
           "vectors .v2/.v4/.v8 of f16/bf16 and .v2/.v4 f32 .add on .global; the 128-bit .b128 forms are not "
           "modelled: gpusim's registers are at most 64 bits)",
           _fixed(U.LSU, L.GLOBAL), ("global", "shared") + ATOM_OPS + ("relaxed", "acq_rel", "acquire",
                                                                       "release", "gpu", "cta", "sys", "cluster",
                                                                       "noftz", "v2", "v4", "v8"),
           "memory"),
    OpSpec("red", INTS + BIT_TYPES[1:] + ("f32", "f64") + HALF_TYPES, "m a",
           "memory[m] = op(memory[m], a) atomically, no result", _fixed(U.LSU, L.GLOBAL),
           ("global", "shared") + ATOM_OPS + ("relaxed", "release", "gpu", "cta", "sys", "cluster", "noftz", "v2",
                                               "v4", "v8"), "memory"),
    OpSpec("shfl", ("b32",), "d a b c e",
           "d[i] = a[src(i)] within the warp (.up/.down/.bfly/.idx with clamp c and member mask e); "
           "d may be d|p: p = source lane in range", _fixed(U.LSU, L.SHARED),
           ("sync", "up", "down", "bfly", "idx"), "warp"),
    OpSpec("vote", ("pred", "b32"), "d a b",
           "across the warp's member lanes b: .all/.any/.uni of predicate a (pred d), .ballot: mask of lanes "
           "with a true (b32 d)", _fixed(*ALU), ("sync", "all", "any", "uni", "ballot"), "warp"),
    OpSpec("activemask", ("b32",), "d", "d = mask of the warp's active lanes", _fixed(*ALU), (), "warp"),
    # control flow and synchronisation
    OpSpec("bra", (), "l", "jump to label (guarded: per lane; divergent lanes reconverge at the immediate "
                           "post-dominator)", _fixed(U.BRANCH, L.BRANCH), ("uni",), "control"),
    OpSpec("ret", (), "", "return from the kernel: the active lanes finish", _fixed(U.BRANCH, L.NONE),
           ("uni",), "control"),
    OpSpec("exit", (), "", "the active lanes finish", _fixed(U.BRANCH, L.NONE), (), "control"),
    OpSpec("bar", (), "a? b?", "block barrier a (default 0): waits for all non-exited threads of the block "
                               "(b: expected thread count); bar.warp.sync mask: warp reconvergence (__syncwarp)",
           _fixed(U.MISC, L.BARRIER), ("sync", "cta", "aligned", "warp"), "control"),
    OpSpec("barrier", (), "a? b?", "same as bar (barrier.sync[.aligned])", _fixed(U.MISC, L.BARRIER),
           ("sync", "aligned", "cta"), "control"),
    OpSpec("membar", (), "", "memory fence at .cta/.gl/.sys scope (orders this thread's accesses)",
           _fixed(U.MISC, L.MEMBAR), ("cta", "gl", "sys"), "control"),
    OpSpec("fence", (), "", "memory fence (.sc/.acq_rel at .cta/.gpu/.sys scope)", _fixed(U.MISC, L.MEMBAR),
           ("sc", "acq_rel", "cta", "gpu", "sys", "cluster"), "control"),
)

MEM_SEM = ("relaxed", "acquire", "release", "acq_rel", "weak", "volatile", "mmio")
SCOPES = ("cta", "cluster", "gpu", "sys")
H = HALF_TYPES
_add(
    # modifications of the rows above: half-precision types, carry flags, ReLU
    _arith("add", INTS + F + H + INT16X2, "d a b", "d = a + b (integers wrap; .sat clamps s32; .cc writes the "
           "carry flag CC.CF that addc reads; .u16x2/.s16x2: two 16-bit halves)", ROUND_FLOAT + ("ftz", "sat", "cc")),
    _arith("sub", INTS + F + H, "d a b", "d = a - b (.cc writes the borrow to CC.CF; PTX has no .u16x2/.s16x2 sub)",
           ROUND_FLOAT + ("ftz", "sat", "cc")),
    _arith("mul", INTS + F + H, "d a b",
           "d = a * b; .lo/.hi: low/high half of the double-width product; .wide: full product into a 2x wide d",
           ROUND_FLOAT + ("ftz", "sat", "lo", "hi", "wide"), classify=_by_type((U.INT, L.IMAD), FMA, DFMA)),
    _arith("mad", INTS + F, "d a b c", "d = a * b + c; .lo/.hi/.wide as for mul; f32: fused (= fma); "
           ".hi.cc writes the carry", ROUND_FLOAT + ("ftz", "sat", "lo", "hi", "wide", "cc"),
           classify=_by_type((U.INT, L.IMAD), FMA, DFMA)),
    _arith("fma", F + H, "d a b c", "d = a * b + c with a single rounding (.relu: negative results are +0)",
           ROUND_FLOAT + ("ftz", "sat", "relu", "oob")),
    _arith("min", INTS + F + H + INT16X2, "d a b", "d = min(a, b); float: a NaN operand yields the other (.NaN: "
           "NaN); .relu: at least 0; .u16x2/.s16x2 per half", ("ftz", "NaN", "relu", "xorsign", "abs")),
    _arith("max", INTS + F + H + INT16X2, "d a b", "d = max(a, b); float: a NaN operand yields the other (.NaN: "
           "NaN); .relu: at least 0; .u16x2/.s16x2 per half", ("ftz", "NaN", "relu", "xorsign", "abs")),
    _arith("abs", INTS + F + H, "d a", "d = |a| (float: clears the sign bit)", ("ftz",)),
    _arith("neg", INTS + F + H, "d a", "d = -a (float: flips the sign bit)", ("ftz",)),
    _arith("ex2", ("f32", "f16", "f16x2", "bf16", "bf16x2"), "d a",
           "d = 2 ** a (.approx: within 2 ulp + the f32 rounding, PTX ISA bound; f16: correctly rounded)",
           ("approx", "ftz"), classify=_fixed(U.SFU, L.SFU)),
    _arith("tanh", ("f32", "f16", "f16x2", "bf16", "bf16x2"), "d a",
           "d = tanh(a) (.approx: max relative error 2^-10.987, PTX ISA bound)", ("approx",),
           classify=_fixed(U.SFU, L.SFU)),
    _arith("addc", I32 + I64, "d a b", "d = a + b + CC.CF (carry-in from the last .cc instruction of the "
           "thread); .cc writes the carry-out", ("cc",)),
    _arith("subc", I32 + I64, "d a b", "d = a - (b + CC.CF) (borrow-in); .cc writes the borrow-out", ("cc",)),
    _arith("madc", I32 + I64, "d a b c", "d = lo/hi(a * b) + c + CC.CF; .cc writes the carry-out",
           ("lo", "hi", "cc"), classify=_fixed(U.INT, L.IMAD)),
    _arith("mul24", I32, "d a b", "d = low (.lo) or bits 47..16 (.hi) of the 48-bit product of the low 24 "
           "bits of a and b (sign-extended for .s32)", ("lo", "hi"), classify=_fixed(U.INT, L.IMAD)),
    _arith("mad24", I32, "d a b c", "d = mul24(a, b) + c (.lo/.hi as mul24; .hi.sat.s32 clamps)",
           ("lo", "hi", "sat"), classify=_fixed(U.INT, L.IMAD)),
    _arith("sad", INTS, "d a b c", "d = c + |a - b|"),
    OpSpec("dp4a", I32, "d a b c", "d = c + the dot product of the four bytes of a and of b (each signed by "
           "its type); types .atype.btype", _fixed(U.INT, L.IMAD), (), "arithmetic", ntypes=2),
    OpSpec("dp2a", I32, "d a b c", "d = c + the dot product of the two 16-bit halves of a and two bytes of b "
           "(.lo: bytes 0-1, .hi: bytes 2-3)", _fixed(U.INT, L.IMAD), ("lo", "hi"), "arithmetic", ntypes=2),
    # bit manipulation
    OpSpec("bfind", I32 + I64, "d a", "d (u32) = position of the most significant non-sign bit of a, "
           "0xffffffff if none; .shiftamt: the left shift that moves it to the top", modifiers=("shiftamt",),
           family="logic"),
    OpSpec("fns", ("b32",), "d a b c", "d = position of the c-th set bit of mask a counting from bit b "
           "(c < 0: downwards), 0xffffffff if none", family="logic"),
    OpSpec("bmsk", ("b32",), "d a b", "d = mask of b bits starting at bit a (.clamp: a, b >= 32 saturate; "
           ".wrap: taken mod 32)", modifiers=("clamp", "wrap"), family="logic"),
    OpSpec("szext", I32, "d a b", "d = the low b bits of a sign- (.s32) or zero-extended (.u32) "
           "(.clamp/.wrap as bmsk)", modifiers=("clamp", "wrap"), family="logic"),
    OpSpec("shf", ("b32",), "d a b c", "funnel shift of the 64-bit {b, a} by c (.clamp: min(c, 32); .wrap: "
           "c mod 32); .l: the high 32 bits of the left shift, .r: the low 32 bits of the right shift",
           modifiers=("l", "r", "clamp", "wrap"), family="logic"),
    OpSpec("prmt", ("b32",), "d a b c", "d = bytes of {b, a} selected by the nibbles of c (default mode: each "
           "nibble picks a byte, bit 3 replicates its sign); .f4e .b4e .rc8 .ecl .ecr .rc16 by c[1:0]",
           modifiers=("f4e", "b4e", "rc8", "ecl", "ecr", "rc16"), family="logic"),
    # comparison and selection
    OpSpec("slct", INTS + BIT_TYPES[1:] + F, "d a b c", "d = (c >= 0) ? a : b, c an .s32 or .f32 (second "
           "type; -0.0 counts as >= 0, NaN as < 0)", _fixed(*ALU), ("ftz",), "comparison", ntypes=2),
    # data movement
    OpSpec("mov", INTS + BIT_TYPES[1:] + F + ("pred", "b128"), "d a",
           "d = a (register, immediate, special register, the address of a variable or function); "
           "mov.b32/.b64/.b128 {a, b, ...} packs registers into one, and unpacks the other way",
           family="move"),
    OpSpec("isspacep", (), "p a", "p = generic address a points into the state space (.global .shared "
           ".local .const .param)", _fixed(*ALU), ("global", "shared", "local", "const", "param", "cta",
                                                   "cluster"), "move", ntypes=0),
    OpSpec("ldu", ("s8", "u8") + INTS + BIT_TYPES + F + ("f16",), "d m",
           "d = memory[m], uniform across the warp (a global load through the read-only path)",
           _fixed(U.LSU, L.GLOBAL), ("global", "v2", "v4"), "memory"),
    OpSpec("prefetch", (), "m", "a hint to bring the line of m into the cache (.L1/.L2; no effect on values)",
           _fixed(U.LSU, L.NONE), ("global", "local", "L1", "L2", "tensormap", "param", "const"), "memory",
           ntypes=0),
    OpSpec("prefetchu", (), "m", "a hint to bring the line of m into the uniform cache (no effect)",
           _fixed(U.LSU, L.NONE), ("L1",), "memory", ntypes=0),
    OpSpec("applypriority", (), "m a", "a cache-priority hint for the L2 line of m (no effect on values)",
           _fixed(U.LSU, L.NONE), ("global", "L2", "evict_normal"), "memory", ntypes=0),
    OpSpec("discard", (), "m a", "the L2 line of m (a bytes) may be dropped: its contents become undefined "
           "(the emulator keeps them)", _fixed(U.LSU, L.NONE), ("global", "L2"), "memory", ntypes=0),
    OpSpec("createpolicy", ("b64",), "d a? b? c?", "d = an opaque 64-bit cache-eviction policy for "
           ".L2::cache_hint accesses (a hint: gpusim returns a fixed value)", _fixed(*ALU),
           ("fractional", "range", "L2", "cvt", "evict_last", "evict_normal", "evict_first", "evict_unchanged"),
           "memory"),
    OpSpec("cp.async", (), "m m c? e?", "asynchronous copy of c (4, 8 or 16) bytes from global [src] to "
           "shared [dst], the bytes past the optional source size e filled with zeros; .commit_group, "
           ".wait_group N and .wait_all group them (the emulator copies at once; the timing model sees a "
           "global load); cp.async.mbarrier.arrive[.noinc] [bar]: an arrive on an mbarrier once the copies are "
           "done", _fixed(U.LSU, L.GLOBAL), ("ca", "cg", "shared", "global", "commit_group", "wait_group",
                                              "wait_all", "mbarrier", "arrive", "noinc", "b64"), "memory",
           ntypes=0),
    OpSpec("st.async", ("b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32",
                        "f64"), "m a m?",
           "asynchronous store of a to [m] in the shared memory of a block of the cluster (clusters of one block: "
           "this one), then mbarrier complete_tx of its bytes on [mbar] (.mbarrier::complete_tx::bytes); the "
           ".release.gpu/.sys .global form is a release store (the emulator stores at once)",
           _fixed(U.LSU, L.SHARED), ("weak", "release", "mmio", "cluster", "gpu", "sys", "shared", "global",
                                      "mbarrier::complete_tx::bytes", "v2", "v4"), "memory"),
    OpSpec("red.async", INTS + BIT_TYPES[2:], "m a m?",
           "asynchronous reduction (.add .min .max .inc .dec .and .or .xor) of a into [m] in a cluster block's "
           "shared memory, then mbarrier complete_tx of its bytes on [mbar]; the .global form: a release "
           "atomic add", _fixed(U.LSU, L.SHARED),
           ("relaxed", "release", "mmio", "cluster", "gpu", "shared", "global", "mbarrier::complete_tx::bytes",
            "add", "min", "max", "inc", "dec", "and", "or", "xor"), "memory"),
    OpSpec("mbarrier", ("b64",), "", "the shared-memory barrier object: .init [b], n (n arrivals a phase); "
           ".arrive / .arrive_drop (also one fewer for later phases) / .noComplete / .expect_tx / .complete_tx "
           "(transaction bytes) return a state; .test_wait / .try_wait p, [b], state (or .parity): the phase of "
           "state completed; .pending_count; .inval.  A wait that would fail parks the warp until a phase of "
           "some mbarrier completes (the emulator has no time: a later test is a legal outcome)",
           _fixed(U.LSU, L.SHARED), ("init", "inval", "arrive", "arrive_drop", "expect_tx", "complete_tx",
                                      "test_wait", "try_wait", "pending_count", "parity", "noComplete", "release",
                                      "relaxed", "acquire", "cta", "cluster", "shared"), "warp"),
    # warp level
    OpSpec("vote", ("pred", "b32"), "d a b?",
           "across the warp's member lanes b (vote.sync; without .sync: the active lanes): .all/.any/.uni of "
           "predicate a (pred d), .ballot: mask of lanes with a true (b32 d)", _fixed(*ALU),
           ("sync", "all", "any", "uni", "ballot"), "warp"),
    OpSpec("shfl", ("b32",), "d a b c e?",
           "d[i] = a[src(i)] within the warp (.up/.down/.bfly/.idx with clamp c; shfl.sync: member mask e); "
           "d may be d|p: p = source lane in range", _fixed(U.LSU, L.SHARED),
           ("sync", "up", "down", "bfly", "idx"), "warp"),
    OpSpec("redux", ("u32", "s32", "b32", "f32"), "d a b", "d = reduction of a over the member lanes b of the "
           "warp: .add .min .max (u32/s32), .and .or .xor (b32), .min/.max f32 (.abs, .NaN)",
           _fixed(*ALU), ("sync", "add", "min", "max", "and", "or", "xor", "abs", "NaN"), "warp"),
    OpSpec("match", ("b32", "b64"), "d a b", "across the member lanes b: .any: d = mask of lanes whose a "
           "equals this lane's; .all: d = the member mask if all a are equal, else 0 (d|p: p = all equal)",
           _fixed(*ALU), ("sync", "any", "all"), "warp"),
    OpSpec("elect", (), "d b", "elect.sync d|p, membermask: p is true in one lane of the member lanes (the "
           "lowest), d = that lane's number", _fixed(*ALU), ("sync",), "warp", ntypes=0),
    # control flow
    OpSpec("call", (), "", "call a device function: call (ret), f, (args): the caller's .param args are "
           "copied to f's parameters, f runs, its return .params are copied back; an indirect call takes the "
           "function's address in a register; lanes that call different functions diverge and reconverge "
           "after the call", _fixed(U.BRANCH, L.BRANCH), ("uni",), "control", ntypes=0),
    OpSpec("ret", (), "", "return: from a device function to the instruction after its call (lanes that "
           "return on different paths reconverge first); from a kernel: the active lanes finish",
           _fixed(U.BRANCH, L.NONE), ("uni",), "control", ntypes=0),
    OpSpec("brx", (), "a l", "brx.idx a, table: jump to the a-th label of a .branchtargets table (lanes may "
           "diverge several ways; they reconverge at the immediate post-dominator)", _fixed(U.BRANCH, L.BRANCH),
           ("idx", "uni"), "control", ntypes=0),
    OpSpec("bar", (), "a? b?", "block barrier a (default 0): waits for all non-exited threads of the block "
           "(b: expected thread count); bar.warp.sync mask: warp reconvergence (__syncwarp); bar.red.popc.u32 d, "
           "a, {!}c / bar.red.and.pred / bar.red.or.pred: the barrier, then d = the count of threads with c "
           "(__syncthreads_count), whether all or any have it (__syncthreads_and/or)",
           _fixed(U.MISC, L.BARRIER), ("sync", "cta", "aligned", "warp", "red", "popc", "and", "or", "u32",
                                       "pred"), "control", ntypes=0),
    OpSpec("barrier", (), "a? b?", "same as bar (barrier.sync[.aligned], barrier.red); barrier.cluster.arrive/"
           "wait: the cluster barrier (clusters of one block)",
           _fixed(U.MISC, L.BARRIER), ("sync", "aligned", "cta", "red", "popc", "and", "or", "u32", "pred",
                                       "cluster", "arrive", "wait", "relaxed", "acquire", "release"), "control",
           ntypes=0),
    OpSpec("membar", (), "", "memory fence at .cta/.gl/.sys scope (orders this thread's accesses); "
           "membar.proxy.alias", _fixed(U.MISC, L.MEMBAR), ("cta", "gl", "sys", "proxy", "alias"), "control",
           ntypes=0),
    OpSpec("fence", (), "", "memory fence (.sc/.acq_rel at .cta/.cluster/.gpu/.sys scope; fence.proxy.*, "
           "fence.mbarrier_init): the emulator is sequentially consistent, so only the timing model sees it",
           _fixed(U.MISC, L.MEMBAR), ("sc", "acq_rel", "acquire", "release") + SCOPES +
           ("proxy", "alias", "async", "global", "shared", "tensormap", "generic", "mbarrier_init",
            "op_restrict", "sync_restrict"), "control", ntypes=0),
    OpSpec("mapa", ("u32", "u64"), "d a b", "d = the address of a in the shared memory of the cluster's block "
           "b (a launch's clusters are of one block: b must be 0, and d = a)", _fixed(*ALU), ("shared",), "move"),
    OpSpec("getctarank", ("u32", "u64"), "d a", "d (u32) = the rank in its cluster of the block whose shared "
           "memory a points into (clusters of one block: 0)", _fixed(*ALU), ("shared",), "move"),
    OpSpec("alloca", ("u32", "u64"), "d a b?", "d = local address of a bytes allocated on the thread's stack "
           "(aligned to the immediate b, default 8; the stack is 1 KB a thread, as CUDA's default, beyond it a "
           "stack-overflow error)", _fixed(*ALU), (), "control"),
    OpSpec("stacksave", ("u32", "u64"), "d", "d = the thread's stack pointer (a local address)", _fixed(*ALU), (),
           "control"),
    OpSpec("stackrestore", ("u32", "u64"), "a", "the stack pointer = a (frees what alloca allocated after the "
           "stacksave that gave a)", _fixed(*ALU), (), "control"),
    OpSpec("nanosleep", ("u32",), "a", "suspend the thread for about a nanoseconds (at most 1 ms; the "
           "emulator moves on)", _fixed(U.MISC, L.MEMBAR), (), "control"),
    OpSpec("trap", (), "", "abort the kernel with an error (the emulator raises it, naming the thread)",
           _fixed(U.BRANCH, L.NONE), (), "control", ntypes=0),
    OpSpec("brkpt", (), "", "a breakpoint: ignored outside a debugger", _fixed(U.MISC, L.NONE), (), "control",
           ntypes=0),
    OpSpec("pmevent", (), "a", "trigger performance-monitor event a (no effect in gpusim)", _fixed(U.MISC, L.NONE),
           ("mask",), "control", ntypes=0),
    OpSpec("griddepcontrol", (), "", "programmatic dependent launch: .launch_dependents / .wait (a single "
           "launch: no effect)", _fixed(U.MISC, L.NONE), ("launch_dependents", "wait"), "control", ntypes=0),
    OpSpec("setmaxnreg", ("u32",), "a", "register-count hint for a warpgroup (.inc/.dec; no effect on values)",
           _fixed(U.MISC, L.NONE), ("inc", "dec", "sync", "aligned"), "control"),
)

_SIMD_DOC = {"vadd": "a + b", "vsub": "a - b", "vavrg": "(a + b + 1) >> 1 (rounded up, toward +inf)",
             "vabsdiff": "|a - b|", "vmin": "min(a, b)", "vmax": "max(a, b)"}
for _n in (2, 4):
    _el = "16-bit halves" if _n == 2 else "bytes"
    _sel = ".hxy" if _n == 2 else ".bxyzw"
    for _op, _what in _SIMD_DOC.items():
        _add(OpSpec(f"{_op}{_n}", I32, "d a b c", f"SIMD video on {_el}: t[i] = {_what} of the elements picked by "
                    f"{_sel} from {{b, a}} (signed by .atype/.btype), .sat clamps to the element's range; then "
                    f"d = t merged into c under the mask d{_sel[:2]}.. or, with .add, c + the sum of t",
                    _fixed(*ALU), ("sat", "add"), "arithmetic", ntypes=3))
    _add(OpSpec(f"vset{_n}", I32, "d a b c", f"SIMD video compare on {_el}: t[i] = a CMP b ? 1 : 0 (.eq .ne .lt .le "
                f".gt .ge), merged into c under the mask or summed into c with .add", _fixed(*ALU),
                ("eq", "ne", "lt", "le", "gt", "ge", "add"), "comparison", ntypes=2))

for _op, _what in {"vadd": "a + b", "vsub": "a - b", "vabsdiff": "|a - b|", "vmin": "min(a, b)",
                   "vmax": "max(a, b)"}.items():
    _add(OpSpec(_op, I32, "d a b c?", f"scalar video: t = {_what} of the byte/half (.b0-.b3, .h0, .h1) or word "
                f"of a and b (signed by .atype/.btype), .sat clamps to d's type (or d.sel's part); then d = t, "
                f"op2(t, c) with .add/.min/.max, or c with the part d.sel replaced by t", _fixed(*ALU),
                ("sat", "add", "min", "max"), "arithmetic", ntypes=3))
_add(OpSpec("vshl", I32, "d a b c?", "scalar video: t = a << b (b: .u32; .clamp at 32 or .wrap mod 32), then as "
            "vadd", _fixed(*ALU), ("sat", "add", "min", "max", "clamp", "wrap"), "arithmetic", ntypes=3),
     OpSpec("vshr", I32, "d a b c?", "scalar video: t = a >> b (arithmetic for a .s32), then as vadd", _fixed(*ALU),
            ("sat", "add", "min", "max", "clamp", "wrap"), "arithmetic", ntypes=3),
     OpSpec("vmad", I32, "d a b c", "scalar video: d = (+-a * +-b + +-c) >> .shr7/.shr15 (.po: a*b + c + 1) in "
            "64 bits, as ptxas lowers it: a whole word multiplies as .s32, c is sign-extended; .sat clamps to "
            ".s32 (signed types or a negation) or, the sum taken as signed, to .u32", _fixed(U.INT, L.IMAD),
            ("sat", "shr7", "shr15", "po"), "arithmetic", ntypes=3),
     OpSpec("vset", I32, "d a b c?", "scalar video compare: t = a CMP b ? 1 : 0 (.eq .ne .lt .le .gt .ge), then "
            "op2 or merge as vadd", _fixed(*ALU), ("eq", "ne", "lt", "le", "gt", "ge", "add", "min", "max"),
            "comparison", ntypes=2))

# Instructions of the PTX ISA (9.0) that gpusim does not model, with the reason; an instruction that is neither
# here nor in OPCODES is an unknown opcode.  isa/README.md lists both (python -m isa.docs).
_TENSOR = "tensor-core matrix instruction (out of scope: gpusim models the SIMT pipelines)"
_TMA = "tensor memory accelerator (TMA) bulk / tensor copy (out of scope)"
_TEX = "texture and surface instructions (out of scope: no texture units or samplers are modelled)"
_CLUSTER = "thread-block clusters and distributed shared memory beyond one block (out of scope)"
OUT_OF_SCOPE: dict[str, str] = {
    "wmma": _TENSOR, "mma": _TENSOR, "ldmatrix": _TENSOR, "stmatrix": _TENSOR, "movmatrix": _TENSOR,
    "wgmma": _TENSOR, "tcgen05": _TENSOR + " (sm_100)",
    "cp.async.bulk": _TMA, "cp.reduce.async.bulk": _TMA, "tensormap": _TMA, "st.bulk": _TMA,
    "tex": _TEX, "tld4": _TEX, "txq": _TEX, "istypep": _TEX, "suld": _TEX, "sust": _TEX, "sured": _TEX,
    "suq": _TEX,
    "clusterlaunchcontrol": _CLUSTER,
    "multimem": "multimem.ld_reduce/st/red on NVLink multicast memory (out of scope: one GPU)",
    "cvt.pack": "cvt.pack (integer packing for low-precision tensor-core inputs; out of scope with them)",
}

OUT_OF_SCOPE["mixed-precision"] = ("mixed-precision add/sub/fma with f32 and f16/bf16 operands (PTX 8.6, "
                                   "sm_100 and newer only; gpusim targets sm_90 and older)")

# Every instruction of the PTX ISA 9.0 manual ("Instructions", section 9.7), as it names them: (section, name,
# the key looked up in OPCODES / OUT_OF_SCOPE when it is not the name's own longest dotted prefix).
_S = {
    "int": "integer arithmetic", "ext": "extended-precision integer", "fp": "floating point",
    "half": "half precision (.f16 .f16x2 .bf16 .bf16x2)", "mixed": "mixed precision", "cmp": "comparison and selection",
    "logic": "logic and shift", "move": "data movement and conversion", "tex": "texture and surface",
    "ctrl": "control flow", "sync": "parallel synchronization and communication", "mma": "warp-level and "
    "warpgroup matrix (tensor core)", "stack": "stack manipulation", "video": "video", "misc": "miscellaneous",
}
PTX_ISA: tuple[tuple[str, str, str | None], ...] = tuple(
    [(_S["int"], n, None) for n in ("add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg",
                                    "min", "max", "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "szext",
                                    "bmsk", "dp4a", "dp2a")] +
    [(_S["ext"], n, n.split(".")[0]) for n in ("add.cc", "addc", "sub.cc", "subc", "mad.cc", "madc")] +
    [(_S["fp"], n, None) for n in ("testp", "copysign", "add", "sub", "mul", "fma", "mad", "div", "abs", "neg", "min",
                                   "max", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh")] +
    [(_S["fp"], "rcp.approx.ftz.f64", "rcp"), (_S["fp"], "rsqrt.approx.ftz.f64", "rsqrt")] +
    [(_S["half"], n, None) for n in ("add", "sub", "mul", "fma", "neg", "abs", "min", "max", "tanh", "ex2")] +
    [(_S["mixed"], n, "mixed-precision") for n in ("add", "sub", "fma")] +
    [(_S["cmp"], n, None) for n in ("set", "setp", "selp", "slct")] +
    [(_S["half"], f"{n} (half)", n) for n in ("set", "setp")] +
    [(_S["logic"], n, None) for n in ("and", "or", "xor", "not", "cnot", "lop3", "shf", "shl", "shr")] +
    [(_S["move"], n, None) for n in (
        "mov", "shfl", "shfl.sync", "prmt", "ld", "ld.global.nc", "ldu", "st", "st.async", "st.bulk",
        "multimem.ld_reduce", "multimem.st", "multimem.red", "prefetch", "prefetchu", "applypriority", "discard",
        "createpolicy", "isspacep", "cvta", "cvt", "cvt.pack", "mapa", "getctarank", "cp.async",
        "cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all", "cp.async.bulk", "cp.reduce.async.bulk",
        "cp.async.bulk.prefetch", "cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor",
        "cp.async.bulk.prefetch.tensor", "cp.async.bulk.commit_group", "cp.async.bulk.wait_group",
        "tensormap.replace")] +
    [(_S["tex"], n, None) for n in ("tex", "tld4", "txq", "istypep", "suld", "sust", "sured", "suq")] +
    [(_S["ctrl"], n, None) for n in ("bra", "brx.idx", "call", "ret", "exit")] +
    [(_S["sync"], n, None) for n in (
        "bar", "barrier", "bar.warp.sync", "barrier.cluster", "membar", "fence", "atom", "red", "red.async", "vote",
        "vote.sync", "match.sync", "activemask", "redux.sync", "griddepcontrol", "elect.sync", "mbarrier.init",
        "mbarrier.inval", "mbarrier.expect_tx", "mbarrier.complete_tx", "mbarrier.arrive", "mbarrier.arrive_drop",
        "cp.async.mbarrier.arrive", "mbarrier.test_wait", "mbarrier.try_wait", "mbarrier.pending_count",
        "tensormap.cp_fenceproxy", "clusterlaunchcontrol.try_cancel", "clusterlaunchcontrol.query_cancel")] +
    [(_S["mma"], n, None) for n in (
        "wmma.load", "wmma.store", "wmma.mma", "mma", "mma.sp", "ldmatrix", "stmatrix", "movmatrix",
        "wgmma.mma_async", "wgmma.mma_async.sp", "wgmma.fence", "wgmma.commit_group", "wgmma.wait_group",
        "tcgen05.alloc", "tcgen05.dealloc", "tcgen05.relinquish_alloc_permit", "tcgen05.ld", "tcgen05.st",
        "tcgen05.wait", "tcgen05.cp", "tcgen05.shift", "tcgen05.mma", "tcgen05.mma.sp", "tcgen05.mma.ws",
        "tcgen05.mma.ws.sp", "tcgen05.fence", "tcgen05.commit")] +
    [(_S["stack"], n, None) for n in ("stacksave", "stackrestore", "alloca")] +
    [(_S["video"], n, None) for n in ("vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset",
                                      "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2", "vadd4",
                                      "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4")] +
    [(_S["misc"], n, None) for n in ("brkpt", "nanosleep", "pmevent", "trap", "setmaxnreg")]
)


def coverage(name: str, key: str | None = None) -> tuple[str, str]:
    """("supported", the OPCODES row) or ("out of scope", why) for an instruction of :data:`PTX_ISA`: the
    longest dotted prefix of ``key`` (default ``name``) found in OUT_OF_SCOPE or OPCODES."""
    parts = (key or name).split(".")
    for n in range(len(parts), 0, -1):
        k = ".".join(parts[:n])
        if k in OUT_OF_SCOPE:
            return "out of scope", OUT_OF_SCOPE[k]
        if k in OPCODES:
            return "supported", k
    raise KeyError(f"{name}: neither supported nor listed as out of scope")


# ld.param/ld.const/ld.shared/ld.local have other latency classes than ld.global: refined at decode time
SPACE_LATENCY = {
    "global": (U.LSU, L.GLOBAL), "local": (U.LSU, L.GLOBAL), "shared": (U.LSU, L.SHARED),
    "const": (U.LSU, L.CONST), "param": (U.LSU, L.CONST), "generic": (U.LSU, L.GLOBAL),
}

SPECIAL_REGISTERS = {
    # name: (bits, per-component?)  ; %tid etc. take .x/.y/.z
    "%tid": 32, "%ntid": 32, "%ctaid": 32, "%nctaid": 32, "%laneid": 32, "%warpid": 32, "%nwarpid": 32,
    "%smid": 32, "%nsmid": 32, "%gridid": 64, "%lanemask_eq": 32, "%lanemask_le": 32, "%lanemask_lt": 32,
    "%lanemask_ge": 32, "%lanemask_gt": 32, "%clock": 32, "%clock64": 64, "%globaltimer": 64,
    "%dynamic_smem_size": 32, "%total_smem_size": 32,
    "%nclusterid": 32, "%clusterid": 32, "%cluster_ctaid": 32, "%cluster_nctaid": 32, "%cluster_ctarank": 32,
    "%cluster_nctarank": 32, "%is_explicit_cluster": 1, "%globaltimer_lo": 32, "%globaltimer_hi": 32,
    "%reserved_smem_offset_begin": 32, "%reserved_smem_offset_end": 32, "%reserved_smem_offset_cap": 32,
    "%aggr_smem_size": 32, "%warpid_in_cluster": 32,
}
VECTOR_SPECIALS = {"%tid", "%ntid", "%ctaid", "%nctaid", "%nclusterid", "%clusterid", "%cluster_ctaid",
                   "%cluster_nctaid"}
