"""An insertion cursor for passes that replace one op by several, control flow included.

Invariant: every op the cursor makes is inserted into its block at the cursor's position (the end
of the block, or before a given index), gets the cursor's location (the PTX line of the op being
rewritten) and is a well-typed row of ``ptx2gcn.ir.opcodes.OPS`` (integer ops carry the PTX bit type of
their operands, ``b32``/``b64``). Control flow (``split_block``, ``if_then``) needs a cursor at the
end of its block: a pass that expands an op detaches the op and the ops after it, lets the
expansion end wherever its last block is, and appends the rest there (``expand_ops``), so
rewriting n ops of a block costs O(n + ops made), not O(n²) list insertions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
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

    def at_end(self, block: Block) -> None:
        """Continue at the end of ``block``, which the cursor's earlier positions must dominate."""
        self.block, self.index = block, None

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
        """A new empty block right after the current one, where what follows the expansion will go;
        the current block is left without a terminator (the caller ends it with a branch)."""
        assert self.index is None, "control flow needs a cursor at the end of its block"
        return self.new_block(label, self.block)

    def new_block(self, label: str, after: Block, arg_types: tuple[Type, ...] = ()) -> Block:
        """An empty block inserted after ``after`` with arguments of ``arg_types``."""
        assert after.parent is not None
        block = Block(label)  # the printer numbers repeated labels (label.1, label.2...)
        for t in arg_types:
            block.add_arg(t)
        block.parent = after.parent
        after.parent.blocks.insert(after.parent.blocks.index(after) + 1, block)
        return block

    @contextmanager
    def if_then(self, cond: Value, label: str) -> Iterator[None]:
        """Ops made in the ``with`` body run only where ``cond`` holds; afterwards the cursor is at
        the end of the join block."""
        join = self.split_block(f"{label}.end")
        then = self.new_block(label, self.block)
        self.cbr(cond, then, join)
        self.at_end(then)
        yield
        self.br(join)
        self.at_end(join)

    def br(self, target: Block, args: tuple[Value, ...] = ()) -> None:
        self.op("br").add_successor(target, args)

    def cbr(self, cond: Value, if_true: Block, if_false: Block, true_args: tuple[Value, ...] = (),
            false_args: tuple[Value, ...] = ()) -> None:
        op = self.op("cbr", (cond,))
        op.add_successor(if_true, true_args)
        op.add_successor(if_false, false_args)


def expand_ops(block: Block, wanted: Callable[[Op], bool],
               expand: Callable[[Cursor, Op], tuple[Value, ...]]) -> None:
    """Replace every op of ``block`` that ``wanted`` accepts by ``expand``'s ops, in one sweep.

    ``expand`` gets a cursor at the end of the ops before the op and returns the values replacing
    the op's results; the ops after it continue in the block where the cursor ends (an expansion
    with control flow ends in another block). Immediates only the replaced ops used are removed.
    """
    ops, block.ops = block.ops, []
    current = block
    dead: set[Op] = set()
    for op in ops:
        if not wanted(op):
            current.append(op)
            continue
        at = Cursor(current, None, op.loc)
        values = expand(at, op)
        for result, value in zip(op.results, values, strict=False):
            result.replace_all_uses_with(value)
        operands = op.operand_values
        op.parent = None
        op.erase()
        dead.update(v.op for v in operands if isinstance(v, OpResult) and v.op.name == "const")
        current = at.block
    gone = {const for const in dead if not const.results[0].uses}
    for holder in {const.parent for const in gone if const.parent is not None}:
        holder.ops = [op for op in holder.ops if op not in gone]
    for const in gone:
        const.detach()
