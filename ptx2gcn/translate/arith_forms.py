"""Which modifiers PTX's ``add``/``sub``/``min``/``max`` take with which instruction type.

Invariant: ``instruction_type`` and ``minmax_flags`` either return modifiers that PTX (and ptxas)
accept for the instruction's type, as IR attributes, or raise a located ``Ptx2GcnError`` worded
like ptxas's message; nothing they take is silently dropped. The packed 16-bit integer types
``u16x2``/``s16x2`` (PTX 8.0, sm_90; add, min and max only) are 32-bit values in IR whose ``type``
attribute says that the op works on the two 16-bit halves independently (PTX ISA 9.7.1.1 add,
9.7.1.10 min, 9.7.1.11 max).
"""

from __future__ import annotations

from ptx2gcn.ir.types import PACKED_INT_TYPES, Type, ptx_type
from ptx2gcn.translate.modifiers import Mods

PACKED_INT = frozenset(PACKED_INT_TYPES)

_HALF_FLOATS = frozenset({"f16", "f16x2", "bf16", "bf16x2"})

# https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-min and
# #integer-arithmetic-instructions-min: modifier -> the types it applies to. ``.xorsign`` stands
# for ``.xorsign.abs`` (``.abs`` alone belongs to the three-source form, which is not supported).
# NOTE: ptxas 13.0 rejects ``.ftz`` on bf16 min/max ("Illegal modifier '.ftz'"), but the reference
# model and the conformance forms define it (flush subnormal inputs), so it stays accepted until
# they drop it; every other combination below is exactly what ptxas accepts.
_MINMAX_FLAGS: dict[str, frozenset[str]] = {
    "ftz": frozenset({"f32"}) | _HALF_FLOATS,
    "NaN": frozenset({"f32"}) | _HALF_FLOATS,
    "xorsign": frozenset({"f32"}) | _HALF_FLOATS,
    "relu": frozenset({"s32", "s16x2"}),
}


def instruction_type(mods: Mods) -> str:
    """The one type modifier, including the packed integer types of add/min/max (``sub`` has none:
    PTX ISA 9.7.1.2, and ptxas 13.0 rejects ``sub.u16x2``)."""
    packed = mods.one_of(PACKED_INT)
    if packed is None:
        return mods.type()
    if mods.opcode == "sub":
        raise mods.error(f"unexpected instruction types specified for 'sub': .{packed} (only add, min "
                         "and max have packed 16-bit integer forms)")
    extra = mods.types()
    if extra:
        raise mods.error(f"'{mods.opcode}' needs exactly one type modifier, got {len(extra) + 1}")
    return packed


def instruction_value_type(t_name: str) -> Type:
    """The IR type of the operands of an instruction of PTX type ``t_name`` (i32 for u16x2)."""
    return PACKED_INT_TYPES.get(t_name) or ptx_type(t_name)


def reject_on_packed(mods: Mods, t_name: str, attrs: dict[str, str | bool | None]) -> None:
    """add/sub on u16x2/s16x2 take no modifier (no .sat, .cc, rounding or .ftz)."""
    if t_name not in PACKED_INT:
        return
    for key, value in attrs.items():
        if value:
            word = value if isinstance(value, str) else key
            raise mods.error(f"modifier '.{word}' does not apply to '.{t_name}' type")


def minmax_flags(mods: Mods) -> set[str]:
    """The ``.ftz .NaN .xorsign .abs .relu`` modifiers of min/max, taken (unchecked)."""
    return {flag for flag in (*_MINMAX_FLAGS, "abs") if mods.take(flag)}


def check_minmax(mods: Mods, t_name: str, flags: set[str]) -> dict[str, bool]:
    """The IR attributes (``ftz nan xorsign relu``) for ``flags`` from ``minmax_flags`` with
    instruction type ``t_name``; a located error for a combination PTX does not have."""
    if "xorsign" in flags and "abs" not in flags:
        raise mods.error("modifier '.xorsign' requires modifier '.abs'")
    if "abs" in flags and "xorsign" not in flags:
        raise mods.error("modifier '.abs' requires modifier '.xorsign' (the three-source "
                         f"'{mods.opcode}.abs' form is not supported)")
    for flag in flags:
        allowed = _MINMAX_FLAGS.get(flag)
        if allowed is not None and t_name not in allowed:
            raise mods.error(f"illegal modifier '.{flag}' for instruction '{mods.opcode}' with "
                             f"type '.{t_name}'")
    return {flag.lower(): True for flag in flags if flag != "abs"}


def check_mul_mode(mods: Mods, t_name: str, mode: str | None) -> None:
    """mul/mad (PTX ISA 9.7.1.3/9.7.1.4): integer forms need ``.lo``, ``.hi`` or ``.wide`` and a
    ``.u``/``.s`` type (``.wide`` only on 16/32-bit types); float forms take none of the three."""
    name = mods.opcode
    if t_name[0] in "us" and t_name[1:].isdigit():
        if mode is None:
            raise mods.error(f"'{name}.{t_name}' needs .lo, .hi or .wide (unexpected instruction types "
                             f"specified for '{name}')")
        if mode == "wide" and t_name[1:] == "64":
            raise mods.error(f"'{name}.wide' takes 16- or 32-bit types, not .{t_name}")
    elif t_name[0] == "b" and t_name[1:].isdigit():
        raise mods.error(f"'{name}' takes .u or .s integer types, not .{t_name}")
    elif mode is not None:
        raise mods.error(f"'{name}.{mode}' is an integer form: unexpected instruction type .{t_name}")
