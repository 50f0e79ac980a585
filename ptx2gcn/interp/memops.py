"""Moves, address conversions and memory instructions: ``mov``, ``cvta``, ``isspacep``, ``ld``/``ldu``,
``st``, ``atom``, ``red``.

Invariant: every access is bounds-checked (``region_of``) before it happens, and accesses happen lane
by lane in ascending lane order (one of the orders PTX allows for the threads of a warp); an address
that is unspecified or outside what its space holds is a located ``Ptx2GcnError``; ``atom``/``red``
compute the new memory value with the reference model (``ptx2gcn.reference.atomics``). Cache,
ordering and scope qualifiers change nothing here: the interpreter is sequentially consistent, one
of the executions the PTX memory model allows.
"""

from __future__ import annotations

from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.interp.alu import spelling
from ptx2gcn.interp.memory import FRAME_BASE, LOCAL_STRIDE, WINDOWS, MemoryFault, Region
from ptx2gcn.interp.state import WIDTHS, Cta, Value, Warp, unsupported, width
from ptx2gcn.reference import ReferenceInputError, evaluate

SPACES = {".global": ".global", ".shared": ".shared", ".shared::cta": ".shared", ".shared::cluster": ".shared",
          ".local": ".local", ".param": ".param", ".param::entry": ".param", ".const": ".const"}
_WINDOW_SIZE = 1 << 44


def instruction_type(ins: ast.Instruction) -> str:
    found = [m[1:] for m in ins.modifiers if m[1:] in WIDTHS]
    if not found:
        raise unsupported(ins, "no type modifier")
    return found[-1]


def space_of(ins: ast.Instruction) -> str | None:
    return next((SPACES[m] for m in ins.modifiers if m in SPACES), None)


def _vector(ins: ast.Instruction) -> int:
    return next((int(m[2:]) for m in ins.modifiers if m in (".v2", ".v4", ".v8")), 1)


def region_of(cta: Cta, ins: ast.Instruction, space: str | None, address: int, size: int,
            thread: int) -> tuple[Region, int]:
    """The region and offset an access of ``size`` bytes at ``address`` in ``space`` touches (a
    generic address first picks its space by window)."""
    try:
        if space is None:
            space = ".global"
            for name, base in WINDOWS.items():
                if base <= address < base + _WINDOW_SIZE:
                    space, address = name, address - base
                    if name == ".local":
                        thread, address = divmod(address, LOCAL_STRIDE)
                        if thread >= len(cta.locals):
                            raise MemoryFault(f"generic address {address:#x} is no thread's local memory")
        if space == ".global":
            return cta.launch.memory.find(address, size)
        if space == ".param" and address >= FRAME_BASE:
            region, address = cta.stacks[thread][-1].region, address - FRAME_BASE
        else:
            region = {".shared": cta.shared, ".param": cta.launch.params, ".const": cta.launch.const}.get(space)
            region = region if region is not None else cta.locals[thread]
        if address < 0 or address + size > len(region.data):
            raise MemoryFault(f"{size}-byte access at {address:#x} outside its {len(region.data)} bytes")
        return region, address
    except MemoryFault as fault:
        raise Ptx2GcnError.at(ins.span, f"reference interpreter: {space or 'generic'} access: {fault}") from None


def addresses_of(cta: Cta, warp: Warp, ins: ast.Instruction, op: ast.Operand, lanes: list[int]) -> list[int]:
    if not isinstance(op, ast.Address):
        raise unsupported(ins, "this address form is not modelled by the reference interpreter")
    offset = op.offset.value if op.offset is not None else 0
    base = op.base
    frame = cta.stack(warp, lanes[0])[-1]
    if isinstance(base, ast.Symbol | ast.Register) and base.name not in frame.program.registers \
            and space_of(ins) is None and (found := cta.address_of(frame, base.name, warp.pc[lanes[0]])) is not None:
        # a variable named in a generic access: its generic address
        return [cta.window(found[0], warp.threads[lane]) + found[1] + offset for lane in lanes]
    bases = cta.read(warp, base, "u64", lanes)
    if any(b is None for b in bases):
        raise Ptx2GcnError.at(ins.span, "reference interpreter: the address is a value PTX leaves unspecified")
    return [int(b) + offset for b in bases if b is not None]


def _elements(op: ast.Operand, count: int) -> tuple[ast.Operand, ...]:
    elements = op.elements if isinstance(op, ast.Vector) else (op,)
    if len(elements) != count:
        raise Ptx2GcnError.at(op.span, f"reference interpreter: expected {count} elements")
    return elements


def load(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    typ, space, count = instruction_type(ins), space_of(ins), _vector(ins)
    size = width(typ) // 8
    addresses = addresses_of(cta, warp, ins, ins.operands[1], lanes)
    for k, dest in enumerate(_elements(ins.operands[0], count)):
        values: list[Value] = []
        for lane, address in zip(lanes, addresses):
            region, offset = region_of(cta, ins, space, address + k * size, size, warp.threads[lane])
            values.append(region.fetch(offset, size))
        cta.write(warp, dest, typ, lanes, values)


def store(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    typ, space, count = instruction_type(ins), space_of(ins), _vector(ins)
    size = width(typ) // 8
    addresses = addresses_of(cta, warp, ins, ins.operands[0], lanes)
    if space == ".const" or space == ".param" and min(addresses) < FRAME_BASE:
        raise Ptx2GcnError.at(ins.span, f"reference interpreter: {space} memory of the kernel is read-only")
    for k, source in enumerate(_elements(ins.operands[1], count)):
        values = cta.read(warp, source, typ, lanes)
        for lane, address, value in zip(lanes, addresses, values):
            region, offset = region_of(cta, ins, space, address + k * size, size, warp.threads[lane])
            region.put(offset, size, value)


def atomic(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    """``atom`` (``d, [a], b[, c]``) and ``red`` (``[a], b``), lane by lane."""
    typ, space = instruction_type(ins), space_of(ins)
    size = width(typ) // 8
    is_red = ins.opcode == "red"
    address_op, *sources = ins.operands[0 if is_red else 1:]
    addresses = addresses_of(cta, warp, ins, address_op, lanes)
    columns = [cta.read(warp, op, typ, lanes) for op in sources]
    mods = [m.lstrip(".") for m in ins.modifiers]
    olds: list[Value] = []
    for i, (lane, address) in enumerate(zip(lanes, addresses)):
        region, offset = region_of(cta, ins, space, address, size, warp.threads[lane])
        old = region.fetch(offset, size)
        operands = [column[i] for column in columns]
        olds.append(old)
        if old is None or any(v is None for v in operands):
            new: Value = None
        else:
            try:
                result = evaluate(ins.opcode, mods, old, *operands)
            except ReferenceInputError as error:
                raise UnsupportedError.feature(ins.span, spelling(ins), f"the reference model: {error}") from None
            out = result.outputs[-1]
            new = int(out.bits.item()) if bool(out.fixed().item()) else None
        region.put(offset, size, new)
    if not is_red:
        cta.write(warp, ins.operands[0], typ, lanes, olds)


def move(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    """``mov``: copy, pack (``{a, b}`` source) or unpack (``{a, b}`` destination)."""
    typ = instruction_type(ins)
    dest, source = ins.operands
    if isinstance(source, ast.Vector) or isinstance(dest, ast.Vector):
        vec = source if isinstance(source, ast.Vector) else dest
        assert isinstance(vec, ast.Vector)
        part = width(typ) // len(vec.elements)
        part_type = f"b{part}"
        if isinstance(source, ast.Vector):
            columns = [cta.read(warp, e, part_type, lanes) for e in source.elements]
            packed: list[Value] = []
            for i in range(len(lanes)):
                parts = [column[i] for column in columns]
                packed.append(None if any(p is None for p in parts)
                              else sum(int(p) << (k * part) for k, p in enumerate(parts) if p is not None))
            cta.write(warp, dest, typ, lanes, packed)
            return
        whole = cta.read(warp, source, typ, lanes)
        for k, element in enumerate(vec.elements):
            cta.write(warp, element, part_type, lanes,
                      [None if v is None else int(v) >> (k * part) & ((1 << part) - 1) for v in whole])
        return
    cta.write(warp, dest, typ, lanes, cta.read(warp, source, typ, lanes))


def cvta(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    """``cvta.space`` (space address -> generic) and ``cvta.to.space`` (generic -> space address)."""
    typ = instruction_type(ins)
    space = space_of(ins)
    if space is None:
        raise unsupported(ins, "cvta needs a state space")
    values = cta.read(warp, ins.operands[1], typ, lanes)
    mask = (1 << width(typ)) - 1
    out: list[Value] = []
    for lane, v in zip(lanes, values):
        base = cta.window(space, warp.threads[lane]) if space != ".global" else 0
        if v is None:
            out.append(None)
        elif ".to" in ins.modifiers:
            inside = space == ".global" or base <= v < base + (LOCAL_STRIDE if space == ".local" else _WINDOW_SIZE)
            out.append((v - base) & mask if inside else None)
        else:
            out.append((v + base) & mask)
    cta.write(warp, ins.operands[0], typ, lanes, out)


def isspacep(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    space = space_of(ins)
    values = cta.read(warp, ins.operands[1], "u64", lanes)
    out: list[Value] = []
    for v in values:
        window = next((name for name, base in WINDOWS.items() if v is not None and base <= v < base + _WINDOW_SIZE),
                      ".global")
        out.append(None if v is None else window == space)
    cta.write(warp, ins.operands[0], "pred", lanes, out)
