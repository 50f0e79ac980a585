"""An insertion cursor for passes that replace one op by several: new ops go before an anchor op.

Invariant: every op the cursor makes is inserted into its block at the cursor's position, gets
the cursor's location (the PTX line of the op being rewritten) and is a well-typed row of
``ptx2gcn.isa.OPS`` (integer ops carry the PTX bit type of their operands, ``b32``/``b64``).
``split_block`` moves the ops from the cursor on into a new block right after the current one,
so a pass can insert control flow (loops) in the middle of a block; the ops keep their identity.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ptx2gcn.diagnostics import Span
from ptx2gcn.ir.core import Attr, Block, Op, OpResult, Value
from ptx2gcn.ir.types import I32, I64, PRED, IntType, Type


def bits_type(value: Value) -> str:
    """The PTX bit type (``b32``, ``b64``...) of an integer value."""
    assert isinstance(value.type, IntType), value.type
    return f"b{value.type.bits}"


class Cursor:
    """Inserts ops before ``block.ops[index]`` (or at the end of ``block`` when ``index`` is None)."""

    def __init__(self, block: Block, index: int | None, loc: Span | None) -> None:
        self.block = block
        self.index = index
        self.loc = loc
        self._origin = block
        self._consts: dict[tuple[int, Type], Value] = {}
        """Constants made by this cursor, reused only in their own block (before the cursor: it only
        moves forward in a block) or when made in the block the cursor started in, which dominates
        every block a rewrite adds (they are all reached through it)."""

    @classmethod
    def before(cls, op: Op) -> Cursor:
        assert op.parent is not None
        return cls(op.parent, op.parent.ops.index(op), op.loc)

    def at_end(self, block: Block) -> None:
        """Continue at the end of ``block``, which the cursor's earlier positions must dominate."""
        self.block, self.index = block, None

    def move_before(self, op: Op) -> None:
        assert op.parent is not None
        self.block, self.index = op.parent, op.parent.ops.index(op)

    def op(self, name: str, operands: tuple[Value, ...] | list[Value] = (), results: tuple[Type, ...] = (),
           **attrs: Attr) -> Op:
        op = Op(name, operands, results, attrs, self.loc)
        if self.index is None:
            self.block.append(op)
        else:
            self.block.insert(self.index, op)
            self.index += 1
        return op

    def value(self, name: str, operands: tuple[Value, ...] | list[Value], result: Type, **attrs: Attr) -> Value:
        return self.op(name, operands, (result,), **attrs).result

    def const(self, value: int, type: Type = I32) -> Value:
        """``value`` as the bit pattern of ``type`` (negative numbers wrap)."""
        bits = value % (1 << type.bits) if type.bits > 1 else value & 1
        made = self._consts.get((bits, type))
        if made is None or not (isinstance(made, OpResult) and made.op.parent in (self.block, self._origin)):
            made = self._consts[(bits, type)] = self.value("const", (), type, value=bits)
        return made

    def binary(self, name: str, a: Value, b: Value) -> Value:
        return self.value(name, (a, b), a.type, type=bits_type(a))

    def and_(self, a: Value, b: Value) -> Value:
        return self.binary("and", a, b)

    def or_(self, a: Value, b: Value) -> Value:
        return self.binary("or", a, b)

    def xor(self, a: Value, b: Value) -> Value:
        return self.binary("xor", a, b)

    def add(self, a: Value, b: Value) -> Value:
        return self.binary("add", a, b)

    def sub(self, a: Value, b: Value) -> Value:
        return self.binary("sub", a, b)

    def shl(self, a: Value, amount: Value | int) -> Value:
        """``a << amount`` (PTX semantics: an amount of the width or more gives 0)."""
        return self.binary("shl", a, self._amount(amount))

    def shr(self, a: Value, amount: Value | int) -> Value:
        """Logical ``a >> amount`` (PTX ``shr.bN``)."""
        return self.binary("shr", a, self._amount(amount))

    def _amount(self, amount: Value | int) -> Value:
        return self.const(amount) if isinstance(amount, int) else amount

    def cmp(self, cmp: str, a: Value, b: Value, signed: bool = False) -> Value:
        """``setp.cmp`` of two integers (``lt``... signed when asked, else unsigned)."""
        assert isinstance(a.type, IntType)
        kind = ("s" if signed else "u") if cmp not in ("eq", "ne") else "b"
        return self.value("setp", (a, b), PRED, cmp=cmp, type=f"{kind}{a.type.bits}")

    def select(self, cond: Value, if_true: Value, if_false: Value) -> Value:
        return self.value("selp", (if_true, if_false, cond), if_true.type)

    def zext(self, value: Value, to: Type = I64) -> Value:
        return self.value("zext", (value,), to)

    def trunc(self, value: Value, to: Type = I32) -> Value:
        return self.value("trunc", (value,), to)

    def pred_and(self, a: Value, b: Value) -> Value:
        return self.value("and", (a, b), PRED, type="pred")

    def pred_or(self, a: Value, b: Value) -> Value:
        return self.value("or", (a, b), PRED, type="pred")

    def pred_not(self, a: Value) -> Value:
        return self.value("not", (a,), PRED, type="pred")

    def not_(self, a: Value) -> Value:
        return self.value("not", (a,), a.type, type=bits_type(a))

    def split_block(self, label: str) -> Block:
        """Move the ops from the cursor on (none at the end of a block) into a new block after the
        current one; returns it.

        The current block is left without a terminator (the caller ends it with a branch); the
        cursor then points at the end of the current block.
        """
        block, index = self.block, len(self.block.ops) if self.index is None else self.index
        assert block.parent is not None
        tail = Block(fresh_label(block, label))
        moved = block.ops[index:]
        del block.ops[index:]
        for op in moved:
            tail.append(op)
        fn = block.parent
        tail.parent = fn
        fn.blocks.insert(fn.blocks.index(block) + 1, tail)
        self.index = None
        return tail

    def new_block(self, label: str, after: Block, arg_types: tuple[Type, ...] = ()) -> Block:
        """An empty block inserted after ``after`` with arguments of ``arg_types``."""
        assert after.parent is not None
        block = Block(fresh_label(after, label))
        for t in arg_types:
            block.add_arg(t)
        block.parent = after.parent
        after.parent.blocks.insert(after.parent.blocks.index(after) + 1, block)
        return block

    @contextmanager
    def if_then(self, cond: Value, label: str) -> Iterator[None]:
        """Ops made in the ``with`` body run only where ``cond`` holds; afterwards the cursor is at
        the start of the join block (the rest of the original block)."""
        join = self.split_block(f"{label}.end")
        then = self.new_block(label, self.block)
        self.cbr(cond, then, join)
        self.at_end(then)
        yield
        self.br(join)
        self.block, self.index = join, 0

    def br(self, target: Block, args: tuple[Value, ...] = ()) -> None:
        self.op("br").add_successor(target, args)

    def cbr(self, cond: Value, if_true: Block, if_false: Block, true_args: tuple[Value, ...] = (),
            false_args: tuple[Value, ...] = ()) -> None:
        op = self.op("cbr", (cond,))
        op.add_successor(if_true, true_args)
        op.add_successor(if_false, false_args)


def fresh_label(near: Block, stem: str) -> str:
    """A block label not used in ``near``'s function: ``stem``, ``stem.1``, ``stem.2``..."""
    assert near.parent is not None
    taken = {b.label for b in near.parent.blocks}
    label, n = stem, 0
    while label in taken:
        n += 1
        label = f"{stem}.{n}"
    return label


def replace_op(op: Op, *values: Value) -> None:
    """Replace ``op``'s results by ``values`` (in order) and erase it, with the ``const`` ops that
    only it used (immediates of the replaced instruction)."""
    for result, value in zip(op.results, values, strict=False):
        result.replace_all_uses_with(value)
    operands = op.operand_values
    op.erase()
    for value in operands:
        if isinstance(value, OpResult) and value.op.name == "const" and not value.uses and value.op.parent:
            value.op.erase()
