"""The memory system: coalescer, shared-memory banks, constant cache, L1/L2 caches, interconnect and DRAM.

The timing model talks only to :class:`gpusim.memory.system.MemorySystem`; the components below it are
usable on their own (the tests and ``benchmarks/memory.py`` do so).
"""
