"""FMA contraction as ptxas does it (isa/contract.py): which mul + add/sub pairs become one fma.

Each case is one of the probes the rule was learnt from: PTX compiled by ptxas 13.0 for sm_90 (``ptxas
-arch=sm_90``, SASS read with ``cuobjdump -sass``), the SASS outcome in the comment.
"""
import numpy as np
import pytest

import gpusim
from isa import parse_ptx
from isa.link import link

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def prog(body: str, fmad=True):
    ptx = (HEAD + ".visible .entry k(.param .u64 p, .param .u32 n)\n{\n .reg .f32 %f<30>; .reg .f64 %fd<10>;"
           " .reg .pred %p<3>; .reg .b32 %r<4>; .reg .b64 %rd<4>;\n" + body + "\n}\n")
    m = parse_ptx(ptx)
    return link(m, m.kernel(), fmad=fmad)


def ops(p):
    return [i.opcode for i in p.instructions]


@pytest.mark.parametrize("body,fused,kept", [
    # single use: FFMA
    ("mul.f32 %f4, %f1, %f2; add.f32 %f5, %f4, %f3;", 1, []),
    # used by two adds: both FFMA, no FMUL left
    ("mul.f32 %f6, %f2, %f3; add.f32 %f7, %f6, %f1; sub.f32 %f8, %f6, %f2;", 2, []),
    # also stored: FMUL + FADD
    ("mul.f32 %f9, %f1, %f3; add.f32 %f10, %f9, %f2; st.global.f32 [%rd1], %f9;", 0, ["mul.f32", "add.f32"]),
    # an explicit rounding modifier on either: FMUL + FADD
    ("mul.rn.f32 %f11, %f1, %f1; add.f32 %f12, %f11, %f3;", 0, ["mul.rn.f32", "add.f32"]),
    ("mul.f32 %f13, %f2, %f2; add.rn.f32 %f14, %f13, %f3;", 0, ["mul.f32", "add.rn.f32"]),
    # a - x*y: FFMA with the product negated
    ("mul.f32 %f15, %f3, %f3; sub.f32 %f16, %f1, %f15;", 1, []),
    # f64: DFMA
    ("mul.f64 %fd3, %fd1, %fd2; add.f64 %fd4, %fd3, %fd1;", 1, []),
    # the add in the next basic block: FMUL + FADD
    ("mul.f32 %f11, %f4, %f4; setp.gt.u32 %p1, %r1, 5; @%p1 bra L1; add.f32 %f12, %f11, %f1; L1:", 0,
     ["mul.f32", "add.f32"]),
    # an immediate factor: FFMA
    ("mul.f32 %f13, %f2, 0f40400000; add.f32 %f14, %f13, %f3;", 1, []),
])
def test_which_pairs_ptxas_fuses(body, fused, kept):
    p = prog(body)
    assert p.contracted == fused
    assert [o for o in ops(p) if o.startswith(("mul", "add", "sub"))] == kept
    assert sum(o.startswith("fma") for o in ops(p)) == fused
    assert prog(body, fmad=False).contracted == 0          # --fmad=false


def test_both_operands_products_the_first_is_fused():
    """add(p1, p2) -> FFMA(p1's factors, p2) with p2 an FMUL; add(p2', p1') fuses p2' (ptxas's SASS)."""
    p = prog("mul.f32 %f5, %f1, %f2; mul.f32 %f6, %f3, %f4; add.f32 %f7, %f5, %f6;")
    fma = [i for i in p.instructions if i.base == "fma"][0]
    assert [o.name for o in fma.operands] == ["%f7", "%f1", "%f2", "%f6"]
    assert ops(p).count("mul.f32") == 1


def test_contracted_results_round_once():
    """x*y + c with x*y inexact: one rounding (fma) differs from two (mul then add) in the last bit."""
    body = """
    ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1;
    ld.global.f32 %f1, [%rd1]; ld.global.f32 %f2, [%rd1+4]; ld.global.f32 %f3, [%rd1+8];
    mul.f32 %f4, %f1, %f2; sub.f32 %f5, %f4, %f3;
    st.global.f32 [%rd1+12], %f5;
"""
    ptx = HEAD + ".visible .entry k(.param .u64 p)\n{\n .reg .f32 %f<8>; .reg .b64 %rd<2>;\n" + body + "}\n"
    x = np.float32(1 + 2 ** -12)
    buf = np.array([x, x, np.float32(1 + 2 ** -11), 0], np.float32)     # x*x = 1 + 2^-11 + 2^-24
    fused = gpusim.run(ptx, grid=1, block=1, args=[buf]).args[0][3]
    split = gpusim.run(ptx, grid=1, block=1, args=[buf], fmad=False).args[0][3]
    assert fused == np.float32(2.0 ** -24) and split == 0.0
    res = gpusim.run(ptx, grid=1, block=1, args=[buf], mode="timing")
    assert [i.opcode for i in res.trace.instructions if "f32" in i.opcode and "ld" not in i.opcode
            and "st" not in i.opcode] == ["fma.rn.f32"]                  # the timing model sees one FFMA


def test_cli_fmad_flag(tmp_path, capsys):
    from gpusim.cli import main
    ptx = tmp_path / "k.ptx"
    ptx.write_text(HEAD + ".visible .entry k(.param .u64 p)\n{\n .reg .f32 %f<8>; .reg .b64 %rd<2>;\n"
                   " ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1; ld.global.f32 %f1, [%rd1];\n"
                   " mul.f32 %f2, %f1, %f1; add.f32 %f3, %f2, %f1; st.global.f32 [%rd1], %f3;\n}\n")
    (tmp_path / "k.toml").write_text('[program]\nkernel = "k"\ndefault_size = "default"\n\n[sizes]\n'
                                     'default = { n = 32 }\n\n[launch]\ngrid = [1]\nblock = [32]\n\n'
                                     '[[args]]\nname = "p"\nshape = ["n"]\ndtype = "float32"\nfill = "uniform"\n')
    for flag, n in (("true", 1), ("false", 2)):       # ld.param cvta ld mul? add st (+ the implicit exit)
        assert main(["run", str(ptx), "--mode", "emulate", f"--fmad={flag}"]) == 0
        out = capsys.readouterr().out
        assert f"warp instructions {5 + n:,} " in out
