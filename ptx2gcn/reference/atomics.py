"""Atomic read-modify-write (``atom``, ``red``): the value returned and the value left in memory.

Invariant: the model is the single-thread view of one atomic operation, ``new = op(old, b[, c])``
with ``atom`` returning ``old`` (PTX ISA "Parallel Synchronization and Communication Instructions: atom":
``inc(r, s) = (r >= s) ? 0 : r+1``, ``dec(r, s) = (r == 0 || r > s) ? s : r-1``,
``cas(r, s, t) = (r == s) ? t : r``, ``exch(r, s) = s``). Float ``add`` rounds to nearest even;
``atom.global.add.f32`` flushes subnormal inputs and results to sign-preserving zero while the
shared-memory form does not (as the manual states for the current implementation); ``.f16`` and
``.bf16`` adds need ``.noftz``. Operands: ``old`` (the memory value before), then the instruction's
sources; destinations: ``d`` (the old value; absent for ``red``) and the new memory value.
Ordering/scope/cache qualifiers (``.relaxed .acquire .release .acq_rel .cta .cluster .gpu .sys
.L2::cache_hint``) do not change a single operation's values and are accepted and ignored (the
cache-policy operand is not taken). Generic addressing is modelled as global memory for the f32 flush
rule. Vector forms (``.v2.f32``, ``.v8.f16`` ...) and ``.b128`` are not modelled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ptx2gcn.reference import fparith
from ptx2gcn.reference.errors import ReferenceInputError
from ptx2gcn.reference.floatformat import float_format
from ptx2gcn.reference.ptxtypes import PtxType, mask, to_signed
from ptx2gcn.reference.result import Result
from ptx2gcn.reference.spelling import LaneValue, Spelling, run_lanes

Handler = Callable[[Spelling, Sequence[object]], Result]

QUALIFIERS = {"global", "shared", "shared::cta", "shared::cluster", "cta", "cluster", "gpu", "sys",
              "relaxed", "acquire", "release", "acq_rel", "noftz", "L2::cache_hint"}
SHARED = {"shared", "shared::cta", "shared::cluster"}
_INT_OPS: dict[str, Callable[[PtxType, int, int], int]] = {
    "and": lambda t, r, s: r & s,
    "or": lambda t, r, s: r | s,
    "xor": lambda t, r, s: r ^ s,
    "exch": lambda t, r, s: s,
    "add": lambda t, r, s: (r + s) & mask(t.width),
    "inc": lambda t, r, s: 0 if r >= s else r + 1,
    "dec": lambda t, r, s: s if r == 0 or r > s else r - 1,
    "min": lambda t, r, s: min(r, s, key=lambda x: to_signed(x, t.width) if t.signed else x),
    "max": lambda t, r, s: max(r, s, key=lambda x: to_signed(x, t.width) if t.signed else x),
}
_OP_TYPES: dict[str, tuple[str, ...]] = {
    "and": ("b32", "b64"), "or": ("b32", "b64"), "xor": ("b32", "b64"),
    "exch": ("b32", "b64"), "cas": ("b16", "b32", "b64"),
    "add": ("u32", "s32", "u64", "f32", "f64", "f16", "f16x2", "bf16", "bf16x2"),
    "inc": ("u32",), "dec": ("u32",), "min": ("u32", "s32", "u64", "s64"),
    "max": ("u32", "s32", "u64", "s64"),
}


def _float_add(sp: Spelling, t: PtxType) -> Callable[[int, int], LaneValue]:
    from ptx2gcn.reference.floats import packed  # local: floats imports approx, keep the graph flat

    fmt = float_format(t.element)
    if fmt.width == 16 and not sp.has("noftz"):
        raise ReferenceInputError(f"{sp.text}: 16-bit float atomic add needs .noftz")
    ftz = t.name == "f32" and not any(sp.has(space) for space in SHARED)

    def element(r: int, s: int) -> fparith.FloatResult:
        r, s = fparith.flush_inputs(fmt, ftz, (r, s))
        return fparith.finish(fmt, fparith.add(fmt, r, s, "rn"), ftz, False)

    return packed(t, element)


def _atom(sp: Spelling, inputs: Sequence[object]) -> Result:
    ops = set(_OP_TYPES)
    op = sp.one_of(ops)
    sp.require(QUALIFIERS | ops, _OP_TYPES[op])
    t = sp.type
    returns_old = sp.opcode == "atom"
    if op == "cas" and not returns_old:
        raise ReferenceInputError(f"{sp.text}: red has no .cas")
    if op == "cas":
        def cas(r: int, s: int, u: int) -> tuple[LaneValue, ...]:
            return r, (u if r == s else r)

        return run_lanes(sp, cas, inputs, [t, t, t], [t, t])
    if t.is_float:
        apply_float = _float_add(sp, t)

        def float_lane(r: int, s: int) -> tuple[LaneValue, ...]:
            new = apply_float(r, s)
            return (r, new) if returns_old else (new,)

        return run_lanes(sp, float_lane, inputs, [t, t], [t, t] if returns_old else [t])
    apply = _INT_OPS[op]

    def lane(r: int, s: int) -> tuple[LaneValue, ...]:
        new = apply(t, r, s)
        return (r, new) if returns_old else (new,)

    return run_lanes(sp, lane, inputs, [t, t], [t, t] if returns_old else [t])




HANDLERS: dict[str, Handler] = {"atom": _atom, "red": _atom}
