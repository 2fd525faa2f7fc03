"""The memory system: coalescer, shared-memory banks, constant cache, L1/L2 caches, interconnect and DRAM.

The timing model talks to a memory model only through :mod:`gpusim.memory.request` (a
:class:`~gpusim.memory.request.MemoryRequest` per warp memory instruction, the
:class:`~gpusim.memory.request.MemoryModel` contract); :mod:`gpusim.memory.address_map` places every state
space in the physical address space.  Two models implement the contract:
:class:`~gpusim.memory.system.MemorySystem` (caches, crossbar, DRAM) and
:class:`~gpusim.memory.fixed_latency.FixedLatencyMemory` (unloaded latencies).  The components are usable on
their own (the tests and ``benchmarks/memory.py`` do so).  This package imports nothing of the functional
emulator or of the timing model.
"""
