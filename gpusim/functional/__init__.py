"""The functional (emulate-mode) model: what a kernel computes, with no notion of time.

:class:`~gpusim.functional.emulator.Emulator` runs launches of a parsed module's kernels (SIMT execution
over numpy lanes, divergence and reconvergence, barriers, memory spaces, atomics, warp operations) and can
record a :class:`~gpusim.functional.trace.KernelTrace` for the timing model. It does not import SimPy.
"""
from gpusim.functional.emulator import EmulationStats, Emulator, LaunchOutput
from gpusim.functional.trace import KernelTrace, StaticInstr

__all__ = ["Emulator", "EmulationStats", "LaunchOutput", "KernelTrace", "StaticInstr"]
