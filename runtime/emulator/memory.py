"""Bounds-checked memories of the emulator: device (global) memory, LDS, and per-lane scratch.

Invariant: no access ever touches bytes outside an allocation. Every vector access takes the
addresses of the active lanes (``addrs``), the access width in bytes and those lanes' numbers
(``lanes``, only for the error message) and either completes entirely or raises ``AccessFault``
naming the first offending lane; nothing is written when a fault is raised. Data moves as
``uint8[n, width]`` arrays (little-endian lanes), so callers view them as the element type they need.

``DeviceMemory`` is the public device memory object of the emulator (``alloc``/``free``/``read``/
``write``). Allocations get distinct addresses from 4 GiB up, separated by unmapped guard gaps, and
freed ranges are never reused, so stray and dangling pointers fault instead of aliasing live data.
``map_host`` adds a region that is host memory of this process at its own address (mapped, registered
and managed memory), so host and kernels share those bytes.
An allocation spans its size rounded up to its alignment, the allocation granule (256 bytes by
default, as ``hipMalloc``/``cudaMalloc`` round): the bytes past the requested size exist, start
zeroed and keep what is written to them, which CUDA code relies on (a 16-bit atomic on a 2-byte
buffer is a 32-bit CAS on the aligned word); an access past the granule faults, and the message
names the requested size.
"""

from __future__ import annotations

import bisect
import ctypes
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ptx2gcn.runtime.emulator.errors import AccessFault, EmulatorError

U8 = npt.NDArray[np.uint8]
Addrs = npt.NDArray[np.uint64]
Lanes = npt.NDArray[np.intp]

GLOBAL_BASE = 1 << 32
GUARD_BYTES = 1 << 16
#: Generic-address apertures (SRC_SHARED_BASE / SRC_PRIVATE_BASE): 4 GiB windows above global memory.
SHARED_APERTURE_BASE = 1 << 48
PRIVATE_APERTURE_BASE = 2 << 48
APERTURE_SIZE = 1 << 32

_BYTE_OFFSETS = [np.arange(w, dtype=np.uint64) for w in range(17)]


def _first_bad(bad: npt.NDArray[np.bool_], lanes: Lanes) -> int:
    return int(lanes[int(np.argmax(bad))]) if lanes.size else -1


class _Region:
    __slots__ = ("start", "size", "end", "data")

    def __init__(self, start: int, size: int, granule: int) -> None:
        self.start = start
        self.size = size
        """The requested size; ``end`` is the end of the granule-rounded span."""
        self.end = start + -(-size // granule) * granule  # a 0-byte allocation has no accessible byte
        self.data: U8 = np.zeros(max(self.end - start, 1), dtype=np.uint8)

    @classmethod
    def over_host(cls, start: int, size: int) -> _Region:
        """A region whose bytes are the host process's own memory at ``start`` (no copy): what the
        host writes there the kernel reads, and the other way round."""
        region = cls.__new__(cls)
        region.start, region.size, region.end = start, size, start + size
        region.data = np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(start))
        return region

    def describe(self) -> str:
        granule = f" (accessible to 0x{self.end:x})" if self.end != self.start + self.size else ""
        return f"the allocation 0x{self.start:x}+0x{self.size:x}{granule}"


class DeviceMemory:
    """Global memory: sparse allocations in a 64-bit address space, bounds-checked per lane."""

    def __init__(self) -> None:
        self._regions: list[_Region] = []
        self._starts: list[int] = []
        self._next = GLOBAL_BASE
        self._last: _Region | None = None

    # -- host API ---------------------------------------------------------------------------
    def alloc(self, nbytes: int, align: int = 256) -> int:
        """Reserve ``nbytes`` zeroed bytes; returns their device address (a multiple of ``align``).
        Kernels may access the allocation up to ``nbytes`` rounded up to ``align``."""
        if nbytes < 0 or align <= 0 or align & (align - 1):
            raise EmulatorError(f"alloc: bad size {nbytes} or alignment {align} (must be a power of two)")
        start = (self._next + align - 1) & ~(align - 1)
        region = _Region(start, nbytes, align)
        self._next = region.end + 1 + GUARD_BYTES
        index = bisect.bisect_left(self._starts, start)
        self._starts.insert(index, start)
        self._regions.insert(index, region)
        return start

    def map_host(self, address: int, size: int) -> None:
        """Make the host memory ``[address, address + size)`` of this process device memory at the
        same address (mapped, registered and managed memory: one address space with the host). The
        caller keeps that host memory alive until ``free(address)``."""
        if size <= 0 or address <= 0:
            raise EmulatorError(f"map_host: bad range 0x{address:x}+{size}")
        index = bisect.bisect_right(self._starts, address)
        before = self._regions[index - 1] if index else None
        after = self._regions[index] if index < len(self._regions) else None
        if (before is not None and before.end > address) or (after is not None and address + size > after.start):
            raise EmulatorError(f"map_host: 0x{address:x}+{size} overlaps memory already mapped")
        self._starts.insert(index, address)
        self._regions.insert(index, _Region.over_host(address, size))

    def free(self, address: int) -> None:
        """Release the allocation that starts at ``address``; its range stays unmapped forever."""
        index = bisect.bisect_left(self._starts, address)
        if index == len(self._starts) or self._starts[index] != address:
            raise EmulatorError(f"free: 0x{address:x} is not the start of an allocation")
        del self._starts[index]
        region = self._regions.pop(index)
        if self._last is region:
            self._last = None

    def write(self, address: int, data: bytes | bytearray | memoryview | npt.NDArray[np.generic]) -> None:
        raw = np.frombuffer(
            bytes(data) if not isinstance(data, np.ndarray) else data.tobytes(), dtype=np.uint8
        )
        region = self._region(address, raw.size)
        region.data[address - region.start : address - region.start + raw.size] = raw

    def read(self, address: int, nbytes: int) -> bytes:
        region = self._region(address, nbytes)
        return region.data[address - region.start : address - region.start + nbytes].tobytes()

    def allocations(self) -> list[tuple[int, int]]:
        """(address, requested size) of every live allocation, in address order."""
        return [(r.start, r.size) for r in self._regions]

    # -- emulator API -----------------------------------------------------------------------
    def _region(self, address: int, size: int, lane: int = -1) -> _Region:
        last = self._last
        if last is not None and last.start <= address and address + size <= last.end:
            return last
        index = bisect.bisect_right(self._starts, address) - 1
        if index >= 0:
            region = self._regions[index]
            if address + size <= region.end:
                self._last = region
                return region
            where = region.describe()
            if address < region.end:
                raise AccessFault("global", address, size, lane, f"runs past the end of {where}")
            raise AccessFault(
                "global",
                address,
                size,
                lane,
                f"unmapped ({address - region.end} bytes past the end of {where})",
            )
        raise AccessFault("global", address, size, lane)

    def _locate(self, addrs: Addrs, width: int, lanes: Lanes) -> tuple[U8, npt.NDArray[np.uint64]] | None:
        """The one region holding every lane's access and the lanes' byte offsets into it, or None
        when the lanes use several allocations (every lane's access is checked before None)."""
        low = int(addrs.min())
        high = int(addrs.max())
        try:
            region = self._region(low, high + width - low)
        except AccessFault:
            for lane, address in zip(lanes.tolist(), addrs.tolist(), strict=True):
                self._region(address, width, lane)
            return None
        return region.data, addrs - np.uint64(region.start)

    def _groups(self, addrs: Addrs) -> list[tuple[_Region, npt.NDArray[np.intp]]]:
        """Positions of the lanes in each allocation (after ``_locate`` checked every access)."""
        index = np.searchsorted(np.array(self._starts, dtype=np.uint64), addrs, side="right") - 1
        return [(self._regions[int(i)], np.flatnonzero(index == i)) for i in np.unique(index).tolist()]

    def load(self, addrs: Addrs, width: int, lanes: Lanes) -> U8:
        if addrs.size == 0:
            return np.zeros((0, width), dtype=np.uint8)
        located = self._locate(addrs, width, lanes)
        if located is not None:
            data, offsets = located
            return data[offsets[:, None] + _BYTE_OFFSETS[width]]
        out = np.empty((addrs.size, width), dtype=np.uint8)
        for region, positions in self._groups(addrs):
            offsets = addrs[positions] - np.uint64(region.start)
            out[positions] = region.data[offsets[:, None] + _BYTE_OFFSETS[width]]
        return out

    def store(self, addrs: Addrs, values: U8, lanes: Lanes) -> None:
        if addrs.size == 0:
            return
        width = values.shape[1]
        located = self._locate(addrs, width, lanes)
        if located is not None:
            data, offsets = located
            data[offsets[:, None] + _BYTE_OFFSETS[width]] = values
            return
        for region, positions in self._groups(addrs):
            offsets = addrs[positions] - np.uint64(region.start)
            region.data[offsets[:, None] + _BYTE_OFFSETS[width]] = values[positions]

    def rmw(self, addrs: Addrs, width: int, lanes: Lanes, update: Update) -> list[int]:
        """Atomic read-modify-write, lane by lane in order; returns the old values (little-endian ints)."""
        if addrs.size == 0:
            return []
        located = self._locate(addrs, width, lanes)
        if located is not None:
            data, offsets = located
            return _rmw(data.data, offsets.tolist(), width, update)
        olds = []
        for position, address in enumerate(addrs.tolist()):
            region = self._region(address, width)
            olds.extend(_rmw(region.data.data, [address - region.start], width, _at(update, position)))
        return olds

    def scalar_load(self, address: int, nbytes: int) -> U8:
        region = self._region(address, nbytes)
        return region.data[address - region.start : address - region.start + nbytes]


Update = Callable[[int, int], int]  # (lane position, old value) -> new value


def _at(update: Update, position: int) -> Update:
    """``update`` for a one-lane call made on behalf of lane position ``position``."""
    return lambda _, old: update(position, old)


def _rmw(view: memoryview, offsets: list[int], width: int, update: Update) -> list[int]:
    olds = []
    for position, offset in enumerate(offsets):
        old = int.from_bytes(view[offset : offset + width], "little")
        view[offset : offset + width] = (update(position, old) & ((1 << 8 * width) - 1)).to_bytes(
            width, "little"
        )
        olds.append(old)
    return olds


def _bounded_offsets(
    addrs: Addrs, width: int, lanes: Lanes, limit: int, space: str, outside: str
) -> npt.NDArray[np.uint64]:
    """Byte offsets (one row of ``width`` per lane) of an access to a ``limit``-byte space addressed
    from 0; an ``AccessFault`` (``space``, message ``outside``) for the first lane past its end."""
    if addrs.size and int(addrs.max()) + width > limit:
        bad = addrs + np.uint64(width) > np.uint64(limit)
        raise AccessFault(space, int(addrs[int(np.argmax(bad))]), width, _first_bad(bad, lanes), outside)
    return addrs[:, None] + _BYTE_OFFSETS[width]


class Lds:
    """One work-group's local data share: ``size`` bytes addressed from 0."""

    space = "lds"

    def __init__(self, size: int) -> None:
        self.size = size
        self.data: U8 = np.zeros(max(size, 1), dtype=np.uint8)
        self._outside = f"outside the work-group's {size} bytes of LDS"

    def _offsets(self, addrs: Addrs, width: int, lanes: Lanes) -> npt.NDArray[np.uint64]:
        return _bounded_offsets(addrs, width, lanes, self.size, "lds", self._outside)

    def load(self, addrs: Addrs, width: int, lanes: Lanes) -> U8:
        return self.data[self._offsets(addrs, width, lanes)]

    def store(self, addrs: Addrs, values: U8, lanes: Lanes) -> None:
        self.data[self._offsets(addrs, values.shape[1], lanes)] = values

    def rmw(self, addrs: Addrs, width: int, lanes: Lanes, update: Update) -> list[int]:
        self._offsets(addrs, width, lanes)  # bounds check
        return _rmw(self.data.data, addrs.tolist(), width, update)


class Scratch:
    """One wave's private memory: ``per_lane`` bytes for each of its 64 lanes, addressed from 0."""

    space = "private"

    def __init__(self, per_lane: int) -> None:
        self.per_lane = per_lane
        self.data: U8 = np.zeros((64, max(per_lane, 1)), dtype=np.uint8)
        self._outside = f"outside the lane's {per_lane} bytes of private memory"

    def _offsets(self, addrs: Addrs, width: int, lanes: Lanes) -> npt.NDArray[np.uint64]:
        return _bounded_offsets(addrs, width, lanes, self.per_lane, "private", self._outside)

    def load(self, addrs: Addrs, width: int, lanes: Lanes) -> U8:
        return self.data[lanes[:, None], self._offsets(addrs, width, lanes)]

    def store(self, addrs: Addrs, values: U8, lanes: Lanes) -> None:
        self.data[lanes[:, None], self._offsets(addrs, values.shape[1], lanes)] = values

    def rmw(self, addrs: Addrs, width: int, lanes: Lanes, update: Update) -> list[int]:
        self._offsets(addrs, width, lanes)  # bounds check
        row_bytes = self.data.shape[1]
        flat = [lane * row_bytes + address for lane, address in zip(lanes.tolist(), addrs.tolist())]
        return _rmw(self.data.reshape(-1).data, flat, width, update)
