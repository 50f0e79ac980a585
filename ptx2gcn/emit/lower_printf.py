"""Lowering of CUDA's device ``printf``: calls to ``vprintf(format, arguments)``.

CUDA's front end turns ``printf(fmt, ...)`` into ``vprintf(fmt, buf)``, where ``buf`` is a local
buffer holding the arguments packed each at an offset aligned to its size (``float`` already promoted
to ``double``, narrower integers to ``int``), or null without arguments. ``vprintf`` returns the
number of arguments, -1 for a null format (CUDA Programming Guide, "Formatted Output").

Here a call reserves a record in the FIFO that the exported control block ``PRINTF_CONTROL_SYMBOL``
describes (``ptx2gcn.link.codeobject``: buffer, capacity, bytes used; the runtime sets it up before each
launch) with one atomic add on ``used``, and writes the record header {record size, argument bytes,
format address}, a copy of the argument bytes and a copy of each ``%s`` string (the host formats
after the kernel, when a string in local or shared memory is gone). A record that does not fit is
dropped, as CUDA drops output beyond its FIFO. The host formats records after the launch
(``ptx2gcn.runtime.printf``), reading the format string from the loaded code object.

The argument bytes' size is not passed to ``vprintf``: the helper ``__ptx2gcn_printf_layout``
(emitted once per module, inlined) walks the format string at run time, with CUDA's packing rule:
each conversion takes 8 bytes if it has an ``l``/``ll``/``j``/``z``/``t``/``L`` length or is a
floating-point (``f F e E g G a A``), ``s`` or ``p`` conversion, else 4; ``%%`` takes none. The
same walk, given a destination, copies the ``%s`` strings (at most the precision's bytes of each,
as C reads them); a call with ``%s`` arguments runs it twice, to size the record and to fill it.

Invariant: a thread's record is either entirely inside the FIFO or not written at all, and its
argument bytes are exactly the first ``size`` bytes of the buffer ``vprintf`` received, followed by
the NUL-terminated text of each non-null ``%s`` argument as it was at the call; the call's
result is the argument count (-1 for a null format, -2 when the runtime set up no FIFO).
Not handled: ``*`` widths/precisions (CUDA does not support them either; the walk skips the ``*``
and takes no argument for it).
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, runtime_record
from ptx2gcn.emit.llvm_atomics import atomic_rmw
from ptx2gcn.emit.llvm_types import I1, I8, I32, I64, pointer
from ptx2gcn.ir.core import Op
from ptx2gcn.link.codeobject import (
    PRINTF_BUFFER,
    PRINTF_CAPACITY,
    PRINTF_CONTROL_SIZE,
    PRINTF_CONTROL_SYMBOL,
    PRINTF_RECORD_HEADER,
    PRINTF_USED,
)

LAYOUT_FUNCTION = "__ptx2gcn_printf_layout"
_SPEC_CONTINUES = b"-+ #0123456789.hlLqjzt*"
"""Characters inside a conversion specification before its conversion character."""
_LONG_LENGTHS = b"lLqjzt"
_EIGHT_BYTE_CONVERSIONS = b"fFeEgGaAsp"
_LAYOUT_TYPE = ir.LiteralStructType([I32, I32, I32])
_INT_MAX = 2**31 - 1


def _layout_function(cx: FnContext) -> ir.Function:
    """``{i32 size, i32 count, i32 strings} __ptx2gcn_printf_layout(ptr format, ptr arguments,
    ptr addrspace(1) strings_out)``: the argument buffer's size, the argument count and the bytes of
    the ``%s`` strings (each with its NUL) a format implies ({0, -1, 0} for a null format); with a
    non-null ``strings_out``, the strings are also copied there, one after another."""
    module = cx.mod.module
    found = module.globals.get(LAYOUT_FUNCTION)
    if isinstance(found, ir.Function):
        return found
    fn_t = ir.FunctionType(_LAYOUT_TYPE, [pointer(0), pointer(0), pointer(1)])
    fn = ir.Function(module, fn_t, LAYOUT_FUNCTION)
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")
    fn.attributes.add("nounwind")
    _build_layout(fn)
    return fn


def _char(b: ir.IRBuilder, fmt: ir.Value, index: ir.Value) -> ir.Value:
    return b.load(b.gep(fmt, [index], source_etype=I8), typ=I8)


def _i32(value: int) -> ir.Constant:
    return ir.Constant(I32, value)


def _build_layout(fn: ir.Function) -> None:
    """The format walk: ``loop`` scans plain text, ``spec`` a conversion specification, ``conv``
    adds one argument (aligned to its size; ``%s`` also measures or copies its string) and returns
    to ``loop`` through ``add``."""
    fmt, args, strings_out = fn.args
    entry, loop, spec, spec_end, conv, small, big, add, done, null = (
        fn.append_basic_block(n)
        for n in ("entry", "loop", "spec", "spec_end", "conv", "small", "big", "add", "done", "null"))
    b = ir.IRBuilder(entry)
    zero64 = ir.Constant(I64, 0)
    b.cbranch(b.icmp_unsigned("==", fmt, ir.Constant(pointer(0), None)), null, loop)

    b.position_at_end(loop)
    i, off, count, spos = b.phi(I64, "i"), b.phi(I32, "off"), b.phi(I32, "count"), b.phi(I32, "spos")
    c = _char(b, fmt, i)
    next_i = b.add(i, ir.Constant(I64, 1))
    switch = b.switch(c, loop)
    switch.add_case(ir.Constant(I8, 0), done)
    switch.add_case(ir.Constant(I8, ord("%")), spec)

    b.position_at_end(spec)
    j, long_, dot, precision = b.phi(I64, "j"), b.phi(I1, "long"), b.phi(I1, "dot"), b.phi(I32, "precision")
    d = _char(b, fmt, j)
    next_j = b.add(j, ir.Constant(I64, 1))
    is_long = b.or_(long_, _any_of(b, d, _LONG_LENGTHS))
    new_dot, new_precision = _precision_digit(b, d, dot, precision)
    switch = b.switch(d, spec_end)
    switch.add_case(ir.Constant(I8, 0), done)
    switch.add_case(ir.Constant(I8, ord("%")), loop)  # "%%": a literal percent sign
    b.position_at_end(spec_end)  # one edge per predecessor keeps the phis simple
    b.cbranch(_any_of(b, d, _SPEC_CONTINUES), spec, conv)

    b.position_at_end(conv)
    limit = b.select(dot, precision, _i32(_INT_MAX))
    switch = b.switch(d, small)
    for ch in _EIGHT_BYTE_CONVERSIONS.replace(b"s", b""):
        switch.add_case(ir.Constant(I8, ch), big)
    string_entry = fn.append_basic_block("string")
    switch.add_case(ir.Constant(I8, ord("s")), string_entry)
    string_exit, string_bytes = _string_argument(b, string_entry, args, off, spos, limit, strings_out)
    string_spos = b.add(spos, string_bytes)
    b.branch(add)
    b.position_at_end(small)
    small_size = b.select(is_long, _i32(8), _i32(4))
    b.branch(add)
    b.position_at_end(big)
    b.branch(add)
    b.position_at_end(add)
    size, new_spos = b.phi(I32, "size"), b.phi(I32, "new_spos")
    for block, value, strings in ((small, small_size, spos), (big, _i32(8), spos),
                                  (string_exit, _i32(8), string_spos)):
        size.add_incoming(value, block)
        new_spos.add_incoming(strings, block)
    mask = b.sub(size, _i32(1))
    aligned = b.and_(b.add(off, mask), b.not_(mask))
    new_off, new_count = b.add(aligned, size), b.add(count, _i32(1))
    b.branch(loop)

    for phi, values in ((i, (zero64, next_i, next_j, next_j)), (off, (_i32(0), off, off, new_off)),
                        (count, (_i32(0), count, count, new_count)), (spos, (_i32(0), spos, spos, new_spos))):
        for value, block in zip(values, (entry, loop, spec, add), strict=True):
            phi.add_incoming(value, block)
    no = ir.Constant(I1, 0)
    for spec_phi, spec_values in ((j, (next_i, next_j)), (long_, (no, is_long)), (dot, (no, new_dot)),
                                  (precision, (_i32(0), new_precision))):
        for value, block in zip(spec_values, (loop, spec_end), strict=True):
            spec_phi.add_incoming(value, block)

    b.position_at_end(done)
    b.ret(_triple(b, off, count, spos))
    b.position_at_end(null)
    b.ret(_triple(b, _i32(0), _i32(-1), _i32(0)))


def _precision_digit(b: ir.IRBuilder, d: ir.Value, dot: ir.Value, precision: ir.Value) -> tuple[ir.Value, ir.Value]:
    """After spec character ``d``: whether a ``.`` was seen, and the precision's value so far
    (saturating at INT_MAX)."""
    digit = b.zext(b.sub(d, ir.Constant(I8, ord("0"))), I32)
    is_digit = b.icmp_unsigned("<", digit, _i32(10))
    wide = b.add(b.mul(b.zext(precision, I64), ir.Constant(I64, 10)), b.zext(digit, I64))
    capped = b.trunc(b.select(b.icmp_unsigned(">", wide, ir.Constant(I64, _INT_MAX)),
                              ir.Constant(I64, _INT_MAX), wide), I32)
    new_precision = b.select(b.and_(dot, is_digit), capped, precision)
    return b.or_(dot, b.icmp_unsigned("==", d, ir.Constant(I8, ord(".")))), new_precision


def _string_argument(b: ir.IRBuilder, start: ir.Block, args: ir.Value, off: ir.Value, spos: ir.Value,
                     limit: ir.Value, strings_out: ir.Value) -> tuple[ir.Block, ir.Value]:
    """Blocks for one ``%s`` argument (its pointer at ``off`` rounded up to 8): its length with the
    NUL, reading at most ``limit`` bytes (the precision: C reads no further, the text need not be
    terminated; 0 for a null pointer, which prints ``(null)``), and with ``strings_out`` its bytes
    and a NUL copied to ``strings_out + spos``. Returns the exit block (the builder is left there)
    and the length."""
    fn = start.function
    scan, read, pick, store, advance, finish = (
        fn.append_basic_block(n)
        for n in ("string.scan", "string.read", "string.char", "string.store", "string.next", "string.done"))
    b.position_at_end(start)
    aligned = b.and_(b.add(off, _i32(7)), _i32(~7))
    address = b.load(b.gep(args, [b.zext(aligned, I64)], source_etype=I8), typ=I64, align=8)
    text = b.inttoptr(address, pointer(0))
    b.cbranch(b.icmp_unsigned("==", address, ir.Constant(I64, 0)), finish, scan)
    b.position_at_end(scan)
    k = b.phi(I32, "k")
    b.cbranch(b.icmp_unsigned("==", k, limit), pick, read)
    b.position_at_end(read)
    loaded = _char(b, text, b.zext(k, I64))
    b.branch(pick)
    b.position_at_end(pick)
    ch = b.phi(I8, "ch")
    ch.add_incoming(ir.Constant(I8, 0), scan)
    ch.add_incoming(loaded, read)
    b.cbranch(b.icmp_unsigned("!=", strings_out, ir.Constant(pointer(1), None)), store, advance)
    b.position_at_end(store)
    b.store(ch, b.gep(strings_out, [b.zext(b.add(spos, k), I64)], source_etype=I8))
    b.branch(advance)
    b.position_at_end(advance)
    next_k = b.add(k, _i32(1))
    b.cbranch(b.icmp_unsigned("==", ch, ir.Constant(I8, 0)), finish, scan)
    k.add_incoming(_i32(0), start)
    k.add_incoming(next_k, advance)
    b.position_at_end(finish)
    length = b.phi(I32, "length")
    length.add_incoming(_i32(0), start)
    length.add_incoming(next_k, advance)
    return finish, length


def _any_of(b: ir.IRBuilder, c: ir.Value, chars: bytes) -> ir.Value:
    result: ir.Value = ir.Constant(I1, 0)
    for ch in chars:
        result = b.or_(result, b.icmp_unsigned("==", c, ir.Constant(I8, ch)))
    return result


def _triple(b: ir.IRBuilder, *values: ir.Value) -> ir.Value:
    result: ir.Value = ir.Constant(_LAYOUT_TYPE, ir.Undefined)
    for index, value in enumerate(values):
        result = b.insert_value(result, value, index)
    return result


def lower_vprintf(cx: FnContext, op: Op) -> None:
    """``call (ret), vprintf, (format, arguments)``: append one record to the printf FIFO."""
    if len(op.operands) not in (2, 3) or op.results:
        raise cx.unsupported("call vprintf", "expected CUDA's signature (.param .b32 result) vprintf(.param "
                             ".b64 format, .param .b64 arguments)")
    b = cx.builder
    *ret_slot, fmt_slot, args_slot = cx.operands(op)
    fmt, args = (b.load(slot, typ=I64, align=8) for slot in (fmt_slot, args_slot))
    fmt_ptr, args_ptr = b.inttoptr(fmt, pointer(0)), b.inttoptr(args, pointer(0))
    layout = b.call(_layout_function(cx), [fmt_ptr, args_ptr, ir.Constant(pointer(1), None)])
    size, count, strings = (b.extract_value(layout, index) for index in range(3))
    control = runtime_record(cx.mod.module, PRINTF_CONTROL_SYMBOL, PRINTF_CONTROL_SIZE)

    def field(offset: int) -> ir.Value:
        return b.gep(control, [cx.i64(offset)], inbounds=True, source_etype=I8)

    buffer = b.load(field(PRINTF_BUFFER), typ=I64, align=8)
    capacity = b.load(field(PRINTF_CAPACITY), typ=I64, align=8)
    header = PRINTF_RECORD_HEADER.size
    payload = b.zext(b.add(size, strings), I64)
    record_size = b.and_(b.add(payload, cx.i64(header + 7)), cx.i64(~7))
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
                    [destination, args_ptr, b.zext(size, I64), ir.Constant(I1, 0)])
            with b.if_then(b.icmp_unsigned("!=", strings, cx.i32(0))):  # a second walk copies them
                string_area = b.gep(destination, [b.zext(size, I64)], source_etype=I8)
                b.call(_layout_function(cx), [fmt_ptr, args_ptr, string_area])
    no_fifo = b.select(b.icmp_signed("<", count, cx.i32(0)), count, cx.i32(-2))
    for slot in ret_slot:  # nvcc always passes one; a call that ignores the result may not
        b.store(b.select(has_fifo, count, no_fifo), slot, align=4)
