"""The functional (emulate-mode) model: what a kernel computes, with no notion of time.

:class:`~gpusim.functional.emulator.Emulator` runs launches of a parsed module's kernels (SIMT execution
over numpy lanes, divergence and reconvergence, barriers, memory spaces, atomics, warp operations) and can
record a :class:`~gpusim.functional.trace.KernelTrace` for the timing model. It does not import SimPy.

The modules, by concern::

    emulator     the launch loop: batches of blocks, one step per PC for every warp standing at it
    host         the host's side of a launch: checks, device memory image (arguments, module variables),
                 results, statistics
    kernel       compiling a kernel: symbol table, one pre-bound handler per PC
    registry     the instruction table: mnemonic -> builder, filled by the inst_* families
    inst_int  inst_float  inst_logic  inst_compare  inst_move  inst_memory  inst_warp  inst_control
                 the instruction families (as tests/functional/test_inst_*.py)
    state        what a handler sees: Frame (registers, spaces) and Step (warps, lanes)
    operands     register/immediate/special-register readers and writers; element-wise handlers
    addressing   memory operands: generic resolution, alignment and bounds checks, trace addresses
    memory       the global heap and the generic-address windows
    specials     special registers of a batch
    simt         the SIMT stack (divergence, reconvergence) and block barriers, vectorised over warps
    schedule     warp schedules: the order of warps and blocks (lockstep, reversed, random)
    recorder     the trace recorder;  trace: the trace format (KernelTrace, StaticInstr)
    faults       kernel errors with their locations;  floatops: IEEE-exact float helpers

The checker (:mod:`gpusim.check`) attaches to a launch through ``Emulator.launch(checker=...)``: it
instruments the compiled kernel (memory operands, barrier and warp-operation handlers) and adds nothing to
an unchecked launch.
"""
from gpusim.functional.emulator import EmulationStats, Emulator, LaunchOutput
from gpusim.functional.trace import KernelTrace, StaticInstr

__all__ = ["Emulator", "EmulationStats", "LaunchOutput", "KernelTrace", "StaticInstr"]
