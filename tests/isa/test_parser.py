"""Parser: every error names file:line:col and what was expected; .loc line info; the bundled programs parse;
reconvergence points of small CFGs."""
from pathlib import Path

import pytest

from isa.errors import PtxError
from isa.parser import load_ptx, parse_ptx

PROGRAMS = sorted((Path(__file__).resolve().parents[2] / "programs").glob("*.ptx"))
HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def body(lines: str) -> str:
    # kernel body starts on line 7 of the text
    return HEAD + ".visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<4>;\n" + lines + "\n}\n"


def err(text: str) -> PtxError:
    with pytest.raises(PtxError) as ei:
        parse_ptx(text, "matmul.ptx")
    return ei.value


@pytest.mark.parametrize("line,col,msg", [
    ("        frob.rz.f16x2 %r1, %r2, %r3, %r1;", 9, "unknown opcode 'frob.rz.f16x2'"),
    ("\tadd.s32 %r1, %r9, %r2;", 15, "undeclared register %r9"),
    ("\tbra.uni NOWHERE;", 10, "label 'NOWHERE' not found"),
    ("\t.reg .b64 %rd1;\n\tadd.f32 %r1, %r2, %r3;\n\tadd.f32 %rd1, %rd1, %rd1;", None, "type mismatch"),
    ("\tadd.s32 %r1, %r2, %r3\n\tret;", None, "expected ',' or ';'"),
])
def test_errors_name_line_and_column(line, col, msg):
    e = err(body(line))
    assert msg in str(e)
    assert str(e).startswith(f"matmul.ptx:{e.line}:{e.col}: ")
    if col is not None:
        assert (e.line, e.col) == (7, col)


def test_type_mismatch_points_at_the_register():
    e = err(body("\t.reg .b64 %rd1;\n\tadd.f32 %r1, %rd1, %r2;"))
    assert (e.line, e.col) == (8, 15) and ".f32" in e.reason and "%rd1" in e.reason


def test_missing_semicolon_points_at_the_next_token():
    e = err(body("\tmov.u32 %r1, 1\n\tmov.u32 %r2, 2;"))
    assert (e.line, e.col) == (8, 2)


def test_bad_directives():
    assert "not supported" in err(HEAD.replace("8.0", "3.1")).reason
    e = err(HEAD + ".bogus 1;\n")
    assert (e.line, e.col) == (4, 1) and "directive" in e.reason
    e = err(HEAD + ".visible .entry k()\n{\n\t.reg .zz %r;\n}\n")
    assert e.line == 6 and "register type" in e.reason
    assert "missing .version" in err(".target sm_90\n").reason
    e = err(HEAD + ".const .align 3 .b32 x;\n")
    assert "power of two" in e.reason


def test_loc_and_file_line_info_inlined_code_keeps_its_own_line():
    """Code inlined from the .cu file keeps its own line; code inlined from a header takes the calling line."""
    text = HEAD + ('.file 1 "kern.cu"\n.file 2 "sm_30_intrinsics.hpp"\n.visible .entry k()\n{\n'
                   '\t.reg .b32 %r<4>;\n'
                   '\t.loc 1 10 3\n\tmov.u32 %r1, 1;\n'
                   '\t.loc 1 5 1, function_name $L__info_string0, inlined_at 1 22 7\n\tadd.u32 %r2, %r1, 1;\n'
                   '\t.loc 2 110 1, function_name $L__info_string1, inlined_at 1 23 7\n\tadd.u32 %r3, %r1, 2;\n'
                   '\tret;\n}\n')
    k = parse_ptx(text, "x.ptx").kernel()
    mov, body, intrinsic = k.instructions[0], k.instructions[1], k.instructions[2]
    assert (mov.src_file, mov.src_line, mov.line) == ("kern.cu", 10, 10)
    assert (body.src_file, body.src_line) == ("kern.cu", 5)        # the inlined body's own line, not the call's
    assert (intrinsic.src_file, intrinsic.src_line) == ("kern.cu", 23)     # a header's: the calling line


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_bundled_programs_parse(path):
    m = load_ptx(path)
    assert m.kernels
    for k in m.kernels.values():
        assert k.instructions[-1].base in ("ret", "exit", "bra")
        for ins in k.instructions:
            if ins.base == "bra":
                assert 0 <= ins.target < len(k.instructions)
                assert ins.target <= len(k.instructions) and 0 <= ins.reconverge <= len(k.instructions)


# ---- reconvergence ----------------------------------------------------------------------------------
def cfg(lines: str):
    k = parse_ptx(HEAD + ".visible .entry k()\n{\n\t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n" + lines + "\n}\n"
                  ).kernel()
    return k, {i.pc: i.reconverge for i in k.instructions if i.base == "bra"}


def test_reconvergence_if_without_else():
    k, r = cfg("@%p1 bra SKIP;\nmov.u32 %r1, 1;\nSKIP:\nmov.u32 %r2, 2;\nret;")
    assert r == {0: k.labels["SKIP"]}


def test_reconvergence_if_else():
    k, r = cfg("@%p1 bra ELSE;\nmov.u32 %r1, 1;\nbra.uni JOIN;\nELSE:\nmov.u32 %r1, 2;\nJOIN:\nret;")
    assert r[0] == k.labels["JOIN"] and r[2] == k.labels["JOIN"]


def test_reconvergence_loop_and_nested():
    k, r = cfg("LOOP:\nadd.u32 %r1, %r1, 1;\n@%p1 bra INNER;\nmov.u32 %r2, 1;\nINNER:\n@%p2 bra LOOP;\n"
               "mov.u32 %r3, 3;\nret;")
    assert r[1] == k.labels["INNER"]                       # nested if inside the loop
    assert r[k.labels["INNER"]] == k.labels["INNER"] + 1   # the back edge: after the loop


def test_reconvergence_early_return_is_exit():
    k, r = cfg("@%p1 bra DONE;\nmov.u32 %r1, 1;\n@%p2 ret;\nmov.u32 %r2, 2;\nDONE:\nret;")
    # one path may return early: the paths only meet at the kernel's exit
    assert r[0] == len(k.instructions)


def test_pragma_nounroll_marks_the_loop_header_it_precedes():
    k, _ = cfg('mov.u32 %r1, 0;\nLOOP:\n.pragma "nounroll";\nadd.u32 %r1, %r1, 1;\n@%p1 bra LOOP;\n'
               'AGAIN:\nadd.u32 %r2, %r2, 1;\n@%p2 bra AGAIN;\nret;')
    assert [i.nounroll for i in k.instructions] == [False, True, False, False, False, False]
