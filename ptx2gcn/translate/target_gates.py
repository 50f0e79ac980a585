"""Instruction forms that depend on the module's ``.target`` and ``.version`` (ptxas rejects them
for older targets or PTX versions, so the builder must too).

Invariant: each gate raises a located ``Ptx2GcnError`` worded like ptxas 13.0 exactly when ptxas
would reject the form for the module's target and version, and returns otherwise; a module without
an ``sm_XX`` target is judged as the oldest target (no gate fires on it).
"""

from __future__ import annotations

from ptx2gcn.frontend import ast
from ptx2gcn.frontend.targets import Target
from ptx2gcn.translate.emitter import FnCtx


def target_of(ctx: FnCtx) -> Target:
    module = ctx.symbols.module
    return Target.of(module.version, module.target)


def require_sync(ctx: FnCtx, ins: ast.Instruction, sync: bool) -> None:
    """shfl/vote without ``.sync``: removed for sm_70 and later from PTX ISA 6.4 (9.7.8.6, 9.7.8.8)."""
    target = target_of(ctx)
    if not sync and target.sm >= 70 and target.version >= (6, 4):
        raise ctx.error(ins.span, f"instruction '{ins.opcode}' without '.sync' is not supported on .target "
                        "sm_70 and higher from PTX ISA version 6.4")


def check_vector_width(ctx: FnCtx, ins: ast.Instruction, space: str, vec: int, elem_bits: int) -> None:
    """ld/st ``.v8`` (32-bit elements) and ``.v4`` of 64-bit elements are 256-bit accesses: PTX 8.8,
    sm_100 and later, ``.global`` only (9.7.9.8 ld); nothing wider exists."""
    bits = vec * elem_bits
    if vec == 8 and elem_bits != 32 or bits > 256:
        raise ctx.error(ins.span, f"unexpected instruction types for '{ins.opcode}': .v{vec} of "
                        f"{elem_bits}-bit elements")
    if bits < 256:
        return
    target = target_of(ctx)
    if target.version < (8, 8):
        raise ctx.error(ins.span, "feature '256 bit wide load/store' requires PTX ISA .version 8.8 or later")
    if target.sm < 100:
        raise ctx.error(ins.span, "feature '256 bit wide load/store' requires .target sm_100 or higher")
    if space != "global":
        raise ctx.error(ins.span, "global state space expected for feature '256 bit wide load/store'")


def require_target(ctx: FnCtx, ins: ast.Instruction, feature: str, sm: int, version: tuple[int, int]) -> None:
    """``feature`` needs ``sm_<sm>`` or later and PTX ISA ``version`` or later."""
    target = target_of(ctx)
    if target.version < version:
        raise ctx.error(ins.span, f"feature '{feature}' requires PTX ISA .version {version[0]}.{version[1]} "
                        "or later")
    if target.sm and target.sm < sm:
        raise ctx.error(ins.span, f"feature '{feature}' requires .target sm_{sm} or higher")


# min/max and add features with their (sm, PTX version) (PTX ISA 9.7.1.1, 9.7.1.10, 9.7.3.10)
MINMAX_FEATURES: dict[str, tuple[int, tuple[int, int]]] = {
    "u16x2": (90, (8, 0)), "s16x2": (90, (8, 0)), "relu": (90, (8, 0)), "xorsign": (86, (7, 2)),
    "nan": (80, (7, 0)),
}


def check_arith_features(ctx: FnCtx, ins: ast.Instruction, t_name: str, attrs: dict[str, object]) -> None:
    """The target requirements of packed integer types and of min/max ``.relu .xorsign .NaN``."""
    for word in (t_name, *(k for k, v in attrs.items() if v is True)):
        need = MINMAX_FEATURES.get(word)
        if need is not None:
            require_target(ctx, ins, f"{ins.opcode}.{word}", *need)
