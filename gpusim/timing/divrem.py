"""What ptxas makes of integer division and remainder, as the timing model sees it: the SASS sequence.

The SMs have no integer divider.  ptxas (13.0, sm_90) turns each ``div``/``rem`` on ``.u32``/``.s32`` into a
reciprocal in floating point and integer corrections: ``I2F.U32.RP`` of the divisor, ``MUFU.RCP``, ``F2I``
(three instructions on the XU, the quarter-rate pipe ncu counts as ``pipe_xu``, which the model calls ``sfu``),
then ``IMAD.HI``/``IMAD``/``ISETP``/``IADD3``/``LOP3`` steps, one dependent chain.  ``.u64``/``.s64`` become a
call to a subroutine (``__cuda_sm20_div_u64`` and its kin: ``I2F.U64.RP``, ``MUFU.RCP``, ``F2I.U64``, then 50-70
integer steps).  A divisor given as an immediate in the PTX changes little: ptxas folds the constant into the
same sequence (it does not strength-reduce, not even a power of two; nvcc's front end is what turns a division
by a constant into a multiply by its inverse, in the PTX, before ptxas sees it).  SASS instructions per PTX
instruction (ptxas 13.0 ``-arch=sm_90``; ``tests/golden/h100/micro/divrem``, whose test parses the ``.sass``
records and checks every figure below)::

               by a register      by an immediate (3, 7, 8, 1000)
    rem.u32    17                 13
    div.u32    18                 14
    rem.s32    21                 16
    div.s32    23                 19
    rem.u64    67 (call + 65)     60 (call + 58)
    div.u64    71 (call + 69)     64 (call + 62)
    rem.s64    80 (call + 78)     69 (call + 67)
    div.s64    86 (call + 84)     73 (call + 71)

Divisions by one divisor share its reciprocal: a later 32-bit ``div``/``rem`` by the same divisor register
(in the same basic block, the register not written in between; or in a block the earlier one's dominates,
the registers written by one instruction only, so that the value is the same wherever the earlier division
reached) is only the tail that uses it (``div.u32`` 10, ``rem.u32`` 9, ``div.s32`` 15-16, ``rem.s32`` 12-13
instructions, none on the XU), and one with the same dividend too, of the other kind (``a / b`` then
``a % b``), only the correction (3-8).  SHOC md5hash divides four digits by one base in each loop trip: ptxas
computes one reciprocal per trip; SHOC bfs's ``a % b``, a block after its ``a / b``, is 7 instructions.

A division in a loop by a register the loop does not write (a kernel argument, a value computed before the
loop) is only its tail too: ptxas hoists the reciprocal (``I2F``, ``MUFU.RCP``, ``F2I`` and the IMADs that refine
it) out of the loop, and a trip issues 8-14 integer instructions, none on the XU (``div.u32`` 9, ``rem.u32`` 8,
``div.s32`` 14, ``rem.s32`` 12; ``tests/golden/h100/micro/divloop``).  The rule: the innermost loop around the
division (a backward branch and its target) writes the divisor register nowhere, or only by loading a kernel
parameter.  The hoisted part, issued once
before the loop, is not charged (the PTX has no instruction there to carry it).

Design: the pass **expands trace rows**. Each ``div``/``rem`` PC becomes the PCs of its SASS sequence (dense, in
place, branch targets renumbered), each an ordinary :class:`StaticInstr` on its own pipe with its own latency class,
and every execution's row becomes that many rows. So every counter that follows rows follows without a special case:
warp instructions (``smsp__inst_executed``), each pipe's occupancy and the issue slots, the stall states (each step
waits as itself: ``short_scoreboard`` behind an XU step, ``wait`` behind an ALU one, ``math_pipe_throttle`` on a
busy pipe; per PC they add up on the division's PTX line through ``meta["origin_pc"]``), and the hoisting scheduler
still sees one straight-line segment. A multi-instruction cost on one decoded instruction would need every one of
those counters, and the SM's hot loop, to know about it.

The registers: each step writes a temporary of its own (numbered after the kernel's registers, the same for
every chunk of a streamed trace, since they follow from the static code only); the sequence's last step
writes the PTX destination.  The dependence shape: the steps form one chain in SASS order (each reads the
step before it; the first reads the PTX sources), except the steps the SASS computes off the chain (marked
``~`` below: the divisor-is-zero test, the sign tests, ``|a|``, zeroing a register), which read the PTX
sources and are read by the last step.  The last step keeps the PTX instruction's PC identity
(``meta["origin_pc"]``, source line).  In a 32-bit sequence the chained step right after an ``ISETP`` (not a
``SEL`` or another ``ISETP``, which read the predicate as an operand) is the correction it guards (``ISETP.GE.U32
P2``, ``@P2 IADD3``): its ``guard_reg`` is the ISETP's register, so it waits the guard latency
(``guard_latency_cycles``, :mod:`gpusim.timing.decode`).

Pipes: ``I2F``/``F2I``/``MUFU`` on the model's ``sfu`` pipe, ``MUFU`` at the ``sfu`` latency class and the
conversions at ``convert`` (the h100 preset: 19 and 18 cycles, ``tests/golden/h100/micro/xulat``), a variable
latency on the short scoreboard as the SASS control codes show for all three: each sets a write barrier its reader waits
on); ``IMAD*`` on the ``fp32`` pipe at the IMAD rate and latency (on GH100 the FMA-heavy half of the FMA pipe
runs IMAD, not the ALU pipe); ``HFMA2`` the ``fp32`` pipe; ``CALL``/``RET`` the branch pipe; the rest
(``IADD3``, ``ISETP``, ``LOP3``, ``SEL``, uniform-datapath ``U*`` and moves) the ``int`` (ALU) pipe at the ALU
latency.  With the IMADs on the ALU pipe too, the 14 integer steps of a ``rem.u32`` queue on one pipe:
reduce_interleaved default ran +19.2% long (``math_pipe_throttle`` 3.3 warp-cycles per instruction, ncu 1.3),
+0.7% with them apart.

Simplifications: a guarded division neither shares nor is shared; the 64-bit subroutines are timed as one chain (the
SASS has some two-way parallelism in them), CALL/RET as branch-pipe instructions that do not redirect;
``div``/``rem`` on 16-bit types are left as one instruction (not recorded); the functional result is the emulator's,
unchanged (only timing rows change)."""
from __future__ import annotations

import dataclasses

import numpy as np

from gpusim.functional.trace import KernelTrace, StaticInstr
from isa.units import LatencyClass, Unit

# The SASS ptxas 13.0 emits for one PTX instruction, in its order (sm_90; tests/golden/h100/micro/divrem).
# "~": computed off the dependent chain.  Keys: (op, type, divisor is an immediate).
_SEQ_REGISTER_32 = {
    ("rem", "u32"): "I2F.U32.RP ~ISETP.NE.U32 MUFU.RCP IADD3 F2I.FTZ.U32.TRUNC ~IMAD.MOV.U32 IADD3 IMAD IMAD.HI.U32 "
                    "IMAD.HI.U32 IMAD.MOV IMAD ISETP.GE.U32 IADD3 ISETP.GE.U32 VIADD LOP3.LUT",
    ("div", "u32"): "I2F.U32.RP ~ISETP.NE.U32 MUFU.RCP IADD3 F2I.FTZ.U32.TRUNC ~HFMA2.MMA IMAD.MOV IMAD IMAD.HI.U32 "
                    "IMAD.HI.U32 IADD3 IMAD ISETP.GE.U32 VIADD IADD3 ISETP.GE.U32 IADD3 LOP3.LUT",
    ("rem", "s32"): "IABS I2F.RP ~ISETP.GE MUFU.RCP VIADD ~IABS F2I.FTZ.U32.TRUNC ~IMAD.MOV.U32 IMAD.MOV IMAD "
                    "IMAD.HI.U32 IMAD.HI.U32 IADD3 IMAD ISETP.GT.U32 IMAD.IADD ~ISETP.NE ISETP.GT.U32 IADD3 IMAD.MOV "
                    "LOP3.LUT",
    ("div", "s32"): "IABS I2F.RP MUFU.RCP VIADD F2I.FTZ.U32.TRUNC ~IMAD.MOV.U32 IMAD.MOV IMAD ~IABS ~LOP3.LUT "
                    "IMAD.HI.U32 ~ISETP.GE IMAD.HI.U32 IADD3 IMAD ISETP.GT.U32 IMAD.IADD IADD3 ~ISETP.NE ISETP.GE.U32 "
                    "VIADD IADD3 LOP3.LUT",
}
_SEQ_IMMEDIATE_32 = {
    ("rem", "u32"): "I2F.U32.RP ~HFMA2.MMA MUFU.RCP IADD3 F2I.FTZ.U32.TRUNC IMAD IMAD.HI.U32 IMAD.HI.U32 IMAD "
                    "ISETP.GE.U32 IADD3 ISETP.GE.U32 IADD3",
    ("div", "u32"): "I2F.U32.RP ~HFMA2.MMA MUFU.RCP IADD3 F2I.FTZ.U32.TRUNC IMAD IMAD.HI.U32 IMAD.HI.U32 IMAD "
                    "ISETP.GE.U32 IADD3 IADD3 ISETP.GE.U32 IADD3",
    ("rem", "s32"): "I2F.U32.RP MUFU.RCP IADD3 F2I.FTZ.U32.TRUNC ~IABS ~ISETP.GE ~HFMA2.MMA IMAD IMAD.HI.U32 "
                    "IMAD.HI.U32 IMAD ISETP.GE.U32 VIADD ISETP.GE.U32 IADD3 IMAD.MOV",
    ("div", "s32"): "I2F.U32.RP MUFU.RCP VIADD F2I.FTZ.U32.TRUNC ~IABS ~LOP3.LUT ~HFMA2.MMA ~ISETP.GE IMAD "
                    "IMAD.HI.U32 IMAD.MOV.U32 IMAD.HI.U32 IMAD ISETP.GE.U32 IADD3 VIADD ISETP.GE.U32 IADD3 IADD3",
}
# 64-bit: the call site (the return address, the call) and the subroutine through its RET.
_CALL = "MOV CALL.REL.NOINC "
_SEQ_64 = {
    ("rem", "u64", False):
        "ULDC.64 LDC.64 I2F.U64.RP MUFU.RCP VIADD F2I.U64.TRUNC IMAD.WIDE.U32 IMAD IADD3 IMAD IMAD.HI.U32 IADD3.X "
        "IMAD.MOV.U32 IMAD.WIDE.U32 IMAD IMAD.HI.U32 IMAD.HI.U32 IADD3 IADD3.X IMAD.WIDE.U32 IADD3.X IMAD IADD3 IMAD "
        "IMAD.HI.U32 IMAD.X IMAD.MOV.U32 IMAD.WIDE.U32 IMAD IMAD.HI.U32 IMAD.HI.U32 IADD3 IADD3.X IMAD.HI.U32 IADD3.X "
        "IMAD.WIDE.U32 IMAD IMAD.HI.U32 IMAD.HI.U32 IADD3 IADD3.X IMAD.WIDE.U32 IMAD.X IMAD IADD3 IMAD ISETP.GE.U32 "
        "IADD3.X IADD3 ISETP.GE.U32.EX IMAD.X SEL ISETP.NE.U32 SEL ISETP.GE.U32 IADD3 ISETP.GE.U32.EX IADD3.X SEL "
        "HFMA2.MMA ISETP.NE.EX SEL SEL SEL RET.REL.NODEC",
    ("div", "u64", False):
        "ULDC.64 LDC.64 I2F.U64.RP MUFU.RCP IADD3 F2I.U64.TRUNC IMAD.WIDE.U32 IMAD IADD3 IMAD IMAD.HI.U32 IMAD.X MOV "
        "IMAD IMAD.WIDE.U32 IMAD.HI.U32 IMAD.HI.U32 IMAD.X IADD3 IADD3.X IMAD.WIDE.U32 IMAD IADD3 IMAD IMAD.HI.U32 "
        "IADD3.X HFMA2.MMA IMAD.WIDE.U32 IMAD IMAD.HI.U32 IMAD.HI.U32 IADD3 IMAD.X IMAD.HI.U32 IADD3.X IMAD.WIDE.U32 "
        "IMAD IMAD.HI.U32 IMAD.HI.U32 IADD3 IMAD.X IMAD.WIDE.U32 IADD3.X IMAD IADD3 IMAD ISETP.GE.U32 IADD3 IMAD.X "
        "IADD3 ISETP.GE.U32.EX IMAD.X IADD3.X SEL SEL SEL SEL ISETP.GE.U32 IADD3 ISETP.GE.U32.EX ISETP.NE.U32 IADD3.X "
        "SEL IMAD.MOV.U32 ISETP.NE.EX SEL SEL SEL RET.REL.NODEC",
    ("rem", "s64", False):
        "ULDC.64 UIADD3 UISETP.GE UIADD3.X USEL USEL I2F.U64.RP MUFU.RCP IADD3 F2I.U64.TRUNC IMAD.WIDE.U32 IMAD IADD3 "
        "IMAD IMAD.HI.U32 IMAD.X IMAD.MOV.U32 IMAD IMAD.WIDE.U32 IMAD.HI.U32 IMAD.HI.U32 IADD3.X IADD3 IADD3 IADD3.X "
        "IMAD.WIDE.U32 ISETP.GE IMAD IADD3 IMAD IMAD.HI.U32 IMAD.X IMAD.WIDE.U32 IMAD IMAD.HI.U32 SEL IMAD.HI.U32 "
        "IADD3 IMAD.X IADD3.X IMAD.HI.U32 SEL IADD3.X IMAD.MOV.U32 IMAD.WIDE.U32 IMAD IMAD.HI.U32 IMAD.HI.U32 IADD3 "
        "IMAD.X IMAD.WIDE.U32 IADD3.X IMAD IADD3 IMAD ISETP.GE.U32 IMAD.X IADD3 ISETP.GE.U32.EX IADD3.X SEL SEL "
        "ISETP.GE.U32 IADD3 ISETP.GE.U32.EX IADD3.X SEL SEL IADD3 ISETP.NE.U32 SEL IMAD.X HFMA2.MMA ISETP.NE.EX SEL "
        "SEL SEL RET.REL.NODEC",
    ("div", "s64", False):
        "ULDC.64 ISETP.GE UIADD3 UISETP.GE UIADD3.X USEL USEL I2F.U64.RP MUFU.RCP VIADD F2I.U64.TRUNC IMAD.WIDE.U32 "
        "IMAD IADD3 IMAD IMAD.HI.U32 IADD3.X IMAD.MOV.U32 IMAD.WIDE.U32 IMAD IMAD.HI.U32 IADD3 IMAD.HI.U32 IADD3 "
        "IMAD.X IMAD.WIDE.U32 IADD3.X IMAD IADD3 IMAD IMAD.HI.U32 IMAD.X IMAD.WIDE.U32 IMAD IMAD.HI.U32 SEL "
        "IMAD.HI.U32 IADD3 IADD3.X IMAD.X IMAD.HI.U32 SEL IADD3.X IMAD.MOV.U32 LOP3.LUT IMAD.WIDE.U32 IMAD IMAD.HI.U32 "
        "IMAD.HI.U32 IADD3 IMAD.X IMAD.WIDE.U32 IADD3.X IMAD IADD3 IADD3 IMAD ISETP.GE.U32 IMAD.X IADD3 "
        "ISETP.GE.U32.EX IADD3.X SEL IMAD.X SEL SEL ISETP.GE.U32 SEL IADD3 ISETP.GE.U32.EX ISETP.GE IMAD.X SEL "
        "IMAD.MOV.U32 SEL IADD3 ISETP.NE.U32 IADD3.X ISETP.NE.EX SEL SEL SEL SEL RET.REL.NODEC",
    ("rem", "u64", True):
        "UMOV UMOV I2F.U64.RP MUFU.RCP VIADD F2I.U64.TRUNC IMAD.WIDE.U32 IMAD IADD3 IADD3.X IMAD.HI.U32 IMAD.MOV.U32 "
        "IMAD IMAD.WIDE.U32 IMAD.HI.U32 IMAD.HI.U32 IADD3.X IADD3 IADD3.X IMAD.WIDE.U32 IADD3 IMAD IMAD.MOV.U32 "
        "IMAD.HI.U32 IMAD.X IMAD.WIDE.U32 IMAD IMAD.HI.U32 IMAD.HI.U32 IADD3 IADD3.X IMAD.HI.U32 IADD3.X IMAD.WIDE.U32 "
        "IMAD IMAD.HI.U32 IMAD.HI.U32 IADD3 IADD3.X IMAD.WIDE.U32 IMAD.X IADD3 IMAD IADD3.X ISETP.GE.U32 IADD3 "
        "ISETP.GE.U32.EX IADD3.X SEL SEL ISETP.GE.U32 IADD3 ISETP.GE.U32.EX IADD3.X SEL HFMA2.MMA SEL RET.REL.NODEC",
    ("div", "u64", True):
        "UMOV UMOV I2F.U64.RP MUFU.RCP VIADD F2I.U64.TRUNC IMAD.WIDE.U32 IMAD IADD3 IADD3.X IMAD.HI.U32 IMAD.MOV.U32 "
        "IMAD IMAD.WIDE.U32 IMAD.HI.U32 IMAD.HI.U32 IADD3.X IADD3 IADD3.X IMAD.WIDE.U32 IADD3 IMAD IMAD.MOV.U32 "
        "IMAD.HI.U32 IMAD.X IMAD.WIDE.U32 IMAD IMAD.HI.U32 IMAD.HI.U32 IADD3 IADD3.X IMAD.HI.U32 IADD3.X IMAD.WIDE.U32 "
        "IMAD IMAD.HI.U32 IMAD.HI.U32 IADD3 IADD3.X IMAD.WIDE.U32 IMAD.X IADD3 IMAD IADD3.X ISETP.GE.U32 IADD3 IADD3 "
        "ISETP.GE.U32.EX IMAD.X IADD3.X SEL SEL SEL ISETP.GE.U32 SEL IMAD.MOV.U32 IADD3 ISETP.GE.U32.EX "
        "IADD3.X SEL SEL "
        "RET.REL.NODEC",
    ("rem", "s64", True):
        "UMOV UMOV I2F.U64.RP MUFU.RCP VIADD F2I.U64.TRUNC IMAD.WIDE.U32 IMAD IADD3 IMAD.HI.U32 IMAD.X MOV IMAD "
        "IMAD.WIDE.U32 IMAD.HI.U32 IMAD.HI.U32 IADD3 IMAD.X IADD3 IADD3.X IMAD.WIDE.U32 ISETP.GE IADD3 IMAD "
        "IMAD.HI.U32 "
        "IMAD.X SEL IMAD.WIDE.U32 IMAD.HI.U32 IMAD IMAD.HI.U32 IADD3 IMAD.X IADD3.X IMAD.HI.U32 SEL IADD3.X "
        "IMAD.MOV.U32 "
        "IMAD.WIDE.U32 IMAD IMAD.HI.U32 IMAD.HI.U32 IADD3 IADD3.X IMAD.WIDE.U32 IMAD.X IADD3 IMAD IADD3.X ISETP.GE.U32 "
        "IADD3 ISETP.GE.U32.EX IADD3.X SEL SEL ISETP.GE.U32 IADD3 ISETP.GE.U32.EX IADD3.X SEL SEL IADD3 SEL HFMA2.MMA "
        "IMAD.X SEL RET.REL.NODEC",
    ("div", "s64", True):
        "UMOV UMOV I2F.U64.RP MUFU.RCP IADD3 F2I.U64.TRUNC IMAD.WIDE.U32 IMAD IADD3 IMAD.HI.U32 IMAD.X IMAD.MOV.U32 "
        "IMAD IMAD.WIDE.U32 IMAD.HI.U32 IMAD.HI.U32 IADD3.X IADD3 IADD3 IADD3.X IMAD.WIDE.U32 ISETP.GE IADD3 IMAD "
        "IMAD.HI.U32 IMAD.X IMAD.WIDE.U32 IMAD IMAD.HI.U32 SEL IMAD.HI.U32 IADD3 IMAD.X IADD3.X IMAD.HI.U32 SEL "
        "IADD3.X IMAD.MOV.U32 IMAD.WIDE.U32 IMAD IMAD.HI.U32 IMAD.HI.U32 IADD3 IMAD.X IMAD.WIDE.U32 IADD3.X IADD3 "
        "IMAD IADD3 IMAD.X ISETP.GE.U32 IADD3 ISETP.GE.U32.EX IADD3.X SEL IMAD.X SEL SEL ISETP.GE.U32 SEL IADD3 "
        "ISETP.GE.U32.EX IADD3.X SEL SEL IADD3 SEL HFMA2.MMA IMAD.X SEL RET.REL.NODEC",
}
# A later division by the same divisor register in the same basic block (the register not written in between):
# ptxas computes the reciprocal once, and the later one is only its tail.  Keys: (op, type, the earlier op).
_SEQ_SHARED_DIVISOR = {
    ("div", "u32", "div"): "IMAD.HI.U32 IADD3 IMAD ISETP.GE.U32 VIADD VIADD ISETP.GE.U32 VIADD SEL SEL",
    ("rem", "u32", "div"): "IMAD.HI.U32 IMAD.MOV IMAD ISETP.GE.U32 VIADD ISETP.GE.U32 IADD3 SEL SEL",
    ("div", "s32", "div"): "~IABS ~LOP3.LUT ~ISETP.GE ~HFMA2.MMA ~IMAD.MOV.U32 IMAD.HI.U32 IMAD.MOV IMAD ISETP.GT.U32 "
                           "IMAD.IADD VIADD ISETP.GE.U32 VIADD IMAD.MOV SEL SEL",
    ("rem", "s32", "div"): "~IABS ~ISETP.GE ~IMAD.MOV.U32 IMAD.HI.U32 IMAD.MOV IMAD ISETP.GT.U32 IADD3 ISETP.GT.U32 "
                           "IMAD.IADD IMAD.MOV SEL SEL",
    ("div", "s32", "rem"): "~IABS ~LOP3.LUT ~ISETP.GE ~IMAD.MOV.U32 IMAD.HI.U32 IMAD.MOV IMAD ISETP.GT.U32 IMAD.IADD "
                           "IADD3 ISETP.GE.U32 VIADD IADD3 SEL SEL",
    ("rem", "s32", "rem"): "~IABS ~ISETP.GE IMAD.HI.U32 IMAD.MOV IMAD ISETP.GT.U32 IMAD.IADD ISETP.GT.U32 IMAD.IADD "
                           "IMAD.MOV SEL SEL",
}
# A division in a loop by a register the loop does not write: ptxas hoists the divisor's reciprocal (I2F, MUFU.RCP,
# F2I, the first IMADs) out of the loop; a trip issues the rest.  Keys: (op, type).  tests/golden/h100/micro/divloop:
# divloop.cu's loop bodies less loop_add's (``acc += a[i] OP d``, d a kernel argument); loop_udiv_variant, whose
# divisor changes every trip (``d + i``), keeps the whole sequence in the loop.
_SEQ_INVARIANT_DIVISOR = {
    ("div", "u32"): "IMAD.HI.U32 IADD3 IMAD ISETP.GE.U32 IMAD.IADD IADD3 ISETP.GE.U32 IADD3 SEL",
    ("rem", "u32"): "IMAD.HI.U32 IMAD.MOV IMAD ISETP.GE.U32 IADD3 ISETP.GE.U32 IADD3 SEL",
    ("div", "s32"): "IABS ~IABS ~LOP3.LUT IMAD.HI.U32 ~ISETP.GE IMAD.MOV IMAD ISETP.GT.U32 IMAD.IADD IADD3 "
                    "ISETP.GE.U32 VIADD IMAD.MOV SEL",
    ("rem", "s32"): "IABS ~IABS ~ISETP.GE IMAD.HI.U32 IMAD.MOV IMAD ISETP.GT.U32 IADD3 ISETP.GT.U32 IMAD.IADD "
                    "IMAD.MOV SEL",
}
_SEQ_SHARED_DIVISOR.update({("div", "u32", "rem"): _SEQ_SHARED_DIVISOR[("div", "u32", "div")],
                            ("rem", "u32", "rem"): _SEQ_SHARED_DIVISOR[("rem", "u32", "div")]})
# The same dividend and divisor as an earlier division of the other kind (a / b, then a % b): the quotient and
# remainder are both there already; what is left is the correction.  Keys: (op, type).
_SEQ_SAME_OPERANDS = {
    ("rem", "u32"): "VIADD SEL SEL",
    ("div", "u32"): "VIADD VIADD SEL SEL",
    ("rem", "s32"): "IMAD.IADD ISETP.GT.U32 IMAD.IADD ISETP.GE SEL SEL",
    ("div", "s32"): "IMAD.IADD ISETP.GE.U32 VIADD VIADD LOP3.LUT ISETP.GE SEL IMAD.MOV",
}


@dataclasses.dataclass(frozen=True)
class SassStep:
    """One SASS instruction of a division's sequence: its mnemonic and whether it is on the dependent chain."""

    mnemonic: str
    chained: bool = True

    @property
    def unit(self) -> Unit:
        head = self.mnemonic.split(".")[0]
        return _PIPES.get(head, (Unit.FP32 if head == "IMAD" else Unit.INT,))[0]

    @property
    def writes_guard(self) -> bool:
        """An ``ISETP`` (not the ``.EX`` half of a 64-bit compare): in the 32-bit sequences the correction
        after it is guarded by its predicate (``ISETP.GE.U32 P2``, ``@P2 IADD3``: xulat.sass, divloop.sass)."""
        return self.mnemonic.startswith("ISETP") and ".EX" not in self.mnemonic

    @property
    def guarded_after_setp(self) -> bool:
        """Whether this step, right after an ISETP on the chain, is the correction that its predicate guards
        (``SEL`` and another ``ISETP`` read a predicate as an operand instead)."""
        return not self.mnemonic.startswith(("SEL", "ISETP"))

    @property
    def latency_class(self) -> LatencyClass:
        head = self.mnemonic.split(".")[0]
        return _PIPES.get(head, (None, LatencyClass.IMAD if head == "IMAD" else LatencyClass.ALU))[1]


# Mnemonic -> (pipe, latency class) where it is not the INT pipe at the ALU (or IMAD) latency.
_PIPES = {"MUFU": (Unit.SFU, LatencyClass.SFU), "I2F": (Unit.SFU, LatencyClass.CONVERT),
          "F2I": (Unit.SFU, LatencyClass.CONVERT), "HFMA2": (Unit.FP32, LatencyClass.FMA),
          "CALL": (Unit.BRANCH, LatencyClass.BRANCH), "RET": (Unit.BRANCH, LatencyClass.BRANCH)}


def _steps(text: str) -> tuple[SassStep, ...]:
    return tuple(SassStep(m.lstrip("~"), not m.startswith("~")) for m in text.split())


_SEQUENCES: dict[tuple[str, str, bool], tuple[SassStep, ...]] = {
    **{(op, t, False): _steps(s) for (op, t), s in _SEQ_REGISTER_32.items()},
    **{(op, t, True): _steps(s) for (op, t), s in _SEQ_IMMEDIATE_32.items()},
    **{k: _steps(_CALL + s) for k, s in _SEQ_64.items()},
}


def sass_sequence(opcode: str, immediate_divisor: bool, *, after: str | None = None,
                  same_operands: bool = False, loop_invariant: bool = False) -> tuple[SassStep, ...] | None:
    """The SASS steps ptxas emits for the PTX ``opcode`` (``"rem.u32"``, ``"div.s64"``, ...), or None when the
    opcode is no integer division this pass expands (16-bit types, floating point).  ``after``: the kind
    (``"div"``/``"rem"``) of an earlier 32-bit division by the same divisor register in the basic block, whose
    reciprocal this one reuses; ``same_operands``: that earlier one had the same dividend too;
    ``loop_invariant``: a 32-bit division in a loop that does not write its divisor register (the reciprocal
    is computed before the loop; ``after`` wins over it)."""
    parts = opcode.split(".")
    if parts[0] not in ("div", "rem") or len(parts) < 2:
        return None
    op, typ = parts[0], parts[-1]
    if after is not None and not immediate_divisor and typ in ("u32", "s32"):
        if same_operands and after != op:
            return _steps(_SEQ_SAME_OPERANDS[(op, typ)])
        return _steps(_SEQ_SHARED_DIVISOR[(op, typ, after)])
    if loop_invariant and not immediate_divisor and typ in ("u32", "s32"):
        return _steps(_SEQ_INVARIANT_DIVISOR[(op, typ)])
    return _SEQUENCES.get((op, typ, bool(immediate_divisor)))


def _loop_invariant_divisors(instrs: list[StaticInstr]):
    """A function of (pc, register): whether the innermost loop holding ``pc`` (a backward branch at ``j`` to
    ``t <= pc <= j``: PTX from nvcc lays a loop out as one range) writes no such register but by loading a kernel
    parameter (nvcc's PTX may load one inside the loop, xulat.ptx does; ptxas reads it from the constant bank,
    the same value every trip); False outside every loop."""
    loops = [(ins.branch_target, ins.pc) for ins in instrs if ins.is_branch and 0 <= ins.branch_target <= ins.pc]
    written: dict[int, list[int]] = {}
    for ins in instrs:
        if ins.opcode.startswith("ld.param"):
            continue
        for r in ins.dst_regs:
            written.setdefault(r, []).append(ins.pc)

    def invariant(pc: int, reg: int) -> bool:
        around = [(j - t, t, j) for t, j in loops if t <= pc <= j]
        if not around:
            return False
        _, t, j = min(around)
        return not any(t <= w <= j for w in written.get(reg, ()))
    return invariant


def _predicates(instrs: list[StaticInstr]) -> set[int]:
    """The predicate registers of a kernel: those its comparisons and predicate logic write."""
    return {r for ins in instrs if ins.opcode.startswith(("setp", "testp", "isspacep")) or ".pred" in ins.opcode
            for r in ins.dst_regs}


def _operands(ins: StaticInstr, predicates: set[int]) -> tuple[tuple[int, ...], bool]:
    """(the registers a division divides, whether it is guarded).  The trace keeps the registers an instruction
    reads (the guard first), not its operand list: a division reading one register has an immediate operand,
    taken to be the divisor (PTX from nvcc never divides by an immediate at all: its front end multiplies by
    the inverse instead)."""
    guarded = bool(ins.src_regs) and ins.src_regs[0] in predicates
    return (ins.src_regs[1:] if guarded else ins.src_regs), guarded


def _dominators(trace: KernelTrace, bounds: list[int]) -> list[int]:
    """The immediate dominator of each basic block (``bounds``: the blocks' first PCs and the end), -1 for
    the entry and for blocks no path from it reaches."""
    instrs = trace.instructions
    n = len(bounds) - 1
    block_of = {pc: k for k, pc in enumerate(bounds[:-1])}
    preds: list[set[int]] = [set() for _ in range(n)]
    for k in range(n):
        last = instrs[bounds[k + 1] - 1]
        unconditional = not last.src_regs                      # no guard predicate: the branch always goes
        if last.is_branch and last.branch_target in block_of:
            preds[block_of[last.branch_target]].add(k)
        if k + 1 < n and not ((last.is_branch or last.is_exit) and unconditional):
            preds[k + 1].add(k)
    dom = [set(range(n)) for _ in range(n)]
    dom[0] = {0}
    changed = True
    while changed:                                           # the textbook iteration: the kernels are small
        changed = False
        for k in range(1, n):
            new = set.intersection(*(dom[p] for p in preds[k])) if preds[k] else set()
            new = new | {k}
            if new != dom[k]:
                dom[k], changed = new, True
    idom = [-1] * n
    for k in range(1, n):
        strict = dom[k] - {k}
        if len(dom[k]) > 1 or preds[k]:
            # the strict dominator that every other strict dominator dominates
            idom[k] = next((d for d in strict if all(o in dom[d] for o in strict)), -1)
    return idom


def find_divisions(trace: KernelTrace) -> dict[int, tuple[SassStep, ...]]:
    """The PCs of ``trace`` that are integer divisions or remainders, and the SASS steps of each: the whole
    sequence, or, for a 32-bit division by a register that an earlier one divided by (in its basic block, the
    register not written since; or in a block that dominates it, the register written by one instruction
    only), the tail that reuses its reciprocal (and its quotient and remainder, when the dividend is the
    same too)."""
    from gpusim.timing.decode import _block_leaders
    instrs = trace.instructions
    if not instrs:
        return {}
    predicates = _predicates(instrs)
    writers: dict[int, int] = {}
    for ins in instrs:
        for r in ins.dst_regs:
            writers[r] = writers.get(r, 0) + 1
    bounds = [*_block_leaders(trace).tolist(), len(instrs)]
    idom = _dominators(trace, bounds)
    invariant = _loop_invariant_divisors(instrs)
    # a block's idom comes first: process blocks by their depth in the dominator tree
    depth = [0] * len(idom)
    for k in range(len(idom)):
        d, j = 0, k
        while idom[j] >= 0 and d <= len(idom):
            j, d = idom[j], d + 1
        depth[k] = d
    leaving: dict[int, tuple[dict, dict]] = {}
    out = {}
    for k in sorted(range(len(idom)), key=lambda k: (depth[k], k)):
        by_divisor: dict[tuple[str, int], str] = {}             # (type, divisor register) -> last op by it
        by_operands: dict[tuple[str, int, int], str] = {}       # (type, dividend, divisor registers) -> op
        if idom[k] >= 0 and idom[k] in leaving:
            single = lambda regs: all(writers.get(r, 0) == 1 for r in regs)   # noqa: E731
            div_in, ops_in = leaving[idom[k]]
            by_divisor = {key: v for key, v in div_in.items() if single(key[1:])}
            by_operands = {key: v for key, v in ops_in.items() if single(key[1:])}
        for ins in instrs[bounds[k]:bounds[k + 1]]:
            parts = ins.opcode.split(".")
            if parts[0] in ("div", "rem") and ins.mem_space is None:
                regs, guarded = _operands(ins, predicates)
                imm = len(regs) < 2
                shared = not guarded and len(regs) == 2 and parts[-1] in ("u32", "s32")  # a guarded one stands alone
                after = same = None
                hoisted = False
                if shared:
                    a, b = regs
                    after = by_divisor.get((parts[-1], b))
                    same = by_operands.get((parts[-1], a, b))
                    hoisted = invariant(ins.pc, b)
                seq = sass_sequence(ins.opcode, imm, after=after, same_operands=same is not None and same == after,
                                    loop_invariant=hoisted)
                if seq is not None:
                    out[ins.pc] = seq
                    if shared:
                        by_divisor[(parts[-1], b)] = parts[0]
                        by_operands[(parts[-1], a, b)] = parts[0]
            for r in ins.dst_regs:
                by_divisor = {key: v for key, v in by_divisor.items() if key[1] != r}
                by_operands = {key: v for key, v in by_operands.items() if r not in key[1:]}
        leaving[k] = (by_divisor, by_operands)
    return out


def expand_divisions(trace: KernelTrace, found: dict[int, tuple[SassStep, ...]] | None = None, *,
                     meta_key: str = "expanded_divisions") -> KernelTrace:
    """``trace`` with each integer ``div``/``rem`` issued as its SASS sequence (module docstring); the trace
    itself when it has none.  ``found``: the PCs to expand and their steps (default: :func:`find_divisions`;
    :mod:`gpusim.timing.fusion` gives its 64-bit adds), recorded in ``meta[meta_key]``."""
    if found is None:
        found = find_divisions(trace)
    if not found:
        return trace
    instrs = trace.instructions
    n = len(instrs)
    next_reg = 1 + max((r for ins in instrs for r in (*ins.src_regs, *ins.dst_regs)), default=-1)
    per_pc = np.ones(n, dtype=np.int64)
    for p, seq in found.items():
        per_pc[p] = len(seq)
    start = np.concatenate(([0], np.cumsum(per_pc)))          # new PC of each old PC's first step
    made: list[StaticInstr] = []
    for ins in instrs:
        seq = found.get(ins.pc)
        if seq is None:
            made.append(ins)
            continue
        chain_reg = None
        side = []
        setp_reg = -1                           # the predicate a 32-bit sequence's last chained ISETP wrote
        for k, step in enumerate(seq):
            last = k == len(seq) - 1
            guard = -1
            if last:
                src = tuple(dict.fromkeys((*(() if chain_reg is None else (chain_reg,)), *side)))
                dst = ins.dst_regs
            else:
                src = (chain_reg,) if step.chained and chain_reg is not None else ins.src_regs
                dst = (next_reg,)
                if src == ins.src_regs:
                    guard = ins.guard_reg
            if step.chained and chain_reg is not None and chain_reg == setp_reg and step.guarded_after_setp:
                guard = setp_reg
            if not last:
                if step.chained:
                    chain_reg = next_reg
                else:
                    side.append(next_reg)
                next_reg += 1
            setp_reg = chain_reg if (step.chained and step.writes_guard and not last
                                     and ins.opcode.endswith("32")) else -1
            made.append(dataclasses.replace(
                ins, opcode=f"{ins.opcode}:{step.mnemonic}", unit=step.unit.value,
                latency_class=step.latency_class.value, src_regs=src, dst_regs=dst, guard_reg=guard))
    made = [dataclasses.replace(ins, pc=k, branch_target=int(start[ins.branch_target])
                                if ins.branch_target >= 0 else ins.branch_target) for k, ins in enumerate(made)]

    pc = np.asarray(trace.pc, dtype=np.int64)
    reps = per_pc[pc]
    rows_from = np.repeat(np.arange(pc.size), reps)
    first_of_row = np.concatenate(([0], np.cumsum(reps)))[:-1]
    step_of = np.arange(rows_from.size) - np.repeat(first_of_row, reps)
    new_pc = start[pc][rows_from] + step_of
    slot = np.asarray(trace.mem_slot, dtype=np.int64)[rows_from]
    slot[step_of != reps[rows_from] - 1] = -1           # only a row's last step keeps its slot (a division has none)
    row_end = np.concatenate(([0], np.cumsum(reps)))
    warp_start = row_end[np.asarray(trace.warp_start, dtype=np.int64)]
    prior = np.asarray(trace.meta.get("origin_pc") or range(n), dtype=np.int64)
    meta = {**trace.meta, "origin_pc": np.repeat(prior, per_pc).tolist(),
            meta_key: {int(p): len(s) for p, s in sorted(found.items())}}
    return dataclasses.replace(
        trace, instructions=made, warp_start=warp_start.astype(trace.warp_start.dtype),
        pc=new_pc.astype(trace.pc.dtype), active_mask=trace.active_mask[rows_from],
        exec_mask=trace.exec_mask[rows_from], mem_slot=slot.astype(trace.mem_slot.dtype), meta=meta)
