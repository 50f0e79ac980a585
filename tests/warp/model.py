"""An independent Python model of PTX warp collectives on one 32-lane warp (the tests' oracle).

Written from the PTX ISA pseudocode (shfl.sync, vote.sync, match.sync, redux.sync, activemask),
not from the lowering: ``active`` is the warp's active mask (bit i = lane i executes), inactive
lanes get ``None``. Values are unsigned 32/64-bit Python ints.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

M32 = 0xFFFF_FFFF


def _on(active: int, lane: int) -> bool:
    return bool(active >> lane & 1)


def shfl(mode: str, a: Sequence[int], b: Sequence[int], c: Sequence[int], active: int = M32
         ) -> list[tuple[int, bool] | None]:
    """(d, p) per lane; d is None-free only where the source lane is active (else ``-1``)."""
    out: list[tuple[int, bool] | None] = []
    for lane in range(32):
        if not _on(active, lane):
            out.append(None)
            continue
        bval, cval, seg = b[lane] & 31, c[lane] & 31, c[lane] >> 8 & 31
        max_lane = (lane & seg) | (cval & ~seg & 31)
        min_lane = lane & seg
        if mode == "up":
            j = lane - bval
            p = j >= max_lane
        elif mode == "down":
            j = lane + bval
            p = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            p = j <= max_lane
        else:
            j = min_lane | (bval & ~seg & 31)
            p = j <= max_lane
        if not p:
            j = lane
        out.append((a[j] if _on(active, j) else -1, p))
    return out


def ballot(pred: Sequence[bool], member: int, active: int) -> int:
    return sum(1 << i for i in range(32) if _on(active, i) and pred[i]) & member


def vote(mode: str, pred: Sequence[bool], member: int, active: int) -> int | bool:
    bits = ballot(pred, member, active)
    everyone = bits == active & member
    return {"ballot": bits, "all": everyone, "any": bits != 0, "uni": bits == 0 or everyone}[mode]


def match_any(a: Sequence[int], member: int, active: int) -> list[int | None]:
    live = active & member
    return [sum(1 << j for j in range(32) if _on(live, j) and a[j] == a[i]) if _on(active, i) else None
            for i in range(32)]


def match_all(a: Sequence[int], member: int, active: int) -> tuple[int, bool]:
    live = active & member
    values = {a[j] for j in range(32) if _on(live, j)}
    return (live, True) if len(values) <= 1 else (0, False)


def _signed(x: int) -> int:
    return x - (1 << 32) if x & 0x8000_0000 else x


REDUX: dict[str, Callable[[list[int], bool], int]] = {
    "add": lambda xs, s: sum(xs) & M32,
    "min": lambda xs, s: (min(xs, key=_signed) if s else min(xs)),
    "max": lambda xs, s: (max(xs, key=_signed) if s else max(xs)),
    "and": lambda xs, s: _fold(xs, lambda x, y: x & y, M32),
    "or": lambda xs, s: _fold(xs, lambda x, y: x | y, 0),
    "xor": lambda xs, s: _fold(xs, lambda x, y: x ^ y, 0),
}


def _fold(xs: list[int], fn: Callable[[int, int], int], start: int) -> int:
    acc = start
    for x in xs:
        acc = fn(acc, x)
    return acc


def redux(op: str, signed: bool, a: Sequence[int], member: int, active: int) -> int:
    return REDUX[op]([a[j] for j in range(32) if _on(active & member, j)], signed)


def lanemask(kind: str, lane: int) -> int:
    return {"eq": 1 << lane, "lt": (1 << lane) - 1, "le": (2 << lane) - 1,
            "ge": M32 & ~((1 << lane) - 1), "gt": M32 & ~((2 << lane) - 1)}[kind]
