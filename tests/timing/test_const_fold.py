"""Datasheet of the constant-operand pass: which ``ld.const`` ptxas turns into ``c[bank][offset]`` operands."""
from __future__ import annotations

import numpy as np

import gpusim
from gpusim.config import load_gpu
from gpusim.timing.const_fold import find_constant_operands, fold_constant_operands


def _trace(program, size="small"):
    return gpusim.run(program, size=size, mode="emulate", record_trace=True).trace


def test_a_fixed_address_mask_load_becomes_an_operand():
    # conv2d_tiled reads its 5 x 5 __constant__ mask at fixed addresses: ptxas issues no LDC for them (ncu on the
    # H100, default size: 1,250,956 warp instructions; the PTX as written 1,517,360)
    t = _trace("conv2d_tiled")
    pcs = find_constant_operands(t)
    assert len(pcs) == 25
    assert all(t.instructions[p].opcode.startswith("ld.const") for p in pcs)
    folded = fold_constant_operands(t, pcs)
    runs = int(np.isin(t.pc, pcs).sum())
    assert folded.n_instructions == t.n_instructions - runs
    gone = {t.instructions[p].dst_regs[0] for p in pcs}
    assert not any(gone & set(i.src_regs) for i in folded.instructions)
    assert folded.addresses.shape[0] == t.addresses.shape[0] - runs       # their constant accesses go too
    # every kept PC maps back to where it came from; a branch lands on the first kept PC at or after its target
    origin = folded.meta["origin_pc"]
    assert [t.instructions[o].opcode for o in origin] == [i.opcode for i in folded.instructions]
    for i in folded.instructions:
        if i.branch_target >= 0:
            target = t.instructions[origin[i.pc]].branch_target
            assert origin[i.branch_target] == min(o for o in origin if o >= target)


def test_a_load_through_an_address_register_stays_an_instruction():
    # conv1d_const indexes its __constant__ mask with a register: ptxas keeps an LDC
    t = _trace("conv1d_const")
    assert any(i.opcode.startswith("ld.const") for i in t.instructions)
    assert find_constant_operands(t) == []
    assert fold_constant_operands(t) is t


def test_the_pass_is_the_configs_choice():
    t = _trace("conv2d_tiled")
    runs = int(np.isin(t.pc, find_constant_operands(t)).sum())
    on = gpusim.run("conv2d_tiled", size="small", mode="timing", gpu="h100").timing
    off = gpusim.run("conv2d_tiled", size="small", mode="timing",
                     gpu=load_gpu("h100").replace(fold_constant_operands=False)).timing
    assert runs > 0
    assert off.counters["smsp__inst_executed.sum"] - on.counters["smsp__inst_executed.sum"] == runs
    assert on.cycles < off.cycles


def test_copies_of_one_load_count_as_one_writer():
    # an unrolled loop's last copy writes the body's own register names again: two writers in the trace, one
    # PTX instruction (meta["origin_pc"]); both copies fold
    from gpusim.functional.trace import StaticInstr
    from gpusim.timing.synthetic import ins, make_trace
    ldc = dict(opcode="ld.const.f32", unit="lsu", latency_class="const", mem_space="const", is_load=True)
    prog = [ins("fma", dst=[9], src=[2, 2]), ins("fma", dst=[3], src=[1, 2]),
            ins("fma", dst=[9], src=[2, 2]), ins("fma", dst=[3], src=[1, 2]), ins("exit")]
    t = make_trace(prog)
    instrs = list(t.instructions)
    for p in (0, 2):
        instrs[p] = StaticInstr(pc=p, dst_regs=(1,), ptx_line=p + 1, **ldc)
    t.instructions = instrs
    assert find_constant_operands(t) == []                 # two writers of r1, as far as the trace says
    t.meta["origin_pc"] = [0, 1, 0, 1, 4]
    assert find_constant_operands(t) == [0, 2]
