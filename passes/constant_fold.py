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

from ptx2gcn.ir.core import Function, Module, Op, OpResult, Value
from ptx2gcn.ir.evaluate import evaluate
from ptx2gcn.ir.opcodes import has_side_effects
from ptx2gcn.ir.passbase import Pass
from ptx2gcn.ir.types import FloatType, IntType, PredType


@dataclass(frozen=True)
class ConstantFold(Pass):
    name = "constant-fold"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.functions:
            changed |= _fold_function(fn)
        return changed


def _const_value(value: Value) -> int | None:
    if isinstance(value, OpResult) and value.op.name == "const":
        bits = value.op.attrs.get("value")
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
        # Build each block's new op list in one pass: inserting and erasing in place would be
        # quadratic in the huge straight-line blocks of unrolled kernels.
        before = changed
        changed = False
        new_ops: list[Op] = []
        for op in block.ops:
            if op.name == "selp" and _fold_select(op):
                changed = True
            elif op.name == "cbr" and (branch := _fold_branch(op)) is not None:
                new_ops.append(branch)
                changed = True
            elif _foldable(op) and (consts := _fold_op(op)) is not None:
                new_ops.extend(consts)
                changed = True
            else:
                new_ops.append(op)
        if changed:
            for op in new_ops:
                op.parent = block
            block.ops = new_ops
        changed |= before
    return changed


def _retire(op: Op) -> None:
    """Forget an op that has been replaced (its results must be unused)."""
    assert all(not r.uses for r in op.results)
    op.detach()


def _fold_op(op: Op) -> list[Op] | None:
    inputs: list[int] = []
    for use in op.operands:
        bits = _const_value(use.value)
        if bits is None:
            return None
        inputs.append(bits)
    results = evaluate(op, inputs)
    if results is None:
        return None
    consts: list[Op] = []
    for result, bits in zip(op.results, results):
        const = Op("const", (), (result.type,), {"value": bits & ((1 << result.type.bits) - 1)}, op.loc)
        const.results[0].name = result.name
        result.replace_all_uses_with(const.results[0])
        consts.append(const)
    _retire(op)
    return consts


def _fold_select(op: Op) -> bool:
    cond = _const_value(op.operand(2))
    same = op.operand(0) is op.operand(1)
    if cond is None and not same:
        return False
    chosen = op.operand(0) if same or cond else op.operand(1)
    op.results[0].replace_all_uses_with(chosen)
    _retire(op)
    return True


def _fold_branch(op: Op) -> Op | None:
    cond = _const_value(op.operand(0))
    if cond is None:
        return None
    taken = op.successors[0] if cond else op.successors[1]
    br = Op("br", (), (), {}, op.loc)
    br.add_successor(taken.block, taken.arg_values)
    _retire(op)
    return br
