"""The interpreter's memory: byte arrays per state space, each byte with a "defined" flag, and
generic addresses that select a space by window.

Invariant: every access is checked against the bounds of what it addresses and fails with a
``MemoryFault`` naming the address, never wrapping or growing a space; a byte written from a value
PTX leaves unspecified reads back as unspecified (``None`` from ``fetch``). Generic addresses are
global addresses unless they fall into the shared, local, const or param window
(``cvta.to.shared`` subtracts ``SHARED_WINDOW`` and so on), as PTX's generic addressing describes
(PTX ISA 6.4.1.6 "Generic Addressing").
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

SHARED_WINDOW = 0x1000_0000_0000
LOCAL_WINDOW = 0x2000_0000_0000
CONST_WINDOW = 0x3000_0000_0000
PARAM_WINDOW = 0x4000_0000_0000
GLOBAL_BASE = 0x7F00_0000_0000
FRAME_BASE = 1 << 32
"""``.param`` addresses from here up are the current call frame's variables; kernel parameters are
below."""
LOCAL_STRIDE = 1 << 24
"""Bytes of generic address space per thread's local memory."""
WINDOWS = {".shared": SHARED_WINDOW, ".local": LOCAL_WINDOW, ".const": CONST_WINDOW, ".param": PARAM_WINDOW}


class MemoryFault(Exception):
    """An access outside every allocation of the space it addresses."""


@dataclass
class Region:
    base: int
    data: bytearray
    defined: bytearray
    """1 where the byte's value is fixed."""

    @staticmethod
    def of(base: int, data: bytes, defined: bool = True) -> Region:
        return Region(base, bytearray(data), bytearray(b"\1" * len(data) if defined else len(data)))

    def fetch(self, offset: int, size: int) -> int | None:
        if offset < 0 or offset + size > len(self.data):
            raise MemoryFault(f"{size}-byte access at offset {offset:#x} outside {len(self.data)} bytes")
        if 0 in self.defined[offset:offset + size]:
            return None
        return int.from_bytes(self.data[offset:offset + size], "little")

    def put(self, offset: int, size: int, value: int | None) -> None:
        if offset < 0 or offset + size > len(self.data):
            raise MemoryFault(f"{size}-byte access at offset {offset:#x} outside {len(self.data)} bytes")
        self.data[offset:offset + size] = (value or 0).to_bytes(size, "little")
        self.defined[offset:offset + size] = (b"\1" if value is not None else b"\0") * size


class GlobalMemory:
    """Device allocations at increasing addresses (256-byte aligned, a gap between each)."""

    def __init__(self) -> None:
        self.regions: list[Region] = []
        self._next = GLOBAL_BASE

    def allocate(self, data: bytes, defined: bytes | None = None) -> int:
        """A region holding ``data`` (every byte fixed, or where ``defined`` has a 1); its address."""
        region = Region.of(self._next, data)
        if defined is not None:
            region.defined[:] = defined
        self.regions.append(region)
        self._next = -(-(self._next + max(len(data), 1) + 256) // 256) * 256
        return region.base

    def find(self, address: int, size: int) -> tuple[Region, int]:
        index = bisect.bisect_right([r.base for r in self.regions], address) - 1
        if index >= 0:
            region = self.regions[index]
            if address + size <= region.base + len(region.data):
                return region, address - region.base
        raise MemoryFault(f"{size}-byte global access at {address:#x} is outside every allocation")

    def read(self, address: int, size: int) -> tuple[bytes, bytes]:
        """(bytes, defined flags) of ``size`` bytes at ``address`` (for reading results back)."""
        region, offset = self.find(address, size)
        return bytes(region.data[offset:offset + size]), bytes(region.defined[offset:offset + size])
