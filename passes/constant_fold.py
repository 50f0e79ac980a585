"""constant-fold: replace ops whose operands are constants by constants, with PTX's exact semantics.

Requires: a verified module (phase ``ssa``).
Ensures: no foldable op (``ptx2gcn.ir.evaluate`` knows its exact result) has only constant
operands; every ``selp`` and ``cbr`` with a constant predicate is resolved (``cbr`` becomes
``br``, dropping the edge not taken); results keep their types, and the replaced ops' locations
are kept on the new constants.
Not handled: floating-point arithmetic (denormals, NaN payloads and rounding would all need
modelling), ``cvt``, algebraic identities (``x + 0``), and effectful ops. Unreachable blocks left
by resolved branches are removed by ``dce``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.ir.core import Function, Module, Op, Value
from ptx2gcn.ir.evaluate import evaluate
from ptx2gcn.ir.passbase import Pass
from ptx2gcn.ir.types import FloatType, IntType, PredType
from ptx2gcn.isa import has_side_effects


@dataclass(frozen=True)
class ConstantFold(Pass):
    name = "constant-fold"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.functions:
            changed |= _fold_function(fn)
        return changed


def _const_value(value: Value) -> int | None:
    op = getattr(value, "op", None)
    if isinstance(op, Op) and op.name == "const":
        bits = op.attrs.get("value")
        return bits if isinstance(bits, int) and not isinstance(bits, bool) else None
    return None


def _foldable(op: Op) -> bool:
    if op.name in ("const", "undef") or not op.results or op.successors:
        return False
    if has_side_effects(op.name, op.attrs) or op.name in ("ld", "special_reg", "alloca", "addr_of"):
        return False
    return all(isinstance(r.type, (IntType, PredType, FloatType)) for r in op.results)


def _fold_function(fn: Function) -> bool:
    changed = False
    for block in fn.blocks:
        for op in list(block.ops):
            if op.name == "selp":
                changed |= _fold_select(op)
            elif op.name == "cbr":
                changed |= _fold_branch(op)
            elif _foldable(op):
                changed |= _fold_op(op)
    return changed


def _fold_op(op: Op) -> bool:
    inputs = [_const_value(v) for v in op.operand_values]
    if any(i is None for i in inputs):
        return False
    results = evaluate(op, [i for i in inputs if i is not None])
    if results is None:
        return False
    block = op.parent
    assert block is not None
    for result, bits in zip(op.results, results):
        const = Op("const", (), (result.type,), {"value": bits & ((1 << result.type.bits) - 1)}, op.loc)
        block.insert_before(op, const)
        const.results[0].name = result.name
        result.replace_all_uses_with(const.results[0])
    op.erase()
    return True


def _fold_select(op: Op) -> bool:
    cond = _const_value(op.operand(2))
    same = op.operand(0) is op.operand(1)
    if cond is None and not same:
        return False
    chosen = op.operand(0) if same or cond else op.operand(1)
    op.results[0].replace_all_uses_with(chosen)
    op.erase()
    return True


def _fold_branch(op: Op) -> bool:
    cond = _const_value(op.operand(0))
    if cond is None:
        return False
    taken, dropped = (op.successors[0], op.successors[1]) if cond else (op.successors[1], op.successors[0])
    block = op.parent
    assert block is not None
    br = Op("br", (), (), {}, op.loc)
    br.add_successor(taken.block, taken.arg_values)
    del dropped
    block.insert_before(op, br)
    op.drop_uses()
    block.ops.remove(op)
    op.parent = None
    return True
