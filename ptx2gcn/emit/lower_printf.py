"""Lowering of CUDA's device ``printf``: calls to ``vprintf(format, arguments)``.

CUDA's front end turns ``printf(fmt, ...)`` into ``vprintf(fmt, buf)``, where ``buf`` is a local
buffer holding the arguments packed each at an offset aligned to its size (``float`` already promoted
to ``double``, narrower integers to ``int``), or null without arguments. ``vprintf`` returns the
number of arguments, -1 for a null format (CUDA Programming Guide, "Formatted Output").

Here a call reserves a record in the FIFO that the exported control block ``PRINTF_CONTROL_SYMBOL``
describes (``ptx2gcn.codeobject``: buffer, capacity, bytes used; the runtime sets it up before each
launch) with one atomic add on ``used``, and writes the record header {record size, argument bytes,
format address} and a copy of the argument bytes. A record that does not fit is dropped, as CUDA
drops output beyond its FIFO. The host formats records after the launch
(``ptx2gcn.runtime.printf``), reading the format string from the loaded code object.

The argument bytes' size is not passed to ``vprintf``: the helper ``__ptx2gcn_printf_layout``
(emitted once per module, inlined) walks the format string at run time, with CUDA's packing rule:
each conversion takes 8 bytes if it has an ``l``/``ll``/``j``/``z``/``t``/``L`` length or is a
floating-point (``f F e E g G a A``), ``s`` or ``p`` conversion, else 4; ``%%`` takes none.

Invariant: a thread's record is either entirely inside the FIFO or not written at all, and its
argument bytes are exactly the first ``size`` bytes of the buffer ``vprintf`` received; the call's
result is the argument count (-1 for a null format, -2 when the runtime set up no FIFO).
Not handled: ``*`` widths/precisions (CUDA does not support them either; the walk skips the ``*``
and takes no argument for it).
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.codeobject import (
    PRINTF_BUFFER,
    PRINTF_CAPACITY,
    PRINTF_CONTROL_SIZE,
    PRINTF_CONTROL_SYMBOL,
    PRINTF_RECORD_HEADER,
    PRINTF_USED,
)
from ptx2gcn.emit.context import FnContext, HostVisibleGlobal
from ptx2gcn.emit.llvm_atomics import atomic_rmw
from ptx2gcn.emit.llvm_types import I1, I8, I32, I64, pointer
from ptx2gcn.ir.core import Op

LAYOUT_FUNCTION = "__ptx2gcn_printf_layout"
_SPEC_CONTINUES = b"-+ #0123456789.hlLqjzt*"
"""Characters inside a conversion specification before its conversion character."""
_LONG_LENGTHS = b"lLqjzt"
_EIGHT_BYTE_CONVERSIONS = b"fFeEgGaAsp"
_LAYOUT_TYPE = ir.LiteralStructType([I32, I32])


def _control_block(cx: FnContext) -> ir.GlobalVariable:
    module = cx.mod.module
    block = module.globals.get(PRINTF_CONTROL_SYMBOL)
    if block is None:
        t = ir.ArrayType(I8, PRINTF_CONTROL_SIZE)
        block = HostVisibleGlobal(module, t, PRINTF_CONTROL_SYMBOL, 1)
        block.initializer = ir.Constant(t, None)
        block.align = 8
        block.type = pointer(1)  # references print as opaque ``ptr addrspace(1)``
    assert isinstance(block, ir.GlobalVariable)
    return block


def _layout_function(cx: FnContext) -> ir.Function:
    """``{i32 size, i32 count} __ptx2gcn_printf_layout(ptr format)``: the argument buffer's size and
    argument count a format string implies ({0, -1} for a null format)."""
    module = cx.mod.module
    found = module.globals.get(LAYOUT_FUNCTION)
    if isinstance(found, ir.Function):
        return found
    fn = ir.Function(module, ir.FunctionType(_LAYOUT_TYPE, [pointer(0)]), LAYOUT_FUNCTION)
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")
    fn.attributes.add("nounwind")
    _build_layout(fn)
    return fn


def _char(b: ir.IRBuilder, fmt: ir.Value, index: ir.Value) -> ir.Value:
    return b.load(b.gep(fmt, [index], source_etype=I8), typ=I8)


def _build_layout(fn: ir.Function) -> None:
    """The format walk: ``loop`` scans plain text, ``spec`` a conversion specification, ``conv``
    adds one argument (aligned to its size) and returns to ``loop``."""
    fmt = fn.args[0]
    entry, loop, spec, spec_end, conv, small, big, add, done, null = (
        fn.append_basic_block(n)
        for n in ("entry", "loop", "spec", "spec_end", "conv", "small", "big", "add", "done", "null"))
    b = ir.IRBuilder(entry)
    zero32, zero64 = ir.Constant(I32, 0), ir.Constant(I64, 0)
    b.cbranch(b.icmp_unsigned("==", fmt, ir.Constant(pointer(0), None)), null, loop)

    b.position_at_end(loop)
    i, off, count = b.phi(I64, "i"), b.phi(I32, "off"), b.phi(I32, "count")
    c = _char(b, fmt, i)
    next_i = b.add(i, ir.Constant(I64, 1))
    switch = b.switch(c, loop)
    switch.add_case(ir.Constant(I8, 0), done)
    switch.add_case(ir.Constant(I8, ord("%")), spec)

    b.position_at_end(spec)
    j, long_ = b.phi(I64, "j"), b.phi(I1, "long")
    d = _char(b, fmt, j)
    next_j = b.add(j, ir.Constant(I64, 1))
    is_long = b.or_(long_, _any_of(b, d, _LONG_LENGTHS))
    switch = b.switch(d, spec_end)
    switch.add_case(ir.Constant(I8, 0), done)
    switch.add_case(ir.Constant(I8, ord("%")), loop)  # "%%": a literal percent sign
    b.position_at_end(spec_end)  # one edge per predecessor keeps the phis simple
    b.cbranch(_any_of(b, d, _SPEC_CONTINUES), spec, conv)

    b.position_at_end(conv)
    switch = b.switch(d, small)
    for ch in _EIGHT_BYTE_CONVERSIONS:
        switch.add_case(ir.Constant(I8, ch), big)
    b.position_at_end(small)
    small_size = b.select(is_long, ir.Constant(I32, 8), ir.Constant(I32, 4))
    b.branch(add)
    b.position_at_end(big)
    b.branch(add)
    b.position_at_end(add)
    size = b.phi(I32, "size")
    size.add_incoming(small_size, small)
    size.add_incoming(ir.Constant(I32, 8), big)
    mask = b.sub(size, ir.Constant(I32, 1))
    aligned = b.and_(b.add(off, mask), b.not_(mask))
    new_off, new_count = b.add(aligned, size), b.add(count, ir.Constant(I32, 1))
    b.branch(loop)

    for phi, values in ((i, (zero64, next_i, next_j, next_j)), (off, (zero32, off, off, new_off)),
                        (count, (zero32, count, count, new_count))):
        for value, block in zip(values, (entry, loop, spec, add), strict=True):
            phi.add_incoming(value, block)
    for spec_phi, spec_values in ((j, (next_i, next_j)), (long_, (ir.Constant(I1, 0), is_long))):
        for value, block in zip(spec_values, (loop, spec_end), strict=True):
            spec_phi.add_incoming(value, block)

    b.position_at_end(done)
    b.ret(_pair(b, off, count))
    b.position_at_end(null)
    b.ret(_pair(b, zero32, ir.Constant(I32, -1)))


def _any_of(b: ir.IRBuilder, c: ir.Value, chars: bytes) -> ir.Value:
    result: ir.Value = ir.Constant(I1, 0)
    for ch in chars:
        result = b.or_(result, b.icmp_unsigned("==", c, ir.Constant(I8, ch)))
    return result


def _pair(b: ir.IRBuilder, first: ir.Value, second: ir.Value) -> ir.Value:
    pair = b.insert_value(ir.Constant(_LAYOUT_TYPE, ir.Undefined), first, 0)
    return b.insert_value(pair, second, 1)


def lower_vprintf(cx: FnContext, op: Op) -> None:
    """``call (ret), vprintf, (format, arguments)``: append one record to the printf FIFO."""
    if len(op.operands) not in (2, 3) or op.results:
        raise cx.unsupported("call vprintf", "expected CUDA's signature (.param .b32 result) vprintf(.param "
                             ".b64 format, .param .b64 arguments)")
    b = cx.builder
    *ret_slot, fmt_slot, args_slot = cx.operands(op)
    fmt, args = (b.load(slot, typ=I64, align=8) for slot in (fmt_slot, args_slot))
    layout = b.call(_layout_function(cx), [b.inttoptr(fmt, pointer(0))])
    size, count = b.extract_value(layout, 0), b.extract_value(layout, 1)
    control = _control_block(cx)

    def field(offset: int) -> ir.Value:
        return b.gep(control, [cx.i64(offset)], inbounds=True, source_etype=I8)

    buffer = b.load(field(PRINTF_BUFFER), typ=I64, align=8)
    capacity = b.load(field(PRINTF_CAPACITY), typ=I64, align=8)
    header = PRINTF_RECORD_HEADER.size
    record_size = b.and_(b.add(b.zext(size, I64), cx.i64(header + 7)), cx.i64(~7))
    has_fifo = b.icmp_unsigned("!=", buffer, cx.i64(0))
    with b.if_then(b.and_(has_fifo, b.icmp_signed(">=", count, cx.i32(0)))):
        start = atomic_rmw(b, "add", field(PRINTF_USED), record_size, "monotonic", "agent")
        with b.if_then(b.icmp_unsigned("<=", b.add(start, record_size), capacity)):
            record = b.inttoptr(b.add(buffer, start), pointer(1))
            b.store(b.trunc(record_size, I32), record, align=8)
            b.store(size, b.gep(record, [cx.i64(4)], source_etype=I8), align=4)
            b.store(fmt, b.gep(record, [cx.i64(8)], source_etype=I8), align=8)
            destination = b.gep(record, [cx.i64(header)], source_etype=I8)
            cx.call("llvm.memcpy.p1.p0.i64", ir.VoidType(),
                    [destination, b.inttoptr(args, pointer(0)), b.zext(size, I64), ir.Constant(I1, 0)])
    no_fifo = b.select(b.icmp_signed("<", count, cx.i32(0)), count, cx.i32(-2))
    for slot in ret_slot:  # nvcc always passes one; a call that ignores the result may not
        b.store(b.select(has_fifo, count, no_fifo), slot, align=4)
