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
ALL_TYPES = INT_TYPES + BIT_TYPES + FLOAT_TYPES + ("pred",)

TYPE_BITS = {
    "s8": 8, "u8": 8, "b8": 8, "s16": 16, "u16": 16, "b16": 16, "f16": 16,
    "s32": 32, "u32": 32, "b32": 32, "f32": 32, "s64": 64, "u64": 64, "b64": 64, "f64": 64, "pred": 1,
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


def _by_type(int_: tuple[U, L], f32: tuple[U, L], f64: tuple[U, L]):
    def classify(t: str) -> tuple[U, L]:
        if t == "f64":
            return f64
        if t in ("f32", "f16"):
            return f32
        return int_
    return classify


def _fixed(unit: U, lat: L):
    return lambda t: (unit, lat)


ALU = (U.INT, L.ALU)
FMA = (U.FP32, L.FMA)
DFMA = (U.FP64, L.FP64)


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
    OpSpec("setp", INTS + BIT_TYPES[1:] + F + ("f16",), "p a b c?",
           "p = a CMP b, optionally combined with predicate c by .and/.or/.xor (d|q: q = !(a CMP b) BOOL c)",
           _by_type(ALU, FMA, DFMA), CMP_OPS + BOOL_OPS + ("ftz",), "comparison"),
    OpSpec("set", INTS + F, "d a b c?", "d = (a CMP b) ? all ones (or 1.0f) : 0",
           _by_type(ALU, FMA, DFMA), CMP_OPS + BOOL_OPS + ("ftz",), "comparison"),
    OpSpec("selp", INTS + BIT_TYPES[1:] + F, "d a b c", "d = c ? a : b (c a predicate)",
           _fixed(*ALU), (), "comparison"),
    # data movement and conversion
    OpSpec("mov", INTS + BIT_TYPES[1:] + F + ("pred",), "d a",
           "d = a (register, immediate, special register, or the address of a variable)", family="move"),
    OpSpec("cvt", ("s8", "u8") + INTS + F + ("f16",), "d a",
           "d = a converted; .rni/.rzi/.rmi/.rpi round float to integral, .rn/.rz/.rm/.rp float rounding, "
           ".sat saturates (floats to [0, 1])",
           _fixed(U.INT, L.CONVERT), ROUND_FLOAT + ROUND_INT + ("sat", "ftz"), "move"),
    OpSpec("cvta", ("u32", "u64"), "d a",
           "d = generic address of a (.to: state-space address of a generic one); spaces global/shared/local/const",
           _fixed(*ALU), ("to",) + SPACES, "move"),
    OpSpec("ld", ("s8", "u8") + INTS + BIT_TYPES + F + ("f16",), "d m", "d = memory[m] (.v2/.v4: several consecutive elements)",
           _fixed(U.LSU, L.GLOBAL), SPACES + CACHE_LD + ("v2", "v4", "volatile", "relaxed", "acquire", "gpu",
                                                          "cta", "sys", "weak"), "memory"),
    OpSpec("st", ("s8", "u8") + INTS + BIT_TYPES + F + ("f16",), "m a", "memory[m] = a (.v2/.v4 vectors)",
           _fixed(U.LSU, L.GLOBAL), SPACES + CACHE_ST + ("v2", "v4", "volatile", "relaxed", "release", "gpu",
                                                          "cta", "sys", "weak"), "memory"),
    OpSpec("atom", INTS + BIT_TYPES[2:] + ("f32", "f64"), "d m a b?",
           "d = memory[m]; memory[m] = op(memory[m], a) atomically (cas: a compare, b new value)",
           _fixed(U.LSU, L.GLOBAL), ("global", "shared") + ATOM_OPS + ("relaxed", "acq_rel", "acquire",
                                                                       "release", "gpu", "cta", "sys", "noftz"),
           "memory"),
    OpSpec("red", INTS + BIT_TYPES[2:] + ("f32", "f64"), "m a",
           "memory[m] = op(memory[m], a) atomically, no result", _fixed(U.LSU, L.GLOBAL),
           ("global", "shared") + ATOM_OPS + ("relaxed", "release", "gpu", "cta", "sys", "noftz"), "memory"),
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
}
VECTOR_SPECIALS = {"%tid", "%ntid", "%ctaid", "%nctaid"}
