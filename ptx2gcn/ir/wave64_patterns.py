"""Compile-time lane patterns of a Mode P shuffle, and the gfx942 permutes that realise them.

A shuffle whose lane operand ``b`` and clamp operand ``c`` are constants reads, in lane ``l`` of a
warp, a lane ``E[l]`` known at compile time (the PTX ISA ``shfl.sync`` pseudocode; the own lane when
out of range), and its in-range bit ``P[l]`` is known too. ``shfl_lanes`` evaluates that formula for
the 32 lanes; ``dpp_control`` and ``swizzle_offset`` find a single permute instruction that reads the
same lanes, on all lanes or on a subset (the others then take their own value through a select on
a constant lane mask, ``lane_mask``).

Invariant: every permute returned reads only inside the executing warp's 32-lane half of the wave:
DPP controls are only the row-local ones (``quad_perm``, ``row_shl``, ``row_shr``, ``row_ror``,
``row_mirror``, ``row_half_mirror``: rows of 16 lanes never straddle a half), and swizzle offsets
are bit mode (``offset < 0x8000``), which permutes within 32-lane groups (CDNA3 ISA, DS_SWIZZLE_B32
and "DPP"). A pattern is the same in both halves, so a lane mask repeats it in bits 0..31 and
32..63. Design: docs/mode-p.md, "The collectives".
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

WARP = 32
LANE_BITS = WARP - 1
DPP_BOUND_KEEP = False
"""``bound_ctrl`` of every DPP move: a lane whose source is outside its row keeps ``old`` (its own
value), which is exactly PTX's out-of-range rule."""


@cache
def shfl_lanes(mode: str, b: int, c: int) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """(E, P) per warp lane: the lane read (own lane when out of range) and the in-range bit, by the
    PTX ISA ``shfl.sync`` pseudocode (``b[4:0]``, clamp ``c[4:0]``, segment mask ``c[12:8]``, a signed
    bound for ``.up``)."""
    bval, cval, seg = b & LANE_BITS, c & LANE_BITS, c >> 8 & LANE_BITS
    nseg = seg ^ LANE_BITS
    sources: list[int] = []
    valid: list[bool] = []
    for lane in range(WARP):
        min_lane = lane & seg
        max_lane = min_lane | (cval & nseg)
        if mode == "up":
            j, p = lane - bval, lane - bval >= max_lane
        elif mode == "down":
            j, p = lane + bval, lane + bval <= max_lane
        elif mode == "bfly":
            j, p = lane ^ bval, lane ^ bval <= max_lane
        else:
            assert mode == "idx", mode
            j = min_lane | (bval & nseg)
            p = j <= max_lane
        sources.append(j if p else lane)
        valid.append(p)
    return tuple(sources), tuple(valid)


def _dpp_sources(ctrl: int) -> tuple[int, ...]:
    """The lane each lane of a 32-lane half reads under DPP control ``ctrl`` (-1: no source)."""
    out: list[int] = []
    for lane in range(WARP):
        row, pos = lane & ~15, lane & 15
        if ctrl <= 0xFF:
            src = (lane & ~3) | (ctrl >> 2 * (lane & 3) & 3)
        elif 0x101 <= ctrl <= 0x10F:
            src = lane + (ctrl & 15) if pos + (ctrl & 15) <= 15 else -1
        elif 0x111 <= ctrl <= 0x11F:
            src = lane - (ctrl & 15) if pos >= ctrl & 15 else -1
        elif 0x121 <= ctrl <= 0x12F:
            src = row | (pos - (ctrl & 15)) & 15
        elif ctrl == 0x140:
            src = row | (15 - pos)
        else:
            assert ctrl == 0x141, hex(ctrl)
            src = (lane & ~7) | (7 - (lane & 7))
        out.append(src)
    return tuple(out)


_DPP_CONTROLS = (*range(0x100), *range(0x101, 0x110), *range(0x111, 0x120), *range(0x121, 0x130), 0x140, 0x141)
"""The row-local DPP controls (quad_perm, row_shl, row_shr, row_ror, row_mirror, row_half_mirror)."""


@cache
def _dpp_table() -> tuple[tuple[int, tuple[int, ...]], ...]:
    return tuple((ctrl, _dpp_sources(ctrl)) for ctrl in _DPP_CONTROLS)


def dpp_control(sources: Sequence[int], care: Sequence[bool]) -> int | None:
    """A row-local DPP control under which every lane with ``care`` reads ``sources[lane]`` (a lane
    without a DPP source keeps its own value, ``DPP_BOUND_KEEP``), or None."""
    for ctrl, table in _dpp_table():
        if all(not want or (src if src >= 0 else lane) == sources[lane]
               for lane, (src, want) in enumerate(zip(table, care, strict=True))):
            return ctrl
    return None


def swizzle_offset(sources: Sequence[int], care: Sequence[bool]) -> int | None:
    """A bit-mode ``ds_swizzle`` offset (``xor << 10 | or << 5 | and``) under which every lane with
    ``care`` reads ``sources[lane]``, or None. Bit mode maps each bit of the lane index on its own
    (kept, inverted or forced), so each source bit must be such a function of the same lane bit."""
    and_mask = or_mask = xor_mask = 0
    for bit in range(5):
        seen: dict[int, int] = {}
        for lane in range(WARP):
            if care[lane] and seen.setdefault(lane >> bit & 1, sources[lane] >> bit & 1) != sources[lane] >> bit & 1:
                return None
        low, high = seen.get(0), seen.get(1)
        if low in (0, None) and high in (1, None):
            and_mask |= 1 << bit  # kept
        elif low in (1, None) and high in (0, None):
            and_mask |= 1 << bit  # inverted
            xor_mask |= 1 << bit
        elif low == high == 1:
            or_mask |= 1 << bit  # forced to 1 (forced to 0: nothing set)
    return xor_mask << 10 | or_mask << 5 | and_mask


def lane_mask(bits: Sequence[bool]) -> int:
    """The 64-bit wave mask with bit ``l`` and bit ``32 + l`` set where ``bits[l]``."""
    half = sum(1 << lane for lane, bit in enumerate(bits) if bit)
    return half | half << WARP
