"""Per-kernel resource usage read from a CUDA cubin (an ELF file), without ``ptxas`` or ``cuobjdump``.

What is read, and where it lives in the cubin (the layout NVIDIA's tools use; no public spec exists, so this
reads only the two records gpusim needs and ignores everything else):

* registers per thread: the ``EIATTR_REGCOUNT`` attribute (code ``0x2f``) of the ``.nv.info`` section.  An
  ``.nv.info*`` section is a sequence of attributes, each ``[format: u8][attribute: u8][u16]``; for the
  "sized value" format (``0x04``) the ``u16`` is a byte count and that many bytes follow, for the other
  formats the ``u16`` is the value itself.  ``EIATTR_REGCOUNT`` is a sized value of 8 bytes:
  ``[symbol index: u32][register count: u32]``, the symbol being the kernel's ``FUNC`` symbol.  Some
  toolchains put it in the per-kernel ``.nv.info.<kernel>`` section instead: both are searched.
* static shared memory per block: the size of the ``.nv.shared.<kernel>`` section (``NOBITS``).  On sm_80
  and later that section also covers the 1 KB per block the driver reserves (the cubin then has a
  ``.nv.reservedSmem.offset0`` symbol); it is subtracted so the figure is ptxas's ``bytes smem``, the
  kernel's own ``__shared__`` variables (the occupancy model adds the reservation itself).

Only little-endian ELF64 is handled (every cubin for sm_50 and later).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

from gpusim.errors import GpusimError

EIFMT_SVAL = 0x04
EIATTR_REGCOUNT = 0x2F
RESERVED_SMEM_BYTES = 1024
RESERVED_SMEM_SYMBOL = ".nv.reservedSmem.offset0"


@dataclass(frozen=True)
class KernelResources:
    """What the compiler allocated for one kernel on one architecture."""

    registers: int            # 32-bit registers per thread
    shared_bytes: int = 0     # static shared memory per block (dynamic shared memory comes at launch)


def _sections(elf: bytes) -> list[tuple[str, int, int, int, int, int]]:
    """(name, type, offset, size, link, entsize) for every section of a little-endian ELF64 image."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise GpusimError("not a little-endian ELF64 cubin")
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    raw = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + k * shentsize) for k in range(shnum)]
    strtab_off = raw[shstrndx][4]

    def name_at(off: int) -> str:
        end = elf.index(b"\0", strtab_off + off)
        return elf[strtab_off + off:end].decode()

    return [(name_at(s[0]), s[1], s[4], s[5], s[6], s[9]) for s in raw]


def _symbol_names(elf: bytes, sections) -> dict[int, str]:
    """Symbol index -> name, from the ``.symtab`` section."""
    for name, _type, off, size, link, entsize in sections:
        if name == ".symtab":
            str_off = sections[link][2]
            names = {}
            for k in range(size // (entsize or 24)):
                st_name, = struct.unpack_from("<I", elf, off + k * (entsize or 24))
                end = elf.index(b"\0", str_off + st_name)
                names[k] = elf[str_off + st_name:end].decode()
            return names
    return {}


def _attributes(data: bytes):
    """Yield (attribute, payload bytes or u16 value) for each record of an ``.nv.info*`` section."""
    pos = 0
    while pos + 4 <= len(data):
        fmt, attr, val = struct.unpack_from("<BBH", data, pos)
        pos += 4
        if fmt == EIFMT_SVAL:
            yield attr, data[pos:pos + val]
            pos += val
        else:
            yield attr, val


def kernel_resources(cubin: bytes) -> dict[str, KernelResources]:
    """Registers and static shared memory of every kernel in ``cubin``, keyed by the kernel's ELF symbol name
    (the PTX entry name).  Raises :class:`GpusimError` if the image is not an ELF64 cubin."""
    sections = _sections(cubin)
    symbols = _symbol_names(cubin, sections)
    registers: dict[str, int] = {}
    shared: dict[str, int] = {}
    for name, _type, off, size, _link, _entsize in sections:
        if name == ".nv.info" or name.startswith(".nv.info."):
            for attr, payload in _attributes(cubin[off:off + size]):
                if attr == EIATTR_REGCOUNT and isinstance(payload, bytes) and len(payload) >= 8:
                    sym, count = struct.unpack_from("<II", payload)
                    if sym in symbols:
                        registers[symbols[sym]] = count
        elif name.startswith(".nv.shared.") and name != ".nv.shared.reserved.0":
            shared[name[len(".nv.shared."):]] = size
    reserved = RESERVED_SMEM_BYTES if RESERVED_SMEM_SYMBOL in symbols.values() else 0
    return {k: KernelResources(registers=r, shared_bytes=max(shared.get(k, 0) - reserved, 0))
            for k, r in registers.items()}
