"""LLVM memory-model instructions llvmlite cannot spell: atomics and fences with a ``syncscope``.

Invariant: each class prints exactly one LLVM instruction in LangRef syntax
(``load atomic``/``store atomic``/``atomicrmw``/``cmpxchg``/``fence`` with an optional
``syncscope("...")``); the PTX scope → syncscope mapping lives in ``ptx2gcn.memory_model`` only; ``cas_loop``
builds a read-modify-write that LLVM has no instruction for from those.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir


def _scope(scope: str) -> str:
    return f' syncscope("{scope}")' if scope else ""


class _Inst(ir.Instruction):  # pyright: ignore[reportUntypedBaseClass]
    text: str = ""

    def descr(self, buf: list[str]) -> None:
        buf.append(self.text.format(*[o.get_reference() for o in self.operands],
                                    *[str(o.type) for o in self.operands]))
        buf.append(self._stringify_metadata(leading_comma=True) + "\n")


def _insert(builder: ir.IRBuilder, inst: ir.Instruction) -> ir.Instruction:
    builder._insert(inst)  # pyright: ignore[reportPrivateUsage]  # llvmlite's only insertion hook
    return inst


def atomic_load(builder: ir.IRBuilder, ptr: ir.Value, typ: ir.Type, ordering: str, scope: str,
                align: int, volatile: bool = False) -> ir.Instruction:
    inst = _Inst(builder.block, typ, "load", [ptr])
    vol = "volatile " if volatile else ""
    inst.text = f"load atomic {vol}{typ}, {{1}} {{0}}{_scope(scope)} {ordering}, align {align}"
    return _insert(builder, inst)


def atomic_store(builder: ir.IRBuilder, value: ir.Value, ptr: ir.Value, ordering: str, scope: str,
                 align: int, volatile: bool = False) -> ir.Instruction:
    inst = _Inst(builder.block, ir.VoidType(), "store", [value, ptr])
    vol = "volatile " if volatile else ""
    inst.text = f"store atomic {vol}{{2}} {{0}}, {{3}} {{1}}{_scope(scope)} {ordering}, align {align}"
    return _insert(builder, inst)


def atomic_rmw(builder: ir.IRBuilder, op: str, ptr: ir.Value, value: ir.Value, ordering: str,
               scope: str) -> ir.Instruction:
    inst = _Inst(builder.block, value.type, "atomicrmw", [ptr, value])
    inst.text = f"atomicrmw {op} {{2}} {{0}}, {{3}} {{1}}{_scope(scope)} {ordering}"
    return _insert(builder, inst)


def cmpxchg(builder: ir.IRBuilder, ptr: ir.Value, expected: ir.Value, new: ir.Value, ordering: str,
            scope: str) -> ir.Instruction:
    """``cmpxchg``; returns the ``{T, i1}`` pair (old value, success)."""
    failure = {"release": "monotonic", "acq_rel": "acquire"}.get(ordering, ordering)
    inst = _Inst(builder.block, ir.LiteralStructType([expected.type, ir.IntType(1)]), "cmpxchg",
                 [ptr, expected, new])
    inst.text = f"cmpxchg {{3}} {{0}}, {{4}} {{1}}, {{5}} {{2}}{_scope(scope)} {ordering} {failure}"
    return _insert(builder, inst)


def fence(builder: ir.IRBuilder, ordering: str, scope: str) -> ir.Instruction:
    inst = _Inst(builder.block, ir.VoidType(), "fence", [])
    inst.text = f"fence{_scope(scope)} {ordering}"
    return _insert(builder, inst)


def cas_loop(builder: ir.IRBuilder, ptr: ir.Value, typ: ir.IntType, update: Callable[[ir.Value], ir.Value],
             ordering: str, scope: str) -> ir.Value:
    """An atomic read-modify-write ``[ptr] = update([ptr])`` on the bits of a ``typ`` as a
    compare-and-swap loop; returns the value it replaced. Leaves ``builder`` in the block after
    the loop. Bits are compared, so −0/+0 and NaN payloads are told apart."""
    align = typ.width // 8
    first = atomic_load(builder, ptr, typ, "monotonic", scope, align)
    entry = builder.block
    loop = builder.append_basic_block("cas.loop")
    done = builder.append_basic_block("cas.done")
    builder.branch(loop)
    builder.position_at_end(loop)
    current = builder.phi(typ)
    current.add_incoming(first, entry)
    pair = cmpxchg(builder, ptr, current, update(current), ordering, scope)
    seen = builder.extract_value(pair, 0)
    current.add_incoming(seen, loop)
    builder.cbranch(builder.extract_value(pair, 1), done, loop)
    builder.position_at_end(done)
    return seen
