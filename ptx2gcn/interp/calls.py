"""``call`` and ``ret`` of ``.func`` functions: a new frame per call, arguments and results copied
between the caller's and the callee's parameters.

Invariant (PTX ISA "Control Flow Instructions: call, ret" and "Parameter State Space"): a call gives
the callee a fresh frame whose ``.param`` parameters hold the bytes of the caller's arguments (a
caller ``.param`` variable, or a value for a ``.reg`` parameter), whose registers are all
unspecified and whose ``.local`` variables are new, unspecified bytes on top of the thread's local
memory (released by ``ret``); ``ret`` copies the callee's return parameters into the call's result operands and
resumes the caller after the call. Indirect calls (through a register) are not modelled: an
``UnsupportedError`` at the call.
"""

from __future__ import annotations

from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.interp.memory import Region
from ptx2gcn.interp.program import Program
from ptx2gcn.interp.state import Cta, Frame, Warp


def _split(ins: ast.Instruction) -> tuple[tuple[ast.Operand, ...], ast.Operand, tuple[ast.Operand, ...]]:
    """(results, callee, arguments) of ``call [(results),] f[, (arguments)][, prototype]``."""
    ops = list(ins.operands)
    results = ops.pop(0).items if ops and isinstance(ops[0], ast.ParenList) else ()
    if not ops:
        raise Ptx2GcnError.at(ins.span, "reference interpreter: call without a target")
    target = ops.pop(0)
    arguments = ops.pop(0).items if ops and isinstance(ops[0], ast.ParenList) else ()
    return results, target, arguments


def _copy(source: Region, src: int, target: Region, dst: int, size: int) -> None:
    target.data[dst:dst + size] = source.data[src:src + size]
    target.defined[dst:dst + size] = source.defined[src:src + size]


def call(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    results, target, arguments = _split(ins)
    caller, depth = cta.context(warp, lanes)
    if not isinstance(target, ast.Symbol | ast.Register) or target.name in caller.registers:
        raise UnsupportedError.feature(ins.span, "call", "indirect calls are not modelled by the reference interpreter")
    callee = cta.launch.functions(target.name)
    if len(arguments) != len(callee.formals) or len(results) != len(callee.returns):
        raise Ptx2GcnError.at(ins.span, f"reference interpreter: call of {target.name} with "
                              f"{len(results)} results and {len(arguments)} arguments for "
                              f"{len(callee.returns)} and {len(callee.formals)}")
    registers = [(formal, cta.read(warp, actual, formal.type.lstrip("."), lanes))
                 for formal, actual in zip(callee.formals, arguments) if formal.state_space == ".reg"]
    for key, values in warp.regs.items():  # the callee's registers start unspecified
        if key[0] == depth + 1:
            for lane in lanes:
                values[lane] = None
    for lane in lanes:
        stack = cta.stack(warp, lane)
        local = cta.locals[warp.threads[lane]]
        frame = Frame(callee, Region.of(0, bytes(callee.frame_size), defined=False), warp.pc[lane], ins,
                      len(local.data))
        local.data += bytes(callee.local_size)  # the callee's .local variables: unspecified, popped at ret
        local.defined += bytes(callee.local_size)
        for formal, actual in zip(callee.formals, arguments):
            if formal.state_space != ".param":
                continue
            var = callee.frame_variable(formal.name, 0)
            assert var is not None
            _argument(cta, warp, lane, caller, stack[-1].region, actual, frame.region, var.offset, var.size, ins)
        stack.append(frame)
        warp.pc[lane] = 0
    for formal, values in registers:
        cta.write(warp, ast.Register(formal.span, formal.name), formal.type.lstrip("."), lanes, values)


def _argument(cta: Cta, warp: Warp, lane: int, caller: Program, caller_region: Region, actual: ast.Operand,
              region: Region, offset: int, size: int, ins: ast.Instruction) -> None:
    """Fill a ``.param`` parameter from a caller ``.param`` variable or from a value."""
    var = caller.frame_variable(actual.name, warp.pc[lane]) if isinstance(actual, ast.Symbol | ast.Register) else None
    if var is not None:
        _copy(caller_region, var.offset, region, offset, min(size, var.size))
        return
    if isinstance(actual, ast.Register | ast.IntImmediate | ast.FloatImmediate) and size in (1, 2, 4, 8):
        value = cta.read(warp, actual, f"b{8 * size}", [lane])[0]
        region.put(offset, size, None if value is None else int(value))
        return
    raise UnsupportedError.feature(ins.span, "call", "this argument is not modelled by the reference interpreter")


def ret(cta: Cta, warp: Warp, lanes: list[int]) -> None:
    """Return from a ``.func`` (the kernel's own ``ret`` ends the thread instead)."""
    callee, _ = cta.context(warp, lanes)
    frame = cta.stack(warp, lanes[0])[-1]
    assert frame.call is not None
    results, _, _ = _split(frame.call)
    registers = [(actual, formal, cta.read(warp, ast.Register(formal.span, formal.name), formal.type.lstrip("."),
                                           lanes))
                 for formal, actual in zip(callee.returns, results) if formal.state_space == ".reg"]
    for lane in lanes:
        stack = cta.stack(warp, lane)
        done = stack.pop()
        caller = stack[-1]
        for formal, actual in zip(callee.returns, results):
            if formal.state_space != ".param":
                continue
            var = callee.frame_variable(formal.name, 0)
            target = caller.program.frame_variable(actual.name, done.call_pc) \
                if isinstance(actual, ast.Symbol | ast.Register) else None
            if var is not None and target is None and isinstance(actual, ast.Register) and var.size in (1, 2, 4, 8):
                # A register receiving a .param result (ptxas accepts it): the value the callee stored.
                value = done.region.fetch(var.offset, var.size)
                cta.write(warp, actual, f"b{8 * var.size}", [lane], [value])
                continue
            if var is None or target is None:
                raise UnsupportedError.feature(done.call.span if done.call else None, "call", "a .param result "
                                               "must be a .param variable of the caller or a register")
            _copy(done.region, var.offset, caller.region, target.offset, min(var.size, target.size))
        local = cta.locals[warp.threads[lane]]
        del local.data[done.local_base:], local.defined[done.local_base:]
        warp.pc[lane] = done.call_pc + 1
    for actual, formal, values in registers:
        cta.write(warp, actual, formal.type.lstrip("."), lanes, values)
