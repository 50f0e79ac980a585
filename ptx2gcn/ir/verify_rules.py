"""Per-op typing rules of the verifier that the opcode table's kind columns cannot express.

Invariant: each rule reads one op (and, through ``RuleContext``, the module and function it is
in) and returns '' when the op is well-formed, else one sentence saying what is wrong; rules never
raise, whatever the op looks like (the verifier reports, it does not crash).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from ptx2gcn.ir.core import Function, Module, Op
from ptx2gcn.ir.opcodes import SPECIAL_REGS
from ptx2gcn.ir.types import (
    I32,
    PRED,
    PTX_TYPES,
    AddrSpace,
    IntType,
    PtrType,
    Type,
    VectorType,
    ptx_type,
)
from ptx2gcn.ir.verify_rules_async import RULES as ASYNC_RULES

_READ_ONLY = {AddrSpace.CONST, AddrSpace.KPARAM}
_ATOMIC_SPACES = {AddrSpace.GLOBAL, AddrSpace.SHARED, AddrSpace.GENERIC}


class RuleContext(Protocol):
    """Where the op under check lives."""

    module: Module
    fn: Function | None


def type_list(types: Iterable[object]) -> str:
    return ", ".join(str(t) for t in types)


_types = type_list


def _memory_type(op: Op) -> Type | None:
    name = op.attrs.get("type")
    if not isinstance(name, str) or name not in PTX_TYPES:
        return None
    elem = ptx_type(name)
    vec = op.attrs.get("vec")
    return VectorType(elem, vec) if isinstance(vec, int) and not isinstance(vec, bool) else elem


def _space(op: Op) -> AddrSpace | None:
    t = op.operand(0).type if op.operands else None
    return t.space if isinstance(t, PtrType) else None


def _vec_problem(op: Op) -> str:
    vec = op.attrs.get("vec")
    return f"vec = {vec} is not 2, 4 or 8" if vec is not None and vec not in (2, 4, 8) else ""


def _check_ld(_: RuleContext, op: Op) -> str:
    if _vec_problem(op):
        return _vec_problem(op)
    want = _memory_type(op)
    if op.results[0].type != want:
        return f"loads {want} but produces {op.results[0].type}"
    return ""


def _check_st(_: RuleContext, op: Op) -> str:
    if _vec_problem(op):
        return _vec_problem(op)
    want = _memory_type(op)
    if len(op.operands) == 2 and op.operand(1).type != want:
        return f"stores {want} but the value is {op.operand(1).type}"
    if _space(op) in _READ_ONLY:
        return f"stores into read-only {_space(op).value} space"  # type: ignore[union-attr]
    return ""


def _check_atom(_: RuleContext, op: Op) -> str:
    if _space(op) not in _ATOMIC_SPACES:
        return "atomics need a global, shared or generic address"
    want = 3 if op.attrs.get("op") == "cas" else 2
    if op.name == "atom" and len(op.operands) != want:
        return f"takes {want} operands with op={op.attrs.get('op')}"
    if _vec_problem(op):
        return _vec_problem(op)
    value = _memory_type(op)
    types = [v.type for v in op.operand_values[1:]] + [r.type for r in op.results]
    if value is None or any(t != value for t in types):
        return f"operates on {value}, not ({_types(types)})"
    return ""


def _check_const(_: RuleContext, op: Op) -> str:
    value = op.attrs.get("value")
    bits = op.results[0].type.bits if op.results else 0
    if isinstance(op.results[0].type, (PtrType, VectorType)):
        return "constants are scalars"
    if isinstance(value, int) and not 0 <= value < (1 << bits):
        return f"value {value} is not a {bits}-bit pattern"
    return ""


def _check_bitcast(_: RuleContext, op: Op) -> str:
    src, dst = op.operand(0).type, op.results[0].type
    if src.bits != dst.bits or isinstance(src, PtrType) or isinstance(dst, PtrType):
        return f"cannot reinterpret {src} as {dst}"
    return ""


def _check_extend(_: RuleContext, op: Op) -> str:
    src, dst = op.operand(0).type, op.results[0].type
    if op.name == "trunc" and not dst.bits < src.bits:
        return f"truncating {src} to {dst} does not narrow"
    if op.name != "trunc" and not dst.bits > src.bits:
        return f"extending {src} to {dst} does not widen"
    return ""


def _pack_ok(parts: list[Type], whole: Type) -> bool:
    if not parts or any(p != parts[0] for p in parts):
        return False
    if isinstance(whole, VectorType):
        return whole.elem == parts[0] and whole.count == len(parts)
    return not isinstance(whole, PtrType) and whole.bits == parts[0].bits * len(parts) and len(parts) > 1


def _check_pack(_: RuleContext, op: Op) -> str:
    parts = [v.type for v in op.operand_values]
    if not _pack_ok(parts, op.results[0].type):
        return f"cannot pack ({_types(parts)}) into {op.results[0].type}"
    return ""


def _check_unpack(_: RuleContext, op: Op) -> str:
    parts = [r.type for r in op.results]
    if not _pack_ok(parts, op.operand(0).type):
        return f"cannot unpack {op.operand(0).type} into ({_types(parts)})"
    return ""


def _check_special(_: RuleContext, op: Op) -> str:
    reg = op.attrs.get("reg")
    bits = SPECIAL_REGS.get(reg) if isinstance(reg, str) else None
    if bits is None:
        return f"unknown special register {reg!r}"
    want = PRED if bits == 1 else IntType(bits)
    if op.results[0].type != want:
        return f"%{reg} is {want}"
    return ""


def _check_addr_of(checker: RuleContext, op: Op) -> str:
    sym = op.attrs.get("sym")
    var = checker.module.global_(sym) if isinstance(sym, str) else None
    if var is None:
        if isinstance(sym, str) and checker.module.function(sym) is not None:
            return "" if op.results[0].type == PtrType(AddrSpace.GENERIC) else "function addresses are generic"
        return f"undefined symbol @{sym}"
    if op.results[0].type != PtrType(var.space):
        return f"@{sym} is in {var.space.value} space, not {op.results[0].type}"
    return ""


def _check_stack_alloc(_: RuleContext, op: Op) -> str:
    return "" if op.results[0].type == PtrType(AddrSpace.LOCAL) else "allocates local memory"


def _check_alloca(_: RuleContext, op: Op) -> str:
    if op.results[0].type not in (PtrType(AddrSpace.LOCAL), PtrType(AddrSpace.PARAM)):
        return "allocates only local or param memory"
    return ""


def _check_cvta(_: RuleContext, op: Op) -> str:
    if op.attrs.get("space") in ("generic", "kparam"):
        return "converts between generic and a specific space"
    if op.operand(0).type != op.results[0].type:
        return "keeps the address width"
    return ""


def _check_call(checker: RuleContext, op: Op) -> str:
    callee = op.attrs.get("callee")
    fn = checker.module.function(callee) if isinstance(callee, str) else None
    if fn is None:
        return f"call to undefined function @{callee}"
    want = [p.value_type for p in fn.abi_params]
    got = [v.type for v in op.operand_values]
    if got != want:
        return f"passes ({_types(got)}) to @{callee}, which takes ({_types(want)})"
    rets = [p.value_type for p in fn.reg_returns]
    if [r.type for r in op.results] != rets:
        return f"@{callee} returns ({_types(rets)})"
    return ""


def _check_ret(checker: RuleContext, op: Op) -> str:
    fn = checker.fn
    want = [p.value_type for p in fn.reg_returns] if fn is not None else []
    got = [v.type for v in op.operand_values]
    return "" if got == want else f"returns ({_types(got)}), the function returns ({_types(want)})"


def _check_collective(_: RuleContext, op: Op) -> str:
    mode = op.attrs.get("mode", op.attrs.get("op"))
    want: list[Type] = [I32] if mode in ("ballot", "popc") else [PRED]
    if op.name == "match":
        want = [I32, PRED] if mode == "all" else [I32]
    got = [r.type for r in op.results]
    return "" if got == want else f"mode {mode} produces ({_types(want)})"


def _check_ptr_result(_: RuleContext, op: Op) -> str:
    return "" if op.results[0].type == op.operand(0).type else "keeps the pointer type"


RULES: dict[str, Callable[[RuleContext, Op], str]] = {
    "ld": _check_ld, "st": _check_st, "atom": _check_atom, "red": _check_atom,
    "const": _check_const, "bitcast": _check_bitcast, "zext": _check_extend, "sext": _check_extend,
    "trunc": _check_extend, "pack": _check_pack, "unpack": _check_unpack,
    "special_reg": _check_special, "addr_of": _check_addr_of, "alloca": _check_alloca,
    "stack_alloc": _check_stack_alloc,
    "cvta": _check_cvta, "call": _check_call, "ret": _check_ret, "vote": _check_collective,
    "bar_red": _check_collective, "match": _check_collective, "ptradd": _check_ptr_result,
    **ASYNC_RULES,
}


# https://docs.nvidia.com/cuda/parallel-thread-execution/#texture-sampler-and-surface-types
_ADDR_MODES = frozenset({"wrap", "mirror", "clamp_ogl", "clamp_to_edge", "clamp_to_border"})
SAMPLER_FIELDS: dict[str, frozenset[str] | frozenset[int]] = {
    **dict.fromkeys(("addr_mode_0", "addr_mode_1", "addr_mode_2"), _ADDR_MODES),
    "filter_mode": frozenset({"nearest", "linear"}),
    "normalized_coords": frozenset({0, 1}), "force_unnormalized_coords": frozenset({0, 1}),
}


def sampler_problem(ptx_type: str, fields: tuple[tuple[str, str | int], ...]) -> str:
    """'' when ``fields`` are valid initializer fields of a ``ptx_type`` variable, else the problem."""
    if fields and ptx_type not in ("texref", "samplerref"):
        return f"{ptx_type} variables take no sampler fields"
    seen: set[str] = set()
    for name, value in fields:
        allowed = SAMPLER_FIELDS.get(name)
        if allowed is None or name in seen:
            return f"unknown or repeated sampler field '{name}'"
        if value not in allowed:
            return f"'{value}' is not a value of {name}"
        seen.add(name)
    return ""
