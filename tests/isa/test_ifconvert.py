"""If-conversion as ptxas does it (isa/ifconvert.py): which short branches become guarded instructions.

Each case is one of the probes the rule was learnt from: PTX assembled by ptxas 13.0 for sm_90 at -O3, the
SASS read with nvdisasm: a converted branch leaves no ``BRA`` (its block runs as ``@P`` / ``@!P``
instructions; the one ``BRA`` left is the branch-to-itself after ``EXIT`` of every kernel).  Where ptxas and nvdisasm are installed (``pip install -e .[sass]``), every case is also
assembled and the real SASS must agree.
"""
import numpy as np
import pytest

import gpusim
from gpusim.cuda import sass
from isa import parse_ptx
from isa.link import link

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
FMA = "fma.rn.f32 %f1, %f1, 0f3F8CCCCD, 0f3E99999A;"
FMA_B = "fma.rn.f32 %f1, %f1, 0f3F9CCCCD, 0f3E89999A;"


def ptx_of(body: str) -> str:
    return (HEAD + ".visible .entry k(.param .u64 pa)\n{\n .reg .pred %p<3>; .reg .f32 %f<40>; .reg .b64 %rd<4>;"
            " .reg .b32 %r<4>;\n ld.param.u64 %rd1, [pa]; cvta.to.global.u64 %rd2, %rd1; mov.u32 %r1, %tid.x;\n"
            " mul.wide.u32 %rd3, %r1, 4; add.s64 %rd2, %rd2, %rd3; ld.global.f32 %f1, [%rd2];\n"
            " setp.gt.f32 %p1, %f1, 0f3F000000;\n" + body + "\n st.global.f32 [%rd2], %f1;\n ret;\n}\n")


def triangle(n: int) -> str:
    return "@%p1 bra $L1;\n" + "\n".join([FMA] * n) + "\n$L1:"


def diamond(n: int) -> str:
    return ("@%p1 bra $L2;\n" + "\n".join([FMA] * n) + "\nbra.uni $L1;\n$L2:\n" + "\n".join([FMA_B] * n)
            + "\n$L1:")


def constants(n: int) -> str:
    """The mri_q shape: each constant moved into a register, then the fma (ptxas folds the mov)."""
    return "@%p1 bra $L1;\n" + "\n".join(f"mov.f32 %f{10 + i}, 0f3F8CCCCD;\nfma.rn.f32 %f1, %f1, %f{10 + i}, "
                                         "0f3E99999A;" for i in range(n)) + "\n$L1:"


CASES = [(triangle(n), n <= 7) for n in (1, 3, 7, 8, 12)] + \
        [(diamond(n), n <= 6) for n in (1, 6, 7)] + \
        [(constants(n), n <= 7) for n in (2, 7, 8)] + [
    ("@%p1 bra $L1;\nld.global.f32 %f2, [%rd2+4];\nadd.f32 %f1, %f1, %f2;\n$L1:", False),   # a load: kept
    ("@!%p1 bra $L1;\n" + FMA + "\n$L1:", True),                                             # negated guard
]


def branches_left(body: str) -> int:
    m = parse_ptx(ptx_of(body))
    return sum(1 for i in link(m, m.kernel()).instructions if i.base == "bra")


@pytest.mark.parametrize("body, converted", CASES)
def test_which_branches_ptxas_turns_into_predicated_code(body, converted):
    left = branches_left(body)
    assert (left == 0) == converted, f"{left} branches left"


def test_converted_instructions_carry_the_negated_guard():
    m = parse_ptx(ptx_of(triangle(2)))
    fmas = [i for i in link(m, m.kernel()).instructions if i.base == "fma"]
    assert [(i.guard.name, i.guard_negated) for i in fmas] == [("%p1", True)] * 2


@pytest.mark.parametrize("body", [triangle(3), diamond(4), constants(3), "@!%p1 bra $L1;\n" + FMA + "\n$L1:"])
def test_outputs_unchanged_and_no_divergence(body):
    """Lanes on both sides of the branch (half the inputs above 0.5): the same results as the branchy code
    computes lane by lane, and no divergent branch left."""
    x = np.linspace(0.0, 1.0, 64, dtype=np.float32)
    res = gpusim.run(ptx_of(body), kernel="k", grid=(1, 1, 1), block=(64, 1, 1), args=[x], mode="emulate")
    ref = x.copy()
    taken = x > np.float32(0.5)
    steps = body.count(FMA)
    for _ in range(steps):
        ref = np.where(~taken if body.startswith("@%p1") else taken, np.float32(1.1) * ref + np.float32(0.3),
                       ref).astype(np.float32)
    if "$L2" in body:
        for _ in range(body.count(FMA_B)):
            ref = np.where(taken, np.float32(1.225) * ref + np.float32(0.26875), ref).astype(np.float32)
    if "mov.f32" in body:
        for _ in range(body.count("mov.f32")):
            ref = np.where(~taken, np.float32(1.1) * ref + np.float32(0.3), ref).astype(np.float32)
    np.testing.assert_allclose(res.args[0], ref, rtol=1e-6)
    assert res.stats.divergent_branches == 0


@pytest.mark.skipif(sass.find_tools() is None, reason="ptxas and nvdisasm not installed (pip install -e .[sass])")
@pytest.mark.parametrize("body, converted", CASES)
def test_the_rule_says_what_ptxas_does(body, converted):
    ops = [op for lines in sass.sass_by_ptx_line(ptx_of(body))["k"].values() for op in lines]
    # every kernel ends EXIT; BRA-to-itself: one BRA is that, a second the kept branch
    assert (ops.count("BRA") == 1) == converted, " ".join(ops)
