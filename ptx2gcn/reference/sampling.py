"""Edge-biased operand samples for a spelling, for conformance generators and fuzzers.

Invariant: samples are drawn only from the operand types ``signature`` reports, as raw bit patterns
of each type's storage dtype; roughly half of every column comes from the type's edge cases (zeros,
extremes, NaN/infinity/subnormals for floats, INT_MIN/-1 for integers, both predicate values) and
the rest is uniform over all bit patterns, so rare lanes (division by zero, overflow, NaN payloads)
show up in every batch. The same seed gives the same samples.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ptx2gcn.reference.evaluate import signature
from ptx2gcn.reference.floatformat import float_format
from ptx2gcn.reference.ptxtypes import PtxType, join, mask

WARP_OPCODES = ("shfl", "vote", "match", "redux", "activemask", "elect")


def edge_values(t: PtxType) -> list[int]:
    """Interesting bit patterns of one (possibly packed) type."""
    if t.kind == "pred":
        return [0, 1]
    width = t.element_width
    if t.is_float:
        fmt = float_format(t.element)
        specials = [0, fmt.one, fmt.min_normal, fmt.max_finite, 1, fmt.man_mask, fmt.canonical_nan,
                    fmt.exp_mask | 1 if fmt.has_inf else fmt.canonical_nan]
        if fmt.has_inf:
            specials.append(fmt.inf)
        elements = specials + [fmt.negate(x) for x in specials]
    else:
        top = 1 << (width - 1)
        elements = [0, 1, 2, mask(width), mask(width) - 1, top, top - 1, top + 1, 31, 32, 33, 63, 64]
    elements = sorted({x & mask(width) for x in elements})
    if t.lanes == 1:
        return elements
    # packed: each edge value in every element position, next to a plain 1
    return sorted({join([e if k == i else 1 for k in range(t.lanes)], width)
                   for e in elements for i in range(t.lanes)})


def sample(t: PtxType, count: int, rng: np.random.Generator) -> npt.NDArray[np.generic]:
    """``count`` raw samples of ``t``: edge values interleaved with uniform random patterns."""
    if t.kind == "pred":
        return rng.integers(0, 2, count).astype(np.bool_)
    edges = np.array(edge_values(t), dtype=object)
    picks = edges[rng.integers(0, len(edges), count)]
    uniform = [int.from_bytes(rng.bytes((t.width + 7) // 8), "little") & mask(t.width) for _ in range(count)]
    chosen = np.where(rng.random(count) < 0.5, picks, np.array(uniform, dtype=object))
    return np.array([int(x) for x in chosen], dtype=t.dtype)


def operands_for(spelling: str, count: int, seed: int = 0) -> list[npt.NDArray[np.generic]]:
    """Source operands for ``spelling`` (``count`` lanes; warp instructions always get 32)."""
    rng = np.random.default_rng(seed)
    lanes = 32 if spelling.split(".")[0] in WARP_OPCODES else count
    return [sample(t, lanes, rng) for t in signature(spelling).sources]
