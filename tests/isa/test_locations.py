"""Parse errors in PTX generated from CUDA name the CUDA line of the ``.loc`` in force (the ``.file`` table is
read first: nvcc writes it at the end), print that line of the ``.cu`` beside the PTX, and keep the PTX
position (``err.line``, ``err.col``) as secondary detail."""
from pathlib import Path

import pytest

from isa.errors import PtxError
from isa.parser import load_ptx, parse_ptx

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TEXT = (FIXTURES / "faults.ptx").read_text()
CU_LINES = (FIXTURES / "faults.cu").read_text().splitlines()


def cu_line(fragment: str) -> int:
    (n,) = [i for i, text in enumerate(CU_LINES, 1) if fragment in text]
    return n


def parse_error(old: str, new: str) -> PtxError:
    assert TEXT.count(old) == 1
    with pytest.raises(PtxError) as ei:
        parse_ptx(TEXT.replace(old, new), "faults.ptx", FIXTURES)
    return ei.value


def test_the_fixture_parses_and_its_instructions_carry_their_cuda_lines():
    m = load_ptx(FIXTURES / "faults.ptx")
    (st,) = [i for i in m.kernel("out_of_bounds").instructions if i.opcode == "st.global.f32"]
    assert (st.src_file, st.src_line) == ("faults.cu", cu_line("out[i] = 2.0f * i;"))
    assert m.location(st).cuda_text.strip().startswith("out[i] = 2.0f * i;")


def test_an_unknown_opcode_names_the_cuda_line_then_shows_it_and_the_ptx_position():
    e = parse_error("add.rz.f64 \t%fd3", "add.rz.f64x2 \t%fd3")
    head, source, ptx = str(e).splitlines()
    line = cu_line("__dadd_rz")
    assert head == f"faults.cu:{line}: unknown opcode 'add.rz.f64x2': '.f64x2' is not a modifier or type of add"
    assert source.split("|")[0].strip() == str(line) and "__dadd_rz(x[threadIdx.x], 1.0);" in source
    assert ptx.strip() == f"PTX faults.ptx:{e.line}:{e.col}: add.rz.f64x2 %fd3, %fd1, %fd2;"


def test_an_operand_error_found_when_decoding_names_its_instructions_cuda_line():
    e = parse_error("st.global.f32 \t[%rd4], %f2;", "st.global.f32 \t[%rd4], %rd1;")
    assert str(e).startswith(f"faults.cu:{cu_line('out[i] = 2.0f * i;')}: type mismatch")
    assert e.location.ptx_text == "st.global.f32 [%rd4], %rd1;"


def test_an_error_before_a_kernels_first_loc_names_the_ptx_line_only():
    # the previous kernel's .loc lines must not leak into the next kernel's declarations
    e = parse_error(".visible .entry spin(", ".visible .entry spin(\n\t.param .b99 nonsense,")
    assert e.location.cuda_line is None and str(e).startswith(f"faults.ptx:{e.line}:{e.col}: ")

