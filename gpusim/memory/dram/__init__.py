"""DRAM: address mappings (registered by name) and the banked, timing-constrained channel model."""
from gpusim.memory.dram.controller import DramChannel, DramController
from gpusim.memory.dram.mapping import ADDRESS_MAPPINGS, AddressMapping, register_mapping

__all__ = ["ADDRESS_MAPPINGS", "AddressMapping", "DramChannel", "DramController", "register_mapping"]
