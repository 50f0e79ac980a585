"""Lowering of control flow and calls: br/cbr/switch (block arguments → phis), ret, exit, call,
call_indirect, trap, brkpt, nanosleep, pmevent.

Invariant: a successor's argument values become the incoming values of the target block's phis
for the LLVM block that ends the predecessor (recorded at the branch, since lowering may split
blocks); device functions follow the PTX call ABI as the IR states it: ``.param`` arguments and
``.param`` return slots are addresses of caller-owned private memory, except the slots that
``ptx2gcn.emit.return_slots`` passes in registers (results of directly called functions; every
register-sized slot, copied in and out, of functions called through pointers); ``.reg`` values
pass by value, several results return as an LLVM struct. Recursion is ordinary LLVM recursion
(the back end gives it a stack); indirect calls go through the function's address with the
prototype's signature; ``brx.idx`` is an LLVM ``switch``.

``exit`` ends the thread, also inside a device function (PTX 9.7.13): such functions (and, to a
fixed point, every function that may call one, directly or through a pointer once an
address-taken function may exit) return an extra ``i1`` "exited" after their results; ``exit``
returns it true with undefined results, and after each call the caller leaves by its own exit
path when it is true, up to the kernel, which returns. So an exiting thread only goes inactive
(EXEC) until its wave ends, exactly like a kernel-level ``exit``, and a wave whose threads have
all exited ends and stops holding ``s_barrier``: exited threads release later barriers.

Calls to functions this module does not define: ``__assertfail`` (CUDA's ``assert``) records the
failing thread and its message in the exported ``ASSERT_RECORD_SYMBOL`` object
(``ptx2gcn.link.codeobject``; the first failing thread wins a compare-and-swap) and traps; ``vprintf``
appends to the printf FIFO (``ptx2gcn.emit.lower_printf``); every other external function is a
located ``unsupported`` error.
"""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering, runtime_record
from ptx2gcn.emit.llvm_atomics import cmpxchg, fence
from ptx2gcn.emit.llvm_types import I1, I8, I32, I64, llvm_type, pointer
from ptx2gcn.emit.lower_special import read_special
from ptx2gcn.emit.return_slots import ReturnSlot, call_slots
from ptx2gcn.ir.core import Function, Module, Op, Successor
from ptx2gcn.link.codeobject import (
    ASSERT_CTAID,
    ASSERT_FILE,
    ASSERT_FUNCTION,
    ASSERT_LINE,
    ASSERT_MESSAGE,
    ASSERT_RECORD_SIZE,
    ASSERT_RECORD_SYMBOL,
    ASSERT_STATE,
    ASSERT_TID,
)

EXTERN_WHY = ("it is defined in another PTX unit, and ptx2gcn compiles one unit at a time: link the "
              "other unit first (one PTX module holding both definitions and uses)")
"""Why a ``.extern`` variable or an undefined function cannot be compiled (shared wording)."""


def _edge(cx: FnContext, succ: Successor) -> ir.Block:
    target = cx.blocks[succ.block]
    source = cx.builder.block
    for phi, use in zip(cx.phis[succ.block], succ.args, strict=True):
        phi.add_incoming(cx.get(use.value), source)
    return target


def lower_br(cx: FnContext, op: Op) -> None:
    cx.builder.branch(_edge(cx, op.successors[0]))


def lower_cbr(cx: FnContext, op: Op) -> None:
    cond = cx.operand(op, 0)
    then, other = op.successors
    cx.builder.cbranch(cond, _edge(cx, then), _edge(cx, other))


def lower_switch(cx: FnContext, op: Op) -> None:
    """brx.idx: jump to target ``index``; an index out of range is undefined in PTX, so LLVM's
    default destination is an ``unreachable`` block."""
    index = cx.operand(op, 0)
    default = cx.llfn.append_basic_block("brx.out_of_range")
    switch = cx.builder.switch(index, default)
    for case, succ in enumerate(op.successors):
        switch.add_case(ir.Constant(index.type, case), _edge(cx, succ))
    with cx.builder.goto_block(default):
        cx.builder.unreachable()


def _return(cx: FnContext, values: list[ir.Value], exited: bool) -> None:
    """``ret`` of ``values``, plus the exit flag when this function returns one."""
    if cx.fn.name in cx.mod.exit_flagged:
        values = [*values, ir.Constant(I1, int(exited))]
    b = cx.builder
    if not values:
        b.ret_void()
    elif len(values) == 1:
        b.ret(values[0])
    else:
        ret_type = cx.llfn.function_type.return_type
        agg: ir.Value = ir.Constant(ret_type, ir.Undefined)
        for index, value in enumerate(values):
            agg = b.insert_value(agg, value, index)
        b.ret(agg)


def lower_ret(cx: FnContext, op: Op) -> None:
    slots = [cx.builder.load(alloca, typ=slot.type, align=slot.align) for alloca, slot in cx.slot_allocas]
    _return(cx, [*slots, *cx.operands(op)], exited=False)


def _exit_block(cx: FnContext) -> ir.Block:
    """This function's way out for a thread that has exited: a kernel returns (the thread ends);
    a device function returns undefined results and the exit flag set."""
    if cx.exit_block is None:
        cx.exit_block = cx.llfn.append_basic_block("thread.exit")
        with cx.builder.goto_block(cx.exit_block):
            if cx.is_kernel:
                cx.builder.ret_void()
            else:
                ret_type = cx.llfn.function_type.return_type  # (results..., i1 exited)
                types = ret_type.elements[:-1] if isinstance(ret_type, ir.LiteralStructType) else []
                _return(cx, [ir.Constant(t, ir.Undefined) for t in types], exited=True)
    return cx.exit_block


def lower_exit(cx: FnContext, op: Op) -> None:
    cx.builder.branch(_exit_block(cx))


def referenced_symbols(module: Module) -> set[str]:
    """Names whose address some instruction (``addr_of``) or initializer takes."""
    names = {str(op.attrs.get("sym")) for fn in module.functions for op in fn.ops() if op.name == "addr_of"}
    for var in module.globals:
        names.update(item.name for item in var.init or () if not isinstance(item, int))
    return names


def thread_exit_abi(module: Module, referenced: set[str]) -> tuple[frozenset[str], bool]:
    """(device functions that return the exit flag, whether calls through pointers return it);
    ``referenced`` is ``referenced_symbols(module)``."""
    funcs: dict[str, Function] = {f.name: f for f in module.functions if f.kind != "kernel" and not f.is_declaration}
    taken = referenced & funcs.keys()
    flagged = {name for name, fn in funcs.items() if any(op.name == "exit" for op in fn.ops())}
    indirect = False
    changed = True
    while changed:
        changed = False
        if not indirect and flagged & taken:
            indirect, changed = True, True
            flagged |= taken  # a pointer's callers cannot tell which target they reach
        for name, fn in funcs.items():
            if name not in flagged and any(_may_exit(op, flagged, indirect) for op in fn.ops()):
                flagged.add(name)
                changed = True
    return frozenset(flagged), indirect


def _may_exit(op: Op, flagged: set[str], indirect: bool) -> bool:
    return (op.name == "call" and op.attrs.get("callee") in flagged) or (op.name == "call_indirect" and indirect)


def _call_results(cx: FnContext, op: Op, result: ir.Value, exit_flag: bool,
                  slots: Sequence[tuple[ir.Value, ReturnSlot]] = ()) -> None:
    """Bind a call's results (first storing the register-returned ``.param`` ``slots`` into the
    caller's slot addresses); with ``exit_flag``, a thread whose callee exited leaves here too."""
    count = len(slots) + len(op.results) + int(exit_flag)
    values = [result] if count == 1 else [cx.builder.extract_value(result, i) for i in range(count)]
    for (address, slot), value in zip(slots, values, strict=False):
        cx.builder.store(value, address, align=slot.align)
    values = values[len(slots):]
    if exit_flag:
        exited = values.pop()
        resume = cx.llfn.append_basic_block("call.returned")
        cx.builder.cbranch(exited, _exit_block(cx), resume)
        cx.builder.position_at_end(resume)
    if op.results:
        cx.define(op, *values)


def lower_unreachable(cx: FnContext, op: Op) -> None:
    cx.builder.unreachable()


def lower_call(cx: FnContext, op: Op) -> None:
    callee_name = op.attrs["callee"]
    assert isinstance(callee_name, str)
    if callee_name not in cx.mod.defined:
        _external_call(cx, op, callee_name)
        return
    slots = cx.mod.return_slots.get(callee_name, [])
    operands = cx.operands(op)
    result = cx.builder.call(cx.mod.functions[callee_name], _slot_arguments(cx, operands, slots),
                             attrs=("convergent",))
    _call_results(cx, op, result, callee_name in cx.mod.exit_flagged,
                  [(operands[slot.index], slot) for slot in slots])


def _slot_arguments(cx: FnContext, operands: Sequence[ir.Value], slots: Sequence[ReturnSlot]) -> list[ir.Value]:
    """A call's LLVM arguments: a slot returned in registers is left out, or, when ``passed_in``,
    its current value is passed instead of its address (``return_slots``)."""
    by_index = {slot.index: slot for slot in slots}
    args: list[ir.Value] = []
    for index, value in enumerate(operands):
        slot = by_index.get(index)
        if slot is None:
            args.append(value)
        elif slot.passed_in:
            args.append(cx.builder.load(value, typ=slot.type, align=slot.align))
    return args


def lower_call_indirect(cx: FnContext, op: Op) -> None:
    """call through a function address; the signature is the prototype's, as the IR's operand and
    result types spell it (same ABI as direct calls to address-taken functions, exit flag included)."""
    target, *operands = cx.operands(op)
    slots = call_slots(op.operand_values[1:]) if cx.mod.indirect_values else []
    args = _slot_arguments(cx, operands, slots)
    rets = ([slot.type for slot in slots] + [llvm_type(r.type) for r in op.results]
            + ([I1] if cx.mod.indirect_exit_flag else []))
    ret_t: ir.Type = ir.VoidType() if not rets else rets[0] if len(rets) == 1 else ir.LiteralStructType(rets)
    fn_t = ir.FunctionType(ret_t, [a.type for a in args])
    callee = cx.builder.inttoptr(cx.coerce(target, ir.IntType(64)), pointer(0))
    result = cx.builder.call(_Callee(callee, fn_t), args, attrs=("convergent",))
    _call_results(cx, op, result, cx.mod.indirect_exit_flag, [(operands[slot.index], slot) for slot in slots])


def _external_call(cx: FnContext, op: Op, name: str) -> None:
    if name == "__assertfail":
        _assert_fail(cx, op)
    elif name == "vprintf":
        from ptx2gcn.emit.lower_printf import lower_vprintf  # imported by the few kernels that print

        lower_vprintf(cx, op)
    else:
        raise cx.unsupported(f"call {name}", f"{name} has no definition in this module: {EXTERN_WHY}")


def _assert_fail(cx: FnContext, op: Op) -> None:
    """``__assertfail(message, file, line, function, charSize)``: the first failing thread fills the
    assertion record, then the kernel traps (CUDA ends the launch with an assertion error)."""
    b = cx.builder
    if len(op.operands) != 5 or op.results:
        raise cx.unsupported("call __assertfail", "expected CUDA's signature (.param .b64 message, .param "
                             ".b64 file, .param .b32 line, .param .b64 function, .param .b64 charSize)")
    message, file, line, function = [b.load(p, typ=t, align=t.width // 8)
                                     for p, t in zip(cx.operands(op)[:4], (I64, I64, I32, I64), strict=True)]
    record = runtime_record(cx.mod.module, ASSERT_RECORD_SYMBOL, ASSERT_RECORD_SIZE)

    def field(offset: int) -> ir.Value:
        return b.gep(record, [cx.i64(offset)], inbounds=True, source_etype=I8)

    won = b.extract_value(cmpxchg(b, field(ASSERT_STATE), cx.i32(0), cx.i32(1), "monotonic", ""), 1)
    with b.if_then(won):
        for offset, value in ((ASSERT_LINE, line), (ASSERT_MESSAGE, message), (ASSERT_FILE, file),
                              (ASSERT_FUNCTION, function)):
            b.store(value, field(offset), align=4)
        for base, reg in ((ASSERT_CTAID, "ctaid"), (ASSERT_TID, "tid")):
            for index, axis in enumerate("xyz"):
                b.store(read_special(cx, f"{reg}.{axis}"), field(base + 4 * index), align=4)
        fence(b, "release", "")
    lower_trap(cx, op)


class _Callee:
    """An opaque function pointer with a known signature (what ``IRBuilder.call`` reads)."""

    def __init__(self, pointer_value: ir.Value, fn_t: ir.FunctionType) -> None:
        self._value = pointer_value
        self.function_type = fn_t
        self.type = pointer_value.type

    def get_reference(self) -> str:
        return self._value.get_reference()

    def __getattr__(self, name: str) -> object:
        return getattr(self._value, name)


def lower_trap(cx: FnContext, op: Op) -> None:
    cx.call("llvm.trap", ir.VoidType(), [], ["noreturn"])


def lower_brkpt(cx: FnContext, op: Op) -> None:
    cx.call("llvm.debugtrap", ir.VoidType(), [])


def lower_nanosleep(cx: FnContext, op: Op) -> None:
    """PTX allows any sleep in [0, 2t] ns; one short ``s_sleep`` (64 clocks x 2) is a valid choice."""
    cx.call("llvm.amdgcn.s.sleep", ir.VoidType(), [ir.Constant(I32, 2)])


def lower_pmevent(cx: FnContext, op: Op) -> None:
    """Performance-monitor events have no gfx942 counterpart; PTX gives them no visible effect."""


LOWERINGS: dict[str, Lowering] = {
    "br": lower_br, "cbr": lower_cbr, "switch": lower_switch, "ret": lower_ret, "exit": lower_exit,
    "unreachable": lower_unreachable, "call": lower_call, "call_indirect": lower_call_indirect,
    "trap": lower_trap, "brkpt": lower_brkpt,
    "nanosleep": lower_nanosleep, "pmevent": lower_pmevent,
}
