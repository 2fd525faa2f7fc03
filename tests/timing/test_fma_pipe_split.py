"""Datasheet of the ALU pipe and the two FMA-pipe halves on the h100 preset (``fma_pipe_split``), against the
H100's record ``tests/golden/h100/micro/intpipe`` (benchmarks/micro/intpipe; ncu per-pipe counts, SASS).

``intpipe.cu``: one block on one SM, 8 independent register rings a thread, 64 PTX instructions a trip,
256 trips.  ncu says where each SASS instruction went: IMAD, IMAD.IADD and VIADD to FMA-heavy only, LOP3 and
IADD3 to the ALU pipe, FFMA to FMA-heavy and FMA-lite alike, each pipe busy 2 cycles a warp instruction.
ptxas writes a 32-bit add as IADD3 or IMAD.IADD to balance the ALU pipe and FMA-heavy.  The model's cycles
are compared with ncu's ``sm__cycles_elapsed.sum`` over the 132 SMs (the launch's length, its start included)
on the kernels whose SASS has the PTX's instruction count (in the others ptxas simplified the xor rings).
"""
from __future__ import annotations

import collections
import csv
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim.config import load_gpu
from gpusim.timing.decode import FMA_HEAVY_PIPE, SMSP_PIPES, DecodedKernel, static_block_leaders
from isa.units import Unit

RECORD = Path(__file__).resolve().parents[1] / "golden" / "h100" / "micro" / "intpipe"
PTX = (RECORD / "intpipe.ptx").read_text()
SMS = 132
THREADS = 1024          # 8 warps a sub-partition: the pipes, not latency, set the pace


def _ncu() -> dict:
    rows = list(csv.reader((RECORD / "ncu.csv").open()))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    h = rows[head]
    out: dict = collections.defaultdict(dict)
    for r in rows[head + 1:]:
        threads = int(r[h.index("Block Size")].strip("()").split(",")[0])
        out[(r[h.index("Kernel Name")], threads)][r[h.index("Metric Name")]] = \
            float(r[h.index("Metric Value")].replace(",", ""))
    return out


NCU = _ncu()


def _args():
    return [0x9E3779B9, np.float32(0.999), np.zeros(1024, np.uint32), np.zeros(1, np.int64)]


def _loop_pipes(kernel: str) -> collections.Counter:
    """(PTX opcode, pipe) of each PC of the kernel's loop body (its largest basic block), as decoded on h100."""
    trace = gpusim.run(PTX, kernel=kernel, grid=(1, 1, 1), block=(32, 1, 1), args=_args(), mode="emulate",
                       record_trace=True).trace
    dk = DecodedKernel(trace, load_gpu("h100"))
    bounds = [*static_block_leaders(trace.instructions, through_if_converted=True).tolist(), len(trace.instructions)]
    b0, b1 = max(zip(bounds, bounds[1:]), key=lambda b: b[1] - b[0])
    names = {i: u.value for i, u in enumerate(SMSP_PIPES)} | {FMA_HEAVY_PIPE: "fma_heavy"}
    return collections.Counter((trace.instructions[i].opcode, names[dk.pipe[i]]) for i in range(b0, b1))


def test_the_h100_runs_integer_multiplies_and_imad_iadd_on_fma_heavy_and_ffma_on_both_halves():
    # the record itself, as the preset's comment cites it
    imad, lop_iadd, ffma = NCU[("tp_imad", 1024)], NCU[("tp_lop_iadd", 1024)], NCU[("tp_ffma", 1024)]
    assert imad["sm__inst_executed_pipe_fmaheavy.sum"] > 0.95 * imad["sm__inst_executed.sum"]
    assert lop_iadd["sm__inst_executed_pipe_fmaheavy.sum"] == pytest.approx(
        lop_iadd["sm__inst_executed_pipe_alu.sum"], rel=0.01)              # 32 IMAD.IADD : 32 LOP3
    assert ffma["sm__inst_executed_pipe_fmalite.sum"] == pytest.approx(
        ffma["sm__inst_executed_pipe_fmaheavy.sum"], rel=0.01)
    for m in (imad, lop_iadd, ffma):                                       # 2 cycles a warp instruction
        assert m["sm__pipe_fmaheavy_cycles_active.sum"] == pytest.approx(
            2 * m["sm__inst_executed_pipe_fmaheavy.sum"], rel=0.01)


def test_adds_go_where_the_loop_leaves_room_as_ptxas_writes_them():
    # each loop also has its trip counter's add: 65 adds in tp_iadd, 33 in the mixes
    alone = _loop_pipes("tp_iadd")
    assert (alone[("add.s32", "int")], alone[("add.s32", "fma_heavy")]) == (32, 33)   # ptxas: 30 IADD3, 34 IMAD.IADD
    beside_xor = _loop_pipes("tp_lop_iadd")
    assert beside_xor[("add.s32", "fma_heavy")] >= 32                          # ptxas: 32 IMAD.IADD
    assert beside_xor[("xor.b32", "int")] == 32
    beside_ffma = _loop_pipes("tp_ffma_iadd")
    assert beside_ffma[("add.s32", "int")] > beside_ffma[("add.s32", "fma_heavy")]   # ptxas: 26 IADD3, 6 IMAD.IADD


def test_ffma_beside_imad_goes_to_fma_lite():
    # and takes FMA-heavy only when no IMAD is ready for it (gpusim.timing.sm.SubPartition.merge_spare)
    pipes = _loop_pipes("tp_ffma_imad")
    assert pipes[("fma.rn.f32", Unit.FP32.value)] == 32
    assert pipes[("mad.lo.s32", "fma_heavy")] == 32


def test_every_ffma_tries_fma_lite_first_and_fma_heavy_second():
    # ncu: a pure FFMA stream splits 50/50 (FMA-lite busy every other cycle), beside adds 259k of 262k on FMA-lite
    trace = gpusim.run(PTX, kernel="tp_ffma", grid=(1, 1, 1), block=(32, 1, 1), args=_args(), mode="emulate",
                       record_trace=True).trace
    dk = DecodedKernel(trace, load_gpu("h100"))
    ffma = [i for i, ins in enumerate(trace.instructions) if ins.opcode == "fma.rn.f32"]
    assert len(ffma) >= 64
    assert {(dk.pipe[i], dk.alt_pipe[i]) for i in ffma} == {(SMSP_PIPES.index(Unit.FP32), FMA_HEAVY_PIPE)}


# measured: imad +0.4%, iadd -3.8%, lop_imad +0.9%, lop_iadd -7.3%, ffma_imad +3.7%, ffma_iadd +14.1% (its adds on
# FMA-heavy wait for the FFMAs that took that half while FMA-lite was busy)
@pytest.mark.parametrize("kernel,within", [
    ("tp_imad", 0.03), ("tp_iadd", 0.05), ("tp_lop_imad", 0.03), ("tp_lop_iadd", 0.10), ("tp_ffma_imad", 0.06),
    ("tp_ffma_iadd", 0.16),
])
def test_a_mix_takes_the_measured_cycles(kernel, within):
    m = NCU[(kernel, THREADS)]
    res = gpusim.run(PTX, kernel=kernel, grid=(1, 1, 1), block=(THREADS, 1, 1), args=_args(), mode="timing",
                     gpu="h100", sample=False)
    assert res.timing.counters["smsp__inst_executed.sum"] == pytest.approx(m["sm__inst_executed.sum"], rel=0.03)
    assert res.timing.cycles == pytest.approx(m["sm__cycles_elapsed.sum"] / SMS, rel=within)


def test_one_alu_pipe_for_all_integer_work_took_twice_as_long_on_xor_beside_imad():
    # what the model did before fma_pipe_split (IMAD and adds on the ALU pipe): the mechanism is the cause
    m = NCU[("tp_lop_imad", THREADS)]
    res = gpusim.run(PTX, kernel="tp_lop_imad", grid=(1, 1, 1), block=(THREADS, 1, 1), args=_args(),
                     mode="timing", gpu=load_gpu("h100").replace(fma_pipe_split=False), sample=False)
    assert res.timing.cycles > 1.6 * m["sm__cycles_elapsed.sum"] / SMS
