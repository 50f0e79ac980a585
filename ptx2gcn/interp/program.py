"""One PTX kernel or ``.func`` of a typed AST laid out for interpretation: its instructions in one
flat list, label positions, register types, and the byte layout of its parameter, shared, local and
frame (``.param`` declared in the body, and a function's ``.param`` parameters) variables.

Invariant: ``Program.of`` walks the kernel's (possibly nested) body with an explicit stack, never
recursion; every name the body declares is in exactly one of ``registers``, ``shared``, ``local``
(module-level ``.shared`` variables are laid out first, in declaration order, then the kernel's own,
then dynamic ``.extern .shared`` arrays at the aligned end), so module variables have the same
offsets in every function of a module; ``params`` follows PTX's kernel parameter layout (each
parameter at the next multiple of its alignment: ``.align`` or its element size), and so does
``frame``; ``local`` offsets are from the frame's base in the thread's local memory. What it cannot
lay out (vector registers and parameters, ``.shared`` variables of a ``.func``) is an
``UnsupportedError`` at the declaration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
from ptx2gcn.frontend import ast

TYPE_BYTES: dict[str, int] = {
    **{f"{k}{w}": w // 8 for k in "bus" for w in (8, 16, 32, 64)}, "b128": 16,
    "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "f16x2": 4, "bf16x2": 4, "tf32": 4, "e4m3": 1, "e5m2": 1,
    "e4m3x2": 2, "e5m2x2": 2, "u16x2": 4, "s16x2": 4,
}
"""Bytes of each PTX type a variable or parameter may have (``.pred`` registers are 1 bit)."""


@dataclass(frozen=True)
class Variable:
    """A variable in a state space: byte ``offset`` in that space, ``size`` (0: dynamic array)."""

    name: str
    space: str
    offset: int
    size: int


@dataclass
class Program:
    function: ast.Function
    code: list[ast.Instruction] = field(default_factory=lambda: [])
    labels: dict[str, int] = field(default_factory=lambda: {})
    registers: dict[str, str] = field(default_factory=lambda: {})
    """Register name -> PTX type name without the dot (``pred``, ``b32``, ``f64``...)."""
    params: dict[str, Variable] = field(default_factory=lambda: {})
    param_size: int = 0
    shared: dict[str, Variable] = field(default_factory=lambda: {})
    shared_size: int = 0
    """Static shared bytes; dynamic arrays start here (aligned to 16)."""
    local: dict[str, Variable] = field(default_factory=lambda: {})
    local_size: int = 0
    frame: dict[str, list[tuple[int, Variable]]] = field(default_factory=lambda: {})
    """Per-call ``.param`` variables (space ``.param``, offsets in the frame's own region), by name:
    each declaration with the position of the first instruction after it (nvcc declares ``param0``
    afresh, with another size, in every call sequence's block)."""
    frame_size: int = 0
    formals: tuple[ast.Param, ...] = ()
    """A ``.func``'s parameters, then ``returns`` its return parameters (``.param`` ones are in
    ``frame``, ``.reg`` ones in ``registers``)."""
    returns: tuple[ast.Param, ...] = ()

    @staticmethod
    def of(module: ast.Module, name: str, kernel: bool = True) -> Program:
        """The kernel (or, with ``kernel=False``, the ``.func``) named ``name``."""
        function = next((f for f in module.functions
                         if f.name == name and f.is_kernel == kernel and f.body is not None), None)
        if function is None:
            raise Ptx2GcnError.at(None, f"no {'kernel' if kernel else 'function body'} named {name} in "
                                  f"{module.span.file}")
        program = Program(function)
        if kernel:
            program._lay_out_params(function)
        else:
            program.formals, program.returns = function.params or (), function.return_params or ()
            for param in (*program.formals, *program.returns):
                program._formal(param)
        for item in module.variables:
            if item.state_space == ".shared":
                program._declare(item, body=False)
        assert function.body is not None
        program._walk(function.body)
        return program

    def _formal(self, param: ast.Param) -> None:
        if param.vector is not None:
            raise UnsupportedError.feature(param.span, param.state_space, "vector parameters are not modelled "
                                           "by the reference interpreter")
        if param.state_space == ".reg":
            self.registers[param.name] = param.type.lstrip(".")
            return
        self._frame_variable(param.name, _bytes(param.type, param), param.align,
                             prod(d or 0 for d in param.dims) if param.dims else 1)

    def _frame_variable(self, name: str, element: int, align: int | None, count: int) -> None:
        alignment = max(align or element, 1)
        self.frame_size = -(-self.frame_size // alignment) * alignment
        self.frame.setdefault(name, []).append((len(self.code), Variable(name, ".param", self.frame_size,
                                                                        element * count)))
        self.frame_size += element * count

    def _lay_out_params(self, kernel: ast.Function) -> None:
        offset = 0
        for param in kernel.params or ():
            if param.vector is not None:
                raise UnsupportedError.feature(param.span, ".param", "vector kernel parameters are not modelled "
                                               "by the reference interpreter")
            element = _bytes(param.type, param)
            size = element * prod(d or 0 for d in param.dims) if param.dims else element
            align = param.align or element
            offset = -(-offset // align) * align
            self.params[param.name] = Variable(param.name, ".param", offset, size)
            offset += size
        self.param_size = offset

    def _walk(self, body: ast.Block) -> None:
        stack: list[tuple[ast.Statement, ...]] = [body.statements]
        while stack:
            statements = stack.pop()
            for index, stmt in enumerate(statements):
                if isinstance(stmt, ast.Block):
                    stack.append(statements[index + 1:])
                    stack.append(stmt.statements)
                    break
                if isinstance(stmt, ast.Instruction):
                    self.code.append(stmt)
                elif isinstance(stmt, ast.LabelDecl):
                    self.labels[stmt.name] = len(self.code)
                elif isinstance(stmt, ast.VariableDecl):
                    self._declare(stmt)

    def _declare(self, decl: ast.VariableDecl, body: bool = True) -> None:
        """A declaration of the body (``body``) or a module-level ``.shared`` variable."""
        space, typ = decl.state_space, decl.type.lstrip(".")
        if space == ".reg":
            self._registers(decl, typ)
        elif space == ".param":
            for d in decl.declarators:
                self._frame_variable(d.name, _bytes(typ, decl), decl.align,
                                     prod(n or 0 for n in d.dims) if d.dims else 1)
        elif space in (".shared", ".local"):
            if body and space == ".shared" and not self.function.is_kernel:
                raise UnsupportedError.feature(decl.span, space, ".shared variables declared in a .func are not "
                                               "modelled by the reference interpreter")
            self._memory_variables(decl, space, typ)
        # .global/.const inside a body: laid out by the machine with the module's variables

    def _registers(self, decl: ast.VariableDecl, typ: str) -> None:
        if decl.vector is not None:
            raise UnsupportedError.feature(decl.span, ".reg", "vector registers are not modelled by the "
                                           "reference interpreter")
        for d in decl.declarators:
            for reg in d.names():
                self.registers[reg] = typ

    def _memory_variables(self, decl: ast.VariableDecl, space: str, typ: str) -> None:
        for d in decl.declarators:
            element = _bytes(typ, decl) * (int(decl.vector[2:]) if decl.vector else 1)
            count = prod(n or 0 for n in d.dims) if d.dims else 1
            align = max(decl.align or element, 1)
            if space == ".shared":
                if d.dims and None in d.dims:  # extern dynamic array: placed at the end at launch
                    self.shared[d.name] = Variable(d.name, space, -1, 0)
                    continue
                self.shared_size = -(-self.shared_size // align) * align
                self.shared[d.name] = Variable(d.name, space, self.shared_size, element * count)
                self.shared_size += element * count
            else:
                self.local_size = -(-self.local_size // align) * align
                self.local[d.name] = Variable(d.name, space, self.local_size, element * count)
                self.local_size += element * count

    def frame_variable(self, name: str, pc: int) -> Variable | None:
        """The ``.param`` variable ``name`` as the instruction at ``pc`` sees it: the latest
        declaration before it."""
        found = None
        for start, var in self.frame.get(name, ()):
            if start <= pc or found is None:
                found = var
        return found

    def shared_variable(self, name: str, dynamic_base: int) -> Variable | None:
        var = self.shared.get(name)
        if var is not None and var.offset < 0:
            return Variable(name, var.space, dynamic_base, 0)
        return var


def _bytes(typ: str, node: ast.Param | ast.VariableDecl) -> int:
    size = TYPE_BYTES.get(typ.lstrip("."))
    if size is None:
        raise UnsupportedError.feature(node.span, f".{typ.lstrip('.')}", "variables of this type are not modelled "
                                       "by the reference interpreter")
    return size


def initial_bytes(d: ast.Declarator, typ: str, size: int) -> tuple[bytes, bytes] | None:
    """The bytes of an initializer (flat or nested lists), zero-filled to ``size``, and per byte 1
    where its value is fixed; None without an initializer. Integer and float constants are fixed; an
    address (``sym``, ``generic(sym)``, ``sym+4``: a function or variable whose address PTX does not
    fix) is unspecified; anything else is unsupported."""
    if d.initializer is None:
        return None
    element = TYPE_BYTES[typ]
    out, defined = bytearray(), bytearray()
    pending: list[ast.Initializer] = [d.initializer]
    while pending:
        item = pending.pop()
        if isinstance(item, ast.InitList):
            pending.extend(reversed(item.items))
            continue
        if isinstance(item, ast.IntImmediate):
            out += (item.value & ((1 << (8 * element)) - 1)).to_bytes(element, "little")
        elif isinstance(item, ast.FloatImmediate) and typ in ("f32", "f64"):
            out += float_bits(item, typ).to_bytes(element, "little")
        elif isinstance(item, ast.Symbol | ast.Register | ast.Generic | ast.BinaryExpr):
            out += bytes(element)
            defined += bytes(element)
            continue
        else:
            raise UnsupportedError.feature(d.span, "initializer", "this initializer is not modelled by the "
                                           "reference interpreter")
        defined += b"\1" * element
    return bytes(out[:size].ljust(size, b"\0")), bytes(defined[:size].ljust(size, b"\1"))


def float_bits(imm: ast.FloatImmediate, typ: str) -> int:
    """The bits of a float immediate as a value of type ``f16``/``f32``/``f64``: ``0f``/``0d``
    spellings of the same width keep their bits, any other value is rounded to nearest even."""
    import numpy as np

    width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(typ)
    if width is None:
        raise ValueError(f"a float constant cannot be a .{typ} operand")
    if imm.width == width and imm.text.lstrip("-")[:2].lower() in ("0f", "0d"):
        return imm.bits
    value = imm.value if imm.width == 64 else float(np.array(imm.bits, dtype=np.uint32).view(np.float32))
    if typ == "f64":
        return int(np.array(value, dtype=np.float64).view(np.uint64))
    if typ == "f32":
        return int(np.array(value, dtype=np.float32).view(np.uint32))
    if typ == "f16":
        return int(np.array(value, dtype=np.float16).view(np.uint16))
    raise ValueError("a float constant cannot be a .bf16 operand")
