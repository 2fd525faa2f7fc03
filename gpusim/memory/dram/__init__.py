"""DRAM: address mappings (registered by name), the banked, timing-constrained channel model, and its
command vocabulary (the :class:`DramCommand` observer event)."""
from gpusim.memory.dram.controller import (DRAM_COMMANDS, ROW_OUTCOMES, Command, DramChannel, DramCommand,
                                           DramController, RowOutcome, UnlimitedDram)
from gpusim.memory.dram.mapping import ADDRESS_MAPPINGS, AddressMapping, register_mapping

__all__ = ["ADDRESS_MAPPINGS", "AddressMapping", "Command", "DRAM_COMMANDS", "DramChannel", "DramCommand",
           "DramController", "ROW_OUTCOMES", "RowOutcome", "UnlimitedDram",
           "register_mapping"]
