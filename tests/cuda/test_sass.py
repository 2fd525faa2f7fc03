"""SASS per PTX line from the real ptxas and nvdisasm (gpusim.cuda.sass); the parsing and line marking run
everywhere, the tools' part only where they are installed (pip install -e .[sass])."""
from __future__ import annotations

import pytest

import gpusim
import programs
from gpusim.cuda import sass
from gpusim.timing.vector_merge import find_merge_groups

NVDISASM = """
//--------------------- .text.k     --------------------------
.text.k:
	//## File "ptx", line 12
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "ptx", line 14
        /*0010*/                   LDS.128 R12, [R5] ;
        /*0020*/              @!P0 BRA `(.L_x_0) ;
	//## File "ptx", line 20
        /*0030*/                   EXIT ;
.L_x_1:
        /*0040*/                   BRA `(.L_x_1);
        /*0050*/                   NOP;
"""


def test_nvdisasm_output_is_grouped_by_kernel_and_ptx_line():
    got = sass.parse_nvdisasm(NVDISASM)
    assert got == {"k": {12: ["LDC"], 14: ["LDS.128", "BRA"], 20: ["EXIT", "BRA"]}}


def test_marked_ptx_names_its_own_lines():
    ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.file 1 \"k.cu\"\n{\n\t.loc 1 3 0\n\tmov.u32 %r1, %tid.x;\n}\n"
    out = sass.mark_ptx_lines(ptx).splitlines()
    assert '.file 1 "ptx"' in out and "\t.loc 1 7 0" in out and all("k.cu" not in x for x in out)
    assert out[out.index("\t.loc 1 7 0") + 1].strip() == "mov.u32 %r1, %tid.x;"


def test_marking_keeps_local_declarations():
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n.entry k()\n{\n\t.local .align 16 .b8 __local_depot0[80];\n"
           "\t.loc\t1 66 0\n\tmov.u64 %SPL, __local_depot0;\n}\n")
    out = sass.mark_ptx_lines(ptx).splitlines()
    assert "\t.local .align 16 .b8 __local_depot0[80];" in out and "\t.loc\t1 66 0" not in out
    assert out[out.index("\tmov.u64 %SPL, __local_depot0;") - 1] == "\t.loc 1 8 0"


def test_vector_width_of_sass_accesses():
    assert [sass.vector_width_bytes(o) for o in ("LDS.128", "STS.64", "LDG.E.128", "LDS", "LDG.E")] == [16, 8, 16, 4, 4]


@pytest.mark.skipif(sass.find_tools() is None, reason="ptxas and nvdisasm are not installed")
@pytest.mark.parametrize("size", ["small", "small_tile32"])
def test_matmul_tiled_merges_are_those_of_ptxas_and_its_sass_count_is_ncus(size):
    """The rule's LDS.128 groups are the ones ptxas makes, and each PTX line's SASS count times its executions
    is ncu's smsp__inst_executed.sum within 1% (tests/golden/h100/matmul_tiled__small*.json)."""
    import json
    from pathlib import Path
    spec = programs.get("matmul_tiled")
    t = gpusim.run("matmul_tiled", size=size, mode="emulate", record_trace=True).trace
    lines = sass.sass_by_ptx_line(spec.ptx_path.read_text())[t.kernel]
    rule = find_merge_groups(t)
    ptxas = find_merge_groups(t, decide=sass.merge_decider(t, lines))
    assert rule == ptxas and len(rule) >= 4
    rec = json.loads((Path(__file__).resolve().parents[1] / "golden" / "h100" / f"matmul_tiled__{size}.json")
                     .read_text())
    assert sass.sass_instructions_executed(t, lines) == pytest.approx(rec["counters"]["smsp__inst_executed.sum"],
                                                                       rel=0.01)


@pytest.mark.skipif(sass.find_tools() is None, reason="ptxas and nvdisasm are not installed")
def test_ptxas_widens_no_scalar_global_access():
    """Why vector_merge leaves global accesses alone: each wide LDG/STG ptxas emits stands on a PTX line that is
    already a vector or 64-bit access (ptxas cannot prove a pointer argument's alignment).  Here on programs with
    neighbouring scalar global accesses, PTX vectors and local memory; benchmarks/ptxas_passes.py checks all."""
    counts = [sass.wide_global_accesses(programs.get(n).ptx_path.read_text())
              for n in ("matmul_tiled", "polybench/gemm", "hecbench/black_scholes", "shoc/md5hash", "shoc/md")]
    assert sum(w for w, _ in counts) > 0 and [x for _, xs in counts for x in xs] == []


@pytest.mark.skipif(sass.find_tools() is None, reason="ptxas and nvdisasm are not installed")
def test_the_warp_aggregation_rule_marks_the_atomics_ptxas_aggregates_in_every_program():
    """isa.aggregate's mark on every atom/red of every bundled and suite program is what ptxas did: a leader
    election or REDUX on the atomic's SASS line, or neither (61 atomics, 13 of them aggregated, with ptxas 13.0)."""
    n, agg, differ = sass.aggregation_rule_vs_ptxas(
        {name: programs.get(name).ptx_path.read_text() for name in programs.names() + programs.suite_names()})
    assert differ == [] and n >= 60 and agg >= 13


@pytest.mark.skipif(sass.find_tools() is None, reason="ptxas and nvdisasm are not installed")
def test_every_global_atom_whose_result_nothing_reads_is_a_red_in_the_sass():
    """isa.aggregate's ``result_unread`` mark on every global atom of every bundled and suite program is what
    ptxas did: RED where nothing reads the result, ATOM where something does (53 atoms, 39 of them RED, with
    ptxas 13.0)."""
    n, reds, differ = sass.reduction_rule_vs_ptxas(
        {name: programs.get(name).ptx_path.read_text() for name in programs.names() + programs.suite_names()})
    assert differ == [] and n >= 50 and reds >= 39 and n - reds >= 14
