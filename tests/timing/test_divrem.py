"""Datasheet of the integer-division pass: each PTX div/rem issues the SASS instructions ptxas 13.0 makes of it.

The figures come from the records in ``tests/golden/h100/micro/divrem`` (``.sass`` listings of ptxas -arch=sm_90),
parsed here: an operation's own instructions are its kernel's executed SASS (through EXIT, and through the RET of
a subroutine it calls) less those of the kernel that adds instead; for a 64-bit operation, which ptxas makes a
call, the call site (return address, CALL) and the subroutine through its RET.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim.config import load_gpu
from gpusim.timing.divrem import expand_divisions, find_divisions, sass_sequence
from isa.units import Unit

RECORDS = Path(__file__).resolve().parents[1] / "golden" / "h100" / "micro" / "divrem"
PTX = (RECORDS / "divrem_ptx.ptx").read_text()
_FUNC = re.compile(r"^\.text\.([\w$.]+):|^(\$__internal\S+):|Function : (\S+)")
_INSTR = re.compile(r"/\*([0-9a-f]{4})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
XU = ("I2F", "F2I", "MUFU")


def parse_sass(path: Path) -> dict[str, list[tuple[int, str, str]]]:
    """Function name -> [(address, mnemonic, operands)] of a cuobjdump -sass or nvdisasm listing."""
    out: dict[str, list] = {}
    fn = None
    for line in path.read_text().splitlines():
        m = _FUNC.search(line.strip())
        if m:
            fn = next(g for g in m.groups() if g)
            out.setdefault(fn, [])
            continue
        m = _INSTR.search(line)
        if m and fn is not None:
            out[fn].append((int(m.group(1), 16), m.group(3), m.group(4)))
    return out


def _through(instrs, mnemonic_head):
    k = next(i for i, (_, op, _) in enumerate(instrs) if op.split(".")[0] == mnemonic_head)
    return instrs[:k + 1]


def executed(listing, kernel) -> tuple[list[str], list[str]]:
    """(the kernel's straight-line SASS through EXIT, the subroutine it calls through RET)."""
    main = _through(listing[kernel], "EXIT")
    sub: list[str] = []
    for _, op, rest in main:
        if op.startswith("CALL"):
            name = re.search(r"\((\$[^)]+)\)", rest)
            if name:                                  # nvdisasm: the subroutine is its own label
                body = listing[name.group(1)]
            else:                                     # cuobjdump: an address in the same function
                at = int(re.search(r"0x([0-9a-f]+)", rest).group(1), 16)
                body = [i for i in listing[kernel] if i[0] >= at]
            sub = [op for _, op, _ in _through(body, "RET")]
    return [op for _, op, _ in main], sub


PTX_SASS = parse_sass(RECORDS / "divrem_ptx.sass")
def _sass_count(kernel: str) -> int:
    base = "base64" if "64" in kernel else "base"
    main, sub = executed(PTX_SASS, kernel)
    if sub:
        return 2 + len(sub)
    return len(main) - len(executed(PTX_SASS, base)[0])


def _kernel_name(op_type: str, imm: str) -> str:
    op, t = op_type.split(".")
    return f"{t[0]}{op}{'64' if t.endswith('64') else ''}{('_' if t.endswith('64') else '') + imm if imm else ''}"


CASES = [(ot, imm) for ot in ("rem.u32", "div.u32", "rem.s32", "div.s32") for imm in ("", "7", "3", "8", "1000")] + \
        [(ot, imm) for ot in ("rem.u64", "div.u64", "rem.s64", "div.s64") for imm in ("", "7")]


@pytest.mark.parametrize("op_type,imm", CASES)
def test_the_sequence_has_the_sass_records_count_and_xu_share(op_type, imm):
    kernel = _kernel_name(op_type, imm)
    seq = sass_sequence(op_type, bool(imm))
    assert len(seq) == _sass_count(kernel)
    main, sub = executed(PTX_SASS, kernel)
    xu = sum(op.split(".")[0] in XU for op in main + sub)
    assert xu == 3                                          # I2F, MUFU.RCP, F2I: the reciprocal
    assert sum(s.unit is Unit.SFU for s in seq) == xu


@pytest.mark.parametrize("op_type,imm", [(ot, imm) for ot, imm in CASES if imm in ("", "7")])
def test_the_sequence_has_the_sass_records_imads_and_hfma2s(op_type, imm):
    # the steps are the SASS's own: its IMADs (the half-rate multiplies) and HFMA2s (FP32 pipe) in number
    kernel = _kernel_name(op_type, imm)
    seq = sass_sequence(op_type, bool(imm))
    main, sub = executed(PTX_SASS, kernel)
    base = executed(PTX_SASS, "base64" if op_type.endswith("64") else "base")[0]
    for head in ("IMAD", "HFMA2"):
        def count(ops):
            return sum(op.split(".")[0] == head for op in ops)
        theirs = count(sub) if sub else count(main) - count(base)
        assert sum(s.mnemonic.split(".")[0] == head for s in seq) == theirs


SHARED_SASS = parse_sass(RECORDS / "divrem_shared.sass")


@pytest.mark.parametrize("t", ["u32", "s32"])
@pytest.mark.parametrize("first", ["div", "rem"])
@pytest.mark.parametrize("second", ["div", "rem"])
def test_a_second_division_by_the_same_divisor_is_the_tail(t, first, second):
    # divrem_shared.ptx: (tid + a) / b, then that quotient OP b: ptxas computes b's reciprocal once
    k = f"{t[0]}{first}"
    tail = len(executed(SHARED_SASS, f"{k}_{second}")[0]) - len(executed(SHARED_SASS, k)[0])
    seq = sass_sequence(f"{second}.{t}", False, after=first)
    assert len(seq) == tail
    assert not any(s.unit is Unit.SFU for s in seq)
    assert sum(op.split(".")[0] in XU for op in executed(SHARED_SASS, f"{k}_{second}")[0]) == 3


@pytest.mark.parametrize("t", ["u32", "s32"])
@pytest.mark.parametrize("first", ["div", "rem"])
def test_the_other_kind_on_the_same_operands_is_the_correction(t, first):
    # a / b then a % b (or the other way round): both come out of one reciprocal and one quotient
    other = "rem" if first == "div" else "div"
    k = f"{t[0]}{first}"
    extra = len(executed(SHARED_SASS, f"{k}_same_{other}")[0]) - len(executed(SHARED_SASS, f"{k}_add")[0])
    assert len(sass_sequence(f"{other}.{t}", False, after=first, same_operands=True)) == extra


def test_the_pass_finds_which_divisions_share():
    ptx = (RECORDS / "divrem_shared.ptx").read_text()
    for kernel, lengths in (("sdiv_div", [23, 16]), ("udiv_same_rem", [18, 3]), ("srem_rem", [21, 12])):
        o = np.zeros(32, dtype=np.uint32)
        t = gpusim.run(ptx, kernel=kernel, grid=(1, 1, 1), block=(32, 1, 1), args=[o, 5, 3], mode="emulate",
                       record_trace=True).trace
        assert [len(s) for _, s in sorted(find_divisions(t).items())] == lengths


GUARDED = """.version 8.0
.target sm_90
.address_size 64
.visible .entry guarded(.param .u64 o, .param .u32 a, .param .u32 b)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [o];
	ld.param.u32 %r1, [a];
	ld.param.u32 %r2, [b];
	mov.u32 %r3, %tid.x;
	add.s32 %r4, %r3, %r1;
	setp.lt.u32 %p1, %r3, 16;
	mov.u32 %r5, 0;
	@%p1 div.u32 %r5, %r4, 7;
	@%p1 rem.u32 %r6, %r4, %r2;
	rem.u32 %r7, %r4, %r2;
	add.s32 %r5, %r5, %r6;
	add.s32 %r5, %r5, %r7;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r3, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r5;
	ret;
}
"""


def test_a_guarded_division_keeps_its_form_and_stands_alone():
    # the guard is a register the trace lists first: `@%p div.u32 d, a, 7` is the by-an-immediate form, and a
    # guarded division neither reuses nor lends its reciprocal (the next rem.u32 by %r2 is whole)
    o = np.zeros(32, dtype=np.uint32)
    t = gpusim.run(GUARDED, kernel="guarded", grid=(1, 1, 1), block=(32, 1, 1), args=[o, 5, 3], mode="emulate",
                   record_trace=True).trace
    lengths = [len(s) for _, s in sorted(find_divisions(t).items())]
    assert lengths == [len(sass_sequence("div.u32", True)), len(sass_sequence("rem.u32", False)),
                       len(sass_sequence("rem.u32", False))]


def test_a_dominating_blocks_division_is_reused():
    # SHOC bfs: a / b, then a % b in a later block that the first one's dominates; both registers written once.
    # ptxas 13.0 makes the remainder 7 instructions (gpusim.cuda.sass line attribution of programs/suites/shoc/bfs.ptx)
    t = _trace("programs/suites/shoc/bfs.ptx")
    found = find_divisions(t)
    ops = {t.instructions[p].opcode: len(s) for p, s in found.items()}
    assert ops == {"div.s32": 23, "rem.s32": len(sass_sequence("rem.s32", False, after="div", same_operands=True))}
    blocks = [t.instructions[p] for p in found]
    assert any(i.is_branch for i in t.instructions[blocks[0].pc:blocks[1].pc])   # not one block


def test_each_step_runs_on_its_pipe():
    # GH100: the reciprocal on the XU (the model's sfu pipe, short scoreboard), IMAD on the FMA-heavy pipe (the
    # model's fp32 pipe at the IMAD rate), the other integer steps on the ALU pipe, HFMA2 on the FMA pipe
    from isa.units import LatencyClass
    seq = sass_sequence("div.s32", False)
    pipes = {s.mnemonic: (s.unit, s.latency_class) for s in seq}
    assert pipes["MUFU.RCP"] == (Unit.SFU, LatencyClass.SFU) and pipes["I2F.RP"] == (Unit.SFU, LatencyClass.CONVERT)
    assert pipes["IMAD.HI.U32"] == (Unit.FP32, LatencyClass.IMAD)
    assert pipes["ISETP.GT.U32"] == (Unit.INT, LatencyClass.ALU) and pipes["LOP3.LUT"] == (Unit.INT, LatencyClass.ALU)
    assert pipes["IABS"] == (Unit.INT, LatencyClass.ALU)
    counts = {u: sum(s.unit is u for s in seq) for u in Unit}
    assert (counts[Unit.SFU], counts[Unit.FP32], counts[Unit.INT]) == (3, 7, 13)


def test_the_cuda_records_agree_with_the_ptx_record():
    # the .cu kernels (nvcc -O3) compile the division to the same SASS as the PTX instruction alone
    cu = parse_sass(RECORDS / "divrem_register.sass")
    for kernel in ("urem", "udiv", "srem", "sdiv"):
        assert len(executed(cu, kernel)[0]) - len(executed(cu, "base")[0]) == _sass_count(kernel)
    # div.u64: nvcc's PTX tests whether both operands fit in 32 bits first; the 64-bit path calls the subroutine
    # the PTX record's div.u64 calls (same length; its divisor in a register)
    const = parse_sass(RECORDS / "divrem_constant.sass")
    assert 2 + len(executed(const, "udiv64")[1]) == _sass_count("udiv64")


def test_a_division_by_a_constant_in_cuda_never_reaches_ptxas_as_a_division():
    # the 4-5-instruction SASS of `x / 7u` comes from nvcc's front end, which emits the multiply by the inverse in
    # the PTX (mul.hi, shifts): the PTX instruction count already covers it, and the pass has nothing to expand
    cu = parse_sass(RECORDS / "divrem_constant.sass")
    for kernel in ("udiv7", "urem7", "sdiv7", "srem7"):
        main, sub = executed(cu, kernel)
        assert not sub and not any(op.split(".")[0] in XU for op in main)
        assert 4 <= len(main) - len(executed(cu, "base1")[0]) <= 5
    t = _trace("vector_add")
    assert find_divisions(t) == {} and expand_divisions(t) is t


def _run(kernel, gpu, a=5, b=3, warps=1):
    w = 64 if "64" in kernel else 32
    o = np.zeros(32 * warps, dtype=np.uint64 if w == 64 else np.uint32)
    res = gpusim.run(PTX, kernel=kernel, grid=(1, 1, 1), block=(32 * warps, 1, 1), args=[o, a, b], mode="timing",
                     gpu=gpu, sample=False)
    return res


OFF = load_gpu("h100").replace(expand_integer_division=False)


@pytest.mark.parametrize("kernel", ["urem", "udiv", "srem", "sdiv", "urem7", "sdiv7", "udiv64", "srem64_7"])
def test_each_execution_issues_the_whole_sequence(kernel):
    on, off = _run(kernel, "h100", warps=2), _run(kernel, OFF, warps=2)
    n = on.timing.counters["smsp__inst_executed.sum"] - off.timing.counters["smsp__inst_executed.sum"]
    assert n == 2 * (_sass_count(kernel) - 1)               # two warps, each one division more than one instruction
    np.testing.assert_array_equal(on.args[0], off.args[0])         # the emulator's result either way


def test_the_outputs_are_the_emulators():
    for kernel, op in (("urem", np.remainder), ("udiv", np.floor_divide)):
        res = _run(kernel, "h100", a=1000, b=7)
        np.testing.assert_array_equal(res.args[0], op(np.arange(32) + 1000, 7))


def test_one_division_costs_its_chains_latency():
    # one warp, one rem.u32 by a register: the kernel takes longer by the chain's latencies (I2F -> MUFU.RCP -> F2I
    # on the XU, 12 integer steps; an ISETP whose predicate guards the next step at the guard latency) less the one
    # instruction it was; the two steps off the chain cost an issue slot
    gpu = load_gpu("h100")
    seq = sass_sequence("rem.u32", False)
    on_chain = [s for s in seq if s.chained]
    chain = sum(gpu.guard_latency_cycles if s.writes_guard and nxt.guarded_after_setp else gpu.latency(s.latency_class)
                for s, nxt in zip(on_chain, on_chain[1:] + [None]) if nxt is not None) + \
        gpu.latency(on_chain[-1].latency_class)
    assert chain == sum(gpu.latency(s.latency_class) for s in on_chain) + 2 * (gpu.guard_latency_cycles - 4)
    was = gpu.latency("sfu")
    delta = _run("urem", "h100").timing.cycles - _run("urem", OFF).timing.cycles
    off_chain = sum(not s.chained for s in seq)
    assert chain - was <= delta <= chain - was + off_chain * gpu.issue_interval(Unit.INT) + 4


def _trace(program, size="small"):
    return gpusim.run(program, size=size, mode="emulate", record_trace=True).trace


def test_rows_pcs_and_branches_after_the_expansion():
    t = _trace("reduce_interleaved")
    found = find_divisions(t)
    assert [t.instructions[p].opcode for p in found] == ["rem.u32"]
    e = expand_divisions(t, found)
    (p, seq), = found.items()
    runs = int((t.pc == p).sum())
    assert e.n_instructions == t.n_instructions + runs * (len(seq) - 1)
    assert len(e.instructions) == len(t.instructions) + len(seq) - 1
    origin = e.meta["origin_pc"]
    assert [t.instructions[o].opcode for o in origin] == [i.opcode.split(":")[0] for i in e.instructions]
    for i in e.instructions:                                # a branch still lands on its target's first step
        if i.branch_target >= 0:
            assert origin[i.branch_target] == t.instructions[origin[i.pc]].branch_target
    assert e.addresses.shape == t.addresses.shape            # no access added or lost
    per_warp = np.add.reduceat((t.pc == p).astype(np.int64), t.warp_start[:-1]) if t.n_instructions else 0
    np.testing.assert_array_equal(np.diff(e.warp_start), np.diff(t.warp_start) + per_warp * (len(seq) - 1))
    # the last step writes the PTX destination
    last = e.instructions[origin.index(p) + len(seq) - 1]
    assert last.dst_regs == t.instructions[p].dst_regs


def test_whole_streamed_and_sampled_runs_count_the_same_instructions():
    from gpusim.timing import simulate
    whole = simulate(_trace("reduce_interleaved"), "h100")
    streamed = gpusim.run("reduce_interleaved", size="small", mode="timing", sample=False).timing
    assert whole.counters["smsp__inst_executed.sum"] == streamed.counters["smsp__inst_executed.sum"]
    assert whole.cycles == streamed.cycles
    sampled = gpusim.run("reduce_interleaved", size="small", mode="timing", sample=4).timing
    assert sampled.counters["smsp__inst_executed.sum"] == pytest.approx(
        streamed.counters["smsp__inst_executed.sum"], rel=0.02)


def test_the_pass_is_the_configs_choice():
    assert load_gpu("h100").expand_integer_division
    assert not load_gpu("a100").expand_integer_division
    on = gpusim.run("reduce_interleaved", size="small", mode="timing", sample=False).timing
    off = gpusim.run("reduce_interleaved", size="small", mode="timing", sample=False, gpu=OFF).timing
    assert on.counters["smsp__inst_executed.sum"] > off.counters["smsp__inst_executed.sum"]
    assert on.cycles > off.cycles


# --- a division by a loop-invariant register (tests/golden/h100/micro/divloop) ----------------------------------
LOOPS = Path(__file__).resolve().parents[1] / "golden" / "h100" / "micro" / "divloop"


def _loop_bodies() -> dict[str, list[str]]:
    """Kernel -> the SASS of its loop (from the target of its backward branch through that branch)."""
    out = {}
    fn, ins, labels = None, [], {}
    for line in (LOOPS / "divloop.sass").read_text().splitlines() + [".text.end:"]:
        m = re.search(r"\.text\.(\w+):", line)
        if m:
            if fn is not None:
                for k, (op, rest) in enumerate(ins):
                    t = re.search(r"\((\.L_x_\d+)\)", rest) if op.startswith("BRA") else None
                    if t and labels[t.group(1)] < k:       # not the trailing BRA to itself after EXIT
                        out[fn] = [o for o, _ in ins[labels[t.group(1)]:k + 1]]
            fn, ins, labels = m.group(1), [], {}
            continue
        m = re.match(r"\s*(\.L_x_\d+):", line)
        if m:
            labels[m.group(1)] = len(ins)
            continue
        m = _INSTR.search(line)
        if m and fn is not None:
            ins.append((m.group(3), m.group(4)))
    return out


BODIES = _loop_bodies()


@pytest.mark.parametrize("kernel,op", [("loop_udiv", "div.u32"), ("loop_urem", "rem.u32"), ("loop_sdiv", "div.s32"),
                                       ("loop_srem", "rem.s32")])
def test_a_loop_invariant_divisor_leaves_the_tail_in_the_loop(kernel, op):
    # the loop body less loop_add's (the same loop adding instead): 9, 8, 14, 12 SASS instructions, none on the XU
    body, add = BODIES[kernel], BODIES["loop_add"]
    tail = sass_sequence(op, False, loop_invariant=True)
    assert len(body) - len(add) == len(tail)
    assert not any(op.split(".")[0] in XU for op in body)
    # the same instructions, an add counted as one whichever pipe ptxas gave it (IADD3 on the ALU, IMAD.IADD on
    # the FMA pipe: it balances the two, so the loop's own i += blockDim.x is either)
    def norm(ops):
        return Counter({"IMAD.IADD": "IADD3", "VIADD": "IADD3"}.get(o, o.removesuffix(".AND")) for o in ops)
    assert norm(body) - norm(add) == norm(s.mnemonic for s in tail)


def test_a_divisor_written_in_the_loop_keeps_the_whole_sequence_there():
    body = BODIES["loop_udiv_variant"]
    assert len(body) - len(BODIES["loop_add"]) == len(sass_sequence("div.u32", False)) + 1   # and d + i
    assert sum(op.split(".")[0] in XU for op in body) == 3


def _loop_trace(kernel: str):
    n = 64
    a = np.arange(1, 2 * n + 1, dtype=np.uint32)
    o = np.zeros(32, dtype=np.uint32)
    return gpusim.run((LOOPS / "divloop.ptx").read_text(), kernel=kernel, grid=(1, 1, 1), block=(32, 1, 1),
                      args=[a, o, 7, n], mode="emulate", record_trace=True).trace


@pytest.mark.parametrize("kernel,op", [("loop_udiv", "div.u32"), ("loop_urem", "rem.u32"), ("loop_sdiv", "div.s32"),
                                       ("loop_srem", "rem.s32"), ("loop_udiv_variant", "div.u32")])
def test_the_pass_finds_the_invariant_divisor_in_nvccs_ptx(kernel, op):
    found = find_divisions(_loop_trace(kernel))
    (seq,) = found.values()
    expect = sass_sequence(op, False, loop_invariant=not kernel.endswith("variant"))
    assert seq == expect


def test_the_correction_after_an_isetp_is_guarded_by_its_predicate():
    # rem.u32 by a register: ISETP.GE.U32 -> @P IADD3, ISETP.GE.U32 -> @P VIADD (the SASS's guarded corrections)
    from gpusim.timing.synthetic import make_trace
    trace = make_trace([dict(opcode="rem.u32", unit="int", latency_class="alu", dst_regs=(0,), src_regs=(1, 2)),
                        dict(opcode="exit", unit="branch", latency_class="none", is_exit=True)])
    steps = expand_divisions(trace).instructions[:-1]
    names = [s.opcode.split(":")[1] for s in steps]
    guarded = [(names[k - 1], names[k]) for k, s in enumerate(steps) if s.guard_reg >= 0]
    assert guarded == [("ISETP.GE.U32", "IADD3"), ("ISETP.GE.U32", "VIADD")]
    assert all(steps[k].guard_reg == steps[k - 1].dst_regs[0] for k, s in enumerate(steps) if s.guard_reg >= 0)
