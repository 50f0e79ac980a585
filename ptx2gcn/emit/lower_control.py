"""Lowering of control flow and calls: br/cbr/switch (block arguments → phis), ret, exit, call,
call_indirect, trap, brkpt, nanosleep, pmevent.

Invariant: a successor's argument values become the incoming values of the target block's phis
for the LLVM block that ends the predecessor (recorded at the branch, since lowering may split
blocks); device functions follow the PTX call ABI as the IR states it: ``.param`` arguments and
``.param`` return slots are addresses of caller-owned private memory, ``.reg`` values pass by
value, several ``.reg`` results return as an LLVM struct. Recursion is ordinary LLVM recursion
(the back end gives it a stack); indirect calls go through the function's address with the
prototype's signature; ``brx.idx`` is an LLVM ``switch``.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_types import I32, llvm_type, pointer
from ptx2gcn.ir.core import Op, Successor


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


def lower_ret(cx: FnContext, op: Op) -> None:
    values = cx.operands(op)
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


def lower_exit(cx: FnContext, op: Op) -> None:
    if not cx.is_kernel:
        raise cx.unsupported("exit", "exit inside a device function is not lowered yet "
                                     "(only kernels can end the thread here)")
    cx.builder.ret_void()


def lower_unreachable(cx: FnContext, op: Op) -> None:
    cx.builder.unreachable()


def lower_call(cx: FnContext, op: Op) -> None:
    callee_name = op.attrs["callee"]
    assert isinstance(callee_name, str)
    callee = cx.mod.functions[callee_name]
    if callee_name not in cx.mod.defined:
        raise cx.unsupported(f"call {callee_name}", "the callee has no definition in this module "
                             "(external device functions such as vprintf are not provided yet)")
    result = cx.builder.call(callee, cx.operands(op), attrs=("convergent",))
    if len(op.results) == 1:
        cx.define(op, result)
    elif op.results:
        cx.define(op, *[cx.builder.extract_value(result, i) for i in range(len(op.results))])


def lower_call_indirect(cx: FnContext, op: Op) -> None:
    """call through a function address; the signature is the prototype's, as the IR's operand and
    result types spell it (same ABI as direct calls)."""
    target, *args = cx.operands(op)
    rets = [llvm_type(r.type) for r in op.results]
    ret_t: ir.Type = ir.VoidType() if not rets else rets[0] if len(rets) == 1 else ir.LiteralStructType(rets)
    fn_t = ir.FunctionType(ret_t, [a.type for a in args])
    callee = cx.builder.inttoptr(cx.coerce(target, ir.IntType(64)), pointer(0))
    result = cx.builder.call(_Callee(callee, fn_t), args, attrs=("convergent",))
    if len(op.results) == 1:
        cx.define(op, result)
    elif op.results:
        cx.define(op, *[cx.builder.extract_value(result, i) for i in range(len(op.results))])


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
