"""Physical address -> (pseudo-channel, bank group, bank, row) mappings, registered under a name.

A mapping is a list of fields from the least significant end of the *burst index* (byte address // 32):
each field takes ``value % size`` and divides the rest by ``size`` (so channel counts need not be powers of
two: H100 has 160 pseudo-channels).  Presets choose one by name (``memory.dram.address_mapping``).
"""
from __future__ import annotations

from collections.abc import Callable

from gpusim.config.memory import DramOrganisation

BURST_BYTES = 32
BURSTS_PER_LINE = 4


class AddressMapping:
    """Splits a burst index into fields in the order ``fields`` names them, least significant first.

    Field names: ``line`` (bursts of one 128 B line: keeps a line in one row), ``column`` (the rest of the
    row's bursts), ``channel``, ``bank_group``, ``bank``, ``row`` (whatever is left).  ``xor_channel`` adds
    a hash of the row and bank to the channel, so strides that are a multiple of the channel interleave
    (partition camping) still spread over channels.
    """

    def __init__(self, name: str, fields: tuple[str, ...], n_channels: int, org: DramOrganisation,
                 xor_channel: bool = False) -> None:
        self.name = name
        bursts_per_row = org.row_bytes // BURST_BYTES
        sizes = {
            "line": BURSTS_PER_LINE,
            "column": bursts_per_row // BURSTS_PER_LINE if "line" in fields else bursts_per_row,
            "channel": n_channels,
            "bank_group": org.bank_groups,
            "bank": org.banks_per_group,
        }
        self.fields = tuple((f, sizes[f]) for f in fields)
        self.n_channels = n_channels
        self.banks_per_group = org.banks_per_group
        self.xor_channel = xor_channel
        # each field as (divisor, size): its value is burst // divisor % size; a field not named is 0
        place = {}
        divisor = 1
        for f, size in self.fields:
            place[f] = (divisor, size)
            divisor *= size
        self._ch_div, self._ch_size = place.get("channel", (1, 1))
        self._bg_div, self._bg_size = place.get("bank_group", (1, 1))
        self._bank_div, self._bank_size = place.get("bank", (1, 1))
        self._row_div = divisor

    def map(self, burst: int) -> tuple[int, int, int, int]:
        """-> (channel, bank group, flat bank index within the channel, row)."""
        ch = burst // self._ch_div % self._ch_size
        bg = burst // self._bg_div % self._bg_size
        bank = burst // self._bank_div % self._bank_size
        row = burst // self._row_div
        if self.xor_channel:
            ch = (ch + row * 7 + (bg * self.banks_per_group + bank) * 13) % self.n_channels
        return ch, bg, bg * self.banks_per_group + bank, row


MappingFactory = Callable[[int, DramOrganisation], AddressMapping]
ADDRESS_MAPPINGS: dict[str, MappingFactory] = {}


def register_mapping(name: str, fields: tuple[str, ...], xor_channel: bool = False) -> None:
    ADDRESS_MAPPINGS[name] = lambda n_channels, org: AddressMapping(name, fields, n_channels, org, xor_channel)


# Consecutive 128 B lines go to consecutive channels, then bank groups and banks; a line's four bursts share
# a row (one activate per line, the usual GPU choice: a line is the L2's fill unit).
register_mapping("line_interleave", ("line", "channel", "bank_group", "bank", "column"))
# The same with the channel hashed by row and bank, against partition camping.
register_mapping("line_interleave_xor", ("line", "channel", "bank_group", "bank", "column"), xor_channel=True)
# Every 32 B burst to the next channel: most parallelism, a row hit only when a channel comes round again.
register_mapping("burst_interleave", ("channel", "bank_group", "bank", "column"))
# A whole row of one bank before the next channel (CPU-like "RoBaBgChCo"): most row hits, least parallelism.
register_mapping("row_interleave", ("column", "channel", "bank_group", "bank"))
