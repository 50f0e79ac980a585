"""Per-function state of the PTX-to-IR builder: emitting ops, reading and writing PTX operands.

Invariant: every PTX operand read goes through ``src``/``address`` and every write through
``dst``, so PTX's implicit behaviours become explicit ops in exactly one place: registers are
SSA variables of their declared type; a read at another type of the same width is a ``bitcast``,
a read of a wider register a ``trunc`` (PTX "operand size exceeding instruction-type size"); a
write of a narrower value into a wider register is a ``zext``/``sext`` (sign from the
instruction type). Immediates become ``const`` ops holding the exact bit pattern; symbols become
``addr_of``; special registers become ``special_reg``. Errors name the operand's PTX location.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ptx2gcn.diagnostics import Ptx2GcnError, Span, UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.frontend.names import range_prefix
from ptx2gcn.ir.core import Attr, Block, Function, Global, Module, Op, Value
from ptx2gcn.ir.opcodes import SPECIAL_REGS
from ptx2gcn.ir.types import (
    PRED,
    AddrSpace,
    FloatType,
    IntType,
    PackedType,
    PredType,
    PtrType,
    Type,
    VectorType,
    int_type,
)
from ptx2gcn.translate.ssa import SsaBuilder

COMPONENTS = ("x", "y", "z", "w")
"""Component names of vector registers (``%v.x``); ``.v8`` registers are not part of PTX."""


class Var:
    """One declared PTX register (identity: two scopes may declare the same name). ``kind`` is the
    class of its declared PTX type: 'b' bit-size, 'u'/'s' integer, 'f' float, 'p' predicate."""

    __slots__ = ("name", "type", "kind")

    def __init__(self, name: str, type: Type, kind: str = "b") -> None:
        self.name = name
        self.type = type
        self.kind = kind


def type_kind(ptx_name: str) -> str:
    """The class of a PTX type name: 'b', 'u', 's' (with digits), 'p' (pred), else 'f' (floats)."""
    if ptx_name == "pred":
        return "p"
    if ptx_name[:1] in ("b", "u", "s") and ptx_name[1:].isdigit():
        return ptx_name[0]
    return "f"


EAGER_RANGE = 1 << 17
"""Register-range registers a function declares eagerly, at most (``FnCtx.declare_range``)."""


def class_mismatch(instruction: str | None, register: str) -> bool:
    """PTX's relaxed type checking (ISA 5.5.2): an integer (.u/.s) instruction type cannot use a
    float register, nor a float instruction type an integer (.u/.s) register; .b registers and .b
    instruction types go with everything of the same size."""
    if instruction in ("u", "s"):
        return register == "f"
    return instruction == "f" and register in ("u", "s")


class RegScope:
    """The registers one ``{ }`` scope declares: explicit ones, and ``%r<N>`` ranges kept as ranges
    (a register of a range becomes a ``Var`` when first named, so a huge N costs nothing)."""

    __slots__ = ("vars", "ranges")

    def __init__(self) -> None:
        self.vars: dict[str, Var] = {}
        self.ranges: dict[str, tuple[int, Type, int, str]] = {}
        """prefix -> (count, element type, vector lanes or 0, type kind)."""

    def range_of(self, name: str) -> str | None:
        """The prefix of the range declaring register ``name`` (without a component), or None."""
        if not self.ranges:
            return None
        return range_prefix(name, lambda p: self.ranges[p][0] if p in self.ranges else None)


@dataclass(slots=True)
class Symbols:
    """Module-level names: globals and functions (signatures are known before bodies are built)."""

    module: Module
    globals: dict[str, Global] = field(default_factory=lambda: {})
    functions: dict[str, Function] = field(default_factory=lambda: {})


class FnCtx:
    """Builds the body of one function; ``block`` is where ``emit`` appends (None after a jump)."""

    def __init__(self, symbols: Symbols, fn: Function, entry: Block) -> None:
        self.symbols = symbols
        self.fn = fn
        self.block: Block | None = entry
        self.ssa = SsaBuilder(entry)
        self.regs: list[RegScope] = [RegScope()]
        self.vectors: dict[str, list[Var]] = {}
        self.eager_left = EAGER_RANGE
        """How many more range registers this function may declare eagerly (``declare_range``)."""
        """Vector registers and their component variables."""
        self.locals: dict[str, Value | Global] = {}
        """Function-scope symbols: parameters (their addresses), ``.local``/``.param`` allocations."""
        self.loc: Span | None = None
        self.written: list[Var] = []
        """Variables written by the instruction being lowered (for guard lowering)."""
        self.capture: dict[Var, Value] | None = None
        self.prototypes: dict[str, ast.CallPrototype] = {}
        """``.callprototype`` declarations of this function, by label (for indirect calls)."""
        self.calltargets: dict[str, ast.CallTargets] = {}
        """``.calltargets`` lists of this function, by label (for indirect calls)."""
        self.inst_kind: str | None = None
        """The class ('b', 'u', 's', 'f', 'p') of the instruction's one type modifier, None when it
        has none or several (cvt, set, dp4a...): register classes are checked against it."""
        self.exact_width = False
        """Whether the instruction being lowered needs registers of exactly its operand sizes (every
        instruction but ld/st/cvt: PTX ISA "Operand Size Exceeding Instruction-Type Size")."""
        self.forms: dict[tuple[str, tuple[str, ...]], object] = {}
        """What a lowering decoded from an instruction's opcode and modifiers (``alu.BinaryForm``),
        by both: the decoding depends on nothing else, and kernels repeat a few forms thousands of
        times. Only successful decodings are kept, so every erroneous instruction reports its error."""
        self.cc = Var("%cc", PRED)
        self.ssa.declare(self.cc, PRED, "cc")

    # --- emitting ----------------------------------------------------------------------------

    def error(self, span: Span | None, message: str) -> Ptx2GcnError:
        return Ptx2GcnError.at(span or self.loc, message)

    def current(self) -> Block:
        if self.block is None:
            # Code after an unconditional jump with no label: unreachable, but still built.
            block = self.fn.add_block(Block())
            self.ssa.new_block(block, sealed=True)
            self.block = block
        return self.block

    def emit(self, name: str, operands: Iterable[Value] = (), types: Iterable[Type] = (), /,
             **attrs: Attr | None) -> Op:
        op = Op(name, operands, types, None, self.loc)
        # Filtered here once (None: not given; False: an absent flag) instead of copied again by Op.
        op.attrs = {k: v for k, v in attrs.items() if v is not None and v is not False}
        self.current().append(op)
        return op

    def value(self, name: str, operands: Iterable[Value], result: Type, /, **attrs: Attr | None) -> Value:
        return self.emit(name, operands, (result,), **attrs).results[0]

    def entry_alloca(self, space: AddrSpace, size: int, align: int, name: str = "") -> Value:
        """Per-invocation memory in ``space`` (local or param), allocated in the entry block."""
        op = Op("alloca", (), (PtrType(space),), {"size": size, "align": align}, self.loc)
        self.fn.entry.insert(0, op)
        op.results[0].name = name
        return op.results[0]

    def const(self, type: Type, value: int) -> Value:
        return self.value("const", (), type, value=value & ((1 << type.bits) - 1))

    # --- registers ---------------------------------------------------------------------------

    def declare(self, name: str, type: Type, scope: RegScope | None = None, kind: str = "b") -> Var:
        var = Var(name, type, kind)
        (scope or self.regs[-1]).vars[name] = var
        self.ssa.declare(var, type, name.lstrip("%"))
        return var

    def declare_vector(self, name: str, elem: Type, lanes: int, scope: RegScope | None = None,
                       kind: str = "b") -> None:
        """A ``.reg .vN`` register: one variable per component (``%v.x`` ...), read whole as a pack."""
        self.vectors[name] = [self.declare(f"{name}.{c}", elem, scope, kind) for c in COMPONENTS[:lanes]]

    def declare_range(self, prefix: str, count: int, elem: Type, lanes: int, kind: str) -> None:
        """``.reg [.vN] .type prefix<count>``: ranges are declared at once while the function's
        ``EAGER_RANGE`` budget lasts (nvcc sizes ranges to the registers it uses, and resolving each
        name against the range later costs more than declaring it: build/parse 1.15 -> 0.92 on the
        104k-line corpus file); beyond it each register is made when first named (``lookup``), so a
        hostile ``%r<4000000000>`` costs nothing."""
        if count > self.eager_left:
            self.regs[-1].ranges[prefix] = (count, elem, lanes, kind)
            return
        self.eager_left -= count
        for index in range(count):
            if lanes:
                self.declare_vector(f"{prefix}{index}", elem, lanes, kind=kind)
            else:
                self.declare(f"{prefix}{index}", elem, kind=kind)

    def is_vector(self, name: str) -> bool:
        """Whether ``name`` is a whole vector register (declared explicitly or by a range)."""
        if name not in self.vectors:
            self.lookup(name)
        return name in self.vectors

    def components(self, operand: ast.Operand) -> tuple[ast.Operand, ...] | None:
        """The component registers of a whole vector-register operand (None for anything else)."""
        if isinstance(operand, ast.Register) and operand.component is None and self.is_vector(operand.name):
            return tuple(ast.Register(operand.span, operand.name, c)
                         for c in COMPONENTS[:len(self.vectors[operand.name])])
        return None

    def read_native(self, operand: ast.Operand) -> Value:
        """A register operand's value at its declared type (matrix fragments, texture coordinates)."""
        if isinstance(operand, (ast.Register, ast.Symbol)):
            component = getattr(operand, "component", None)
            var = self.lookup(f"{operand.name}.{component}" if component else operand.name)
            if var is not None:
                return self.read_var(var)
        raise self.error(operand.span, "expected a register here")

    def native_type(self, operand: ast.Operand) -> Type:
        """The declared type of a register operand (for results written without conversion)."""
        component = getattr(operand, "component", None)
        name = getattr(operand, "name", None)
        var = self.lookup(f"{name}.{component}" if component else str(name))
        if var is None:
            raise self.error(operand.span, "expected a register here")
        return var.type

    def lookup(self, name: str) -> Var | None:
        var = self.regs[-1].vars.get(name)  # the common case: declared (or made) in the innermost scope
        if var is not None:
            return var
        for scope in reversed(self.regs):
            var = scope.vars.get(name)
            if var is not None:
                return var
            base = name.partition(".")[0]
            prefix = scope.range_of(base)
            if prefix is not None and base not in self.vectors:
                _, elem, lanes, kind = scope.ranges[prefix]
                if lanes:
                    self.declare_vector(base, elem, lanes, scope, kind)
                else:
                    self.declare(base, elem, scope, kind)
                return scope.vars.get(name)
        return None

    def read_var(self, var: Var) -> Value:
        if self.capture is not None and var in self.capture:
            return self.capture[var]
        return self.ssa.read(var, self.current())

    def write_var(self, var: Var, value: Value) -> None:
        if not value.name:
            value.name = var.name.lstrip("%")
        self.written.append(var)
        if self.capture is not None:
            self.capture[var] = value
        else:
            self.ssa.write(var, self.current(), value)

    # --- coercions ---------------------------------------------------------------------------

    def coerce(self, value: Value, want: Type, signed: bool = False, span: Span | None = None) -> Value:
        have = value.type
        if have is want or have == want:
            return value
        if isinstance(have, PtrType) or isinstance(want, PtrType):
            raise self.error(span, f"cannot use a {have} value as {want}")
        if isinstance(have, PredType) != isinstance(want, PredType):
            raise self.error(span, f"a {'predicate' if isinstance(have, PredType) else str(have)} "
                             f"operand cannot be used as {want}")
        if have.bits == want.bits:
            return self.value("bitcast", (value,), want)
        as_int = value if isinstance(have, IntType) else self.value("bitcast", (value,), int_type(have.bits))
        if have.bits > want.bits:
            resized = self.value("trunc", (as_int,), int_type(want.bits))
        else:
            resized = self.value("sext" if signed else "zext", (as_int,), int_type(want.bits))
        return resized if isinstance(want, IntType) else self.value("bitcast", (resized,), want)

    # --- operands ----------------------------------------------------------------------------

    def src(self, operand: ast.Operand, want: Type, signed: bool = False, typed: bool = True) -> Value:  # noqa: C901
        """The value of a source operand as ``want`` (PTX type rules applied). ``typed``: the operand
        has the instruction's type (not an address, a member mask or another fixed-type operand),
        so a register of the other class (float vs integer) is an error."""
        match operand:
            case ast.Register(name=name, component=None):
                var = self.lookup(name)  # one lookup: it also declares a range's vector on first use
                if var is not None:
                    if var.type is not want:  # (a register of exactly the wanted type is the common case)
                        self.check_width(var, want, operand.span)
                    if typed:
                        self.check_class(var, operand.span)
                    value = self.read_var(var)
                    return value if value.type is want else self.coerce(value, want, signed, operand.span)
                if name in self.vectors:
                    parts = self.components(operand) or ()
                    if not isinstance(want, VectorType) or want.count != len(parts):
                        raise self.error(operand.span, f"vector register {name} used as {want}")
                    values = [self.src(p, want.elem, signed) for p in parts]
                    return self.value("pack", values, want)
                return self.symbol_value(operand.span, name, want)
            case ast.Register(name=name, component=str(c)) if self.lookup(f"{name}.{c}") is not None:
                var = self.lookup(f"{name}.{c}")
                assert var is not None
                return self.coerce(self.read_var(var), want, signed, operand.span)
            case ast.Symbol(name=name):
                var = self.lookup(name)
                if var is not None:
                    return self.coerce(self.read_var(var), want, signed, operand.span)
                return self.symbol_value(operand.span, name, want)
            case ast.SpecialRegister():
                return self.coerce(self.special(operand), want, False, operand.span)
            case ast.IntImmediate(value=value):
                if isinstance(want, (FloatType, PackedType)):
                    raise self.error(operand.span, f"an integer constant cannot be a {want} operand; "
                                     "write a floating-point constant (0f3F800000 is 1.0)")
                return self.const(want, int_bits(value, want))
            case ast.FloatImmediate():
                if isinstance(want, IntType) and operand.width != want.bits:
                    raise self.error(operand.span, f"a {operand.width}-bit floating-point constant cannot "
                                     f"be a {want.bits}-bit integer operand")
                return self.const(want, float_bits(operand, want))
            case ast.Not(operand=inner):
                if not isinstance(want, PredType):
                    raise self.error(operand.span, "'!' applies only to predicate operands")
                return self.value("not", (self.src(inner, PRED),), PRED, type="pred")
            case ast.BinaryExpr(op="+" | "-", lhs=ast.Register() | ast.Symbol() as base) if (
                    isinstance(want, IntType)):
                # ``%r+imm`` as an operand (accepted by ptxas): an explicit add.
                offset = self.const(want, int_bits(const_eval(operand.rhs), want))
                name = "add" if operand.op == "+" else "sub"
                return self.value(name, (self.src(base, want, signed), offset), want, type=f"b{want.bits}")
            case ast.UnaryExpr() | ast.BinaryExpr() | ast.ParenExpr():
                return self.const(want, int_bits(const_eval(operand), want))
            case ast.Register():
                raise UnsupportedError.feature(operand.span, f"{operand.name}.{operand.component}",
                                               "vector register components are not translated yet")
            case _:
                raise self.error(operand.span, f"expected a register or immediate, not "
                                 f"{type(operand).__name__.lower()}")

    def check_class(self, var: Var, span: Span) -> None:
        if class_mismatch(self.inst_kind, var.kind):
            have, want = ("a floating-point", "an integer") if var.kind == "f" else (
                "an integer", "a floating-point")
            raise self.error(span, f"register {var.name} has {have} type, which {want} instruction type "
                             "cannot use (only .b registers go with every type of their size)")

    def check_width(self, var: Var, want: Type, span: Span) -> None:
        """PTX lets a source register of ld/st/cvt be wider than the instruction type (its low bits
        are used), never narrower; every other instruction needs the exact size (ptxas: "Arguments
        mismatch")."""
        if var.type is want or isinstance(var.type, PredType) or isinstance(want, PredType):
            return
        if var.type.bits < want.bits:
            raise self.error(span, f"register {var.name} has {var.type.bits} bits, too narrow for a "
                             f"{want.bits}-bit operand")
        if self.exact_width and var.type.bits != want.bits:
            raise self.error(span, f"register {var.name} has {var.type.bits} bits, but this operand is "
                             f"{want.bits}-bit (only ld, st and cvt accept wider registers)")

    def dst(self, operand: ast.Operand, value: Value, signed: bool = False) -> None:
        """Write ``value`` to a destination operand (``_`` discards it)."""
        var = self.lookup(operand.name) if isinstance(operand, (ast.Register, ast.Symbol)) else None
        if var is not None and (isinstance(operand, ast.Symbol) or operand.component is None):
            # The common case, checked first: a whole declared register (the last case below).
            self.write_register(operand, var, value, signed)
            return
        match operand:
            case ast.Sink():
                return
            case ast.Register(name=name, component=None) if var is None and name in self.vectors:
                parts = self.components(operand) or ()
                if not isinstance(value.type, VectorType) or value.type.count != len(parts):
                    raise self.error(operand.span, f"vector register {name} cannot hold {value.type}")
                pieces = self.emit("unpack", (value,), [value.type.elem] * len(parts)).results
                for part, piece in zip(parts, pieces):
                    self.dst(part, piece, signed)
            case ast.Register(name=name, component=str(c)) if self.lookup(f"{name}.{c}") is not None:
                var = self.lookup(f"{name}.{c}")
                assert var is not None
                self.write_var(var, self.coerce(value, var.type, signed, operand.span))
            case ast.Register(name=name, component=None) | ast.Symbol(name=name):
                if var is None:
                    raise self.error(operand.span, f"undefined register {name}")
                self.write_register(operand, var, value, signed)
            case _:
                raise self.error(operand.span, "expected a register as destination")

    def write_register(self, operand: ast.Register | ast.Symbol, var: Var, value: Value, signed: bool) -> None:
        """Write ``value`` to ``var``, the whole register ``operand`` names, as PTX's rules allow."""
        have, want = value.type, var.type
        same = have is want  # the common case: no size checks needed
        if not same and have.bits > want.bits and not isinstance(have, PredType):
            raise self.error(operand.span, f"register {operand.name} ({want}) is too narrow for "
                             f"a {have} result")
        self.check_class(var, operand.span)
        if (not same and self.exact_width and have.bits != want.bits
                and not isinstance(have, PredType) and not isinstance(want, PredType)):
            raise self.error(operand.span, f"register {operand.name} has {want.bits} bits, but the "
                             f"result is {have.bits}-bit (only ld and cvt accept wider "
                             "destination registers)")
        self.write_var(var, self.coerce(value, want, signed, operand.span))

    def special(self, operand: ast.SpecialRegister) -> Value:
        name = operand.name.lstrip("%") + (f".{operand.component}" if operand.component else "")
        bits = SPECIAL_REGS.get(name)
        if bits is None:
            raise self.error(operand.span, f"unknown special register %{name}")
        return self.value("special_reg", (), PRED if bits == 1 else int_type(bits), reg=name)

    def symbol_ptr(self, span: Span, name: str) -> Value:
        """The address of a named variable or parameter, typed by its state space."""
        local = self.locals.get(name)
        if isinstance(local, Value):
            return local
        var = local if local is not None else self.symbols.globals.get(name)
        if var is not None:
            return self.value("addr_of", (), PtrType(var.space), sym=var.name)
        if name in self.symbols.functions:
            return self.value("addr_of", (), PtrType(AddrSpace.GENERIC), sym=name)
        kind = "register" if name.startswith("%") else "symbol"
        raise self.error(span, f"undefined {kind} {name}")

    def symbol_value(self, span: Span, name: str, want: Type) -> Value:
        """A symbol used as a value: its address in its own state space, as an integer."""
        if name == "WARP_SZ":
            # PTX's predefined warp-size constant stays symbolic: nothing assumes a warp of 32.
            return self.coerce(self.value("special_reg", (), int_type(32), reg="WARP_SZ"), want, False, span)
        if not isinstance(want, IntType):
            raise self.error(span, f"undefined register {name}" if name.startswith("%") else
                             f"the address of {name} is an integer, not {want}")
        ptr = self.symbol_ptr(span, name)
        return self.value("ptrtoint", (ptr,), want)

    def address(self, operand: ast.Operand, space: str, reading: bool = False) -> Value:
        """``[base+offset]`` as a pointer into ``space``.

        ``reading``: a load; in a kernel, a ``.param`` load through a register reads the kernel's
        parameters (``mov.u64 %rd, k_param; ld.param [%rd]``), so that address is ``ptr<kparam>``.
        """
        if not isinstance(operand, ast.Address):
            raise self.error(operand.span, "expected an address '[...]'")
        if space == "shared_cluster":
            return self.cluster_address(operand)
        target = AddrSpace(space)
        if reading and target == AddrSpace.PARAM and self.fn.kind == "kernel":
            target = AddrSpace.KPARAM
        ptr_type = PtrType(target)
        base = operand.base
        if isinstance(base, (ast.Register, ast.Symbol)) and self.lookup(base.name) is None:
            ptr = self.symbol_ptr(base.span, base.name)
            ptr = self.retarget(ptr, target, base.span, base.name)
        elif isinstance(base, ast.IntImmediate):
            ptr = self.value("inttoptr", (self.const(int_type(ptr_type.bits), base.value),), ptr_type)
        else:
            reg = self.src(base, int_type(self.reg_bits(base)), typed=False)
            ptr = self.value("inttoptr", (reg,), ptr_type)
        if operand.offset is not None and operand.offset.value != 0:
            offset = self.const(int_type(ptr.type.bits), operand.offset.value)
            ptr = self.value("ptradd", (ptr, offset), ptr.type)
        return ptr

    def cluster_address(self, operand: ast.Address) -> Value:
        """``[a+offset]`` in the ``.shared::cluster`` window (32-bit addresses; a shared variable's
        name is its own CTA's address there) as the generic pointer that reaches it."""
        base = operand.base
        if isinstance(base, (ast.Register, ast.Symbol)) and self.lookup(base.name) is None:
            ptr = self.retarget(self.symbol_ptr(base.span, base.name), AddrSpace.SHARED, base.span, base.name)
            window = self.value("ptrtoint", (ptr,), int_type(32))
        elif isinstance(base, ast.IntImmediate):
            window = self.const(int_type(32), base.value)
        else:
            window = self.src(base, int_type(32), typed=False)
        if operand.offset is not None and operand.offset.value != 0:
            offset = self.const(int_type(32), operand.offset.value)
            window = self.value("add", (window, offset), int_type(32), type="b32")
        generic = self.value("cvta_cluster", (window,), int_type(64))
        return self.value("inttoptr", (generic,), PtrType(AddrSpace.GENERIC))

    def reg_bits(self, operand: ast.Operand) -> int:
        if isinstance(operand, (ast.Register, ast.Symbol)):
            var = self.lookup(operand.name)
            if var is not None and isinstance(var.type, IntType):
                return var.type.bits
            if var is not None:
                raise self.error(operand.span, f"address register {operand.name} is {var.type}, "
                                 "not an integer")
        return 64

    def retarget(self, ptr: Value, target: AddrSpace, span: Span, name: str) -> Value:
        assert isinstance(ptr.type, PtrType)
        have = ptr.type.space
        if have == target or {have, target} == {AddrSpace.KPARAM, AddrSpace.PARAM}:
            return ptr
        if target == AddrSpace.GENERIC and have in (AddrSpace.GLOBAL, AddrSpace.SHARED,
                                                     AddrSpace.LOCAL, AddrSpace.CONST):
            width = int_type(ptr.type.bits)
            as_int = self.value("ptrtoint", (ptr,), width)
            if width.bits != 64:
                as_int = self.value("zext", (as_int,), int_type(64))
            generic = self.value("cvta", (as_int,), int_type(64), space=have.value)
            return self.value("inttoptr", (generic,), PtrType(AddrSpace.GENERIC))
        raise self.error(span, f"{name} is in the {have.value} state space, not {target.value}")


def int_bits(value: int, want: Type) -> int:
    """The bit pattern of integer immediate ``value`` as type ``want``."""
    if isinstance(want, (FloatType, PackedType)) and not isinstance(want, PackedType):
        return float_to_bits(float(value), want)
    return value & ((1 << want.bits) - 1)


def float_bits(imm: ast.FloatImmediate, want: Type) -> int:
    """The bit pattern of float immediate ``imm`` as type ``want`` (rounded to nearest if narrower)."""
    if isinstance(want, FloatType) and want.kind == "f64":
        if imm.width == 64:
            return imm.bits
        return float_to_bits(float(struct.unpack("<f", struct.pack("<I", imm.bits))[0]), want)
    if isinstance(want, FloatType):
        if want.kind == "f32" and imm.width == 32:
            return imm.bits
        return float_to_bits(imm.value, want)
    # Integer-typed use of a float literal (``mov.b32 %r, 0f3F800000``): its bits.
    return imm.bits & ((1 << want.bits) - 1)


def float_to_bits(value: float, want: Type) -> int:
    """IEEE round-to-nearest-even bits of ``value`` in float type ``want``."""
    assert isinstance(want, FloatType)
    if want.kind == "f64":
        return int(struct.unpack("<Q", struct.pack("<d", value))[0])
    if want.kind == "bf16":
        bits = float_to_bits(value, FloatType("f32"))
        if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:
            return (bits >> 16) | 0x40
        return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF
    fmt, width = ("<f", "<I") if want.kind == "f32" else ("<e", "<H")
    try:
        return int(struct.unpack(width, struct.pack(fmt, value))[0])
    except OverflowError:
        sign = 1 << (want.bits - 1) if value < 0 else 0
        return sign | (0x7F800000 if want.kind == "f32" else 0x7C00)


def const_eval(expr: ast.Operand) -> int:
    """Value of a constant integer expression (``4*8``, ``-(1<<3)``) with C semantics on integers."""
    match expr:
        case ast.IntImmediate(value=value):
            return value
        case ast.ParenExpr(expr=inner):
            return const_eval(inner)
        case ast.UnaryExpr(op=op, operand=inner):
            value = const_eval(inner)
            return {"-": -value, "~": ~value, "!": int(not value)}[op]
        case ast.BinaryExpr(op=op, lhs=lhs, rhs=rhs):
            a, b = const_eval(lhs), const_eval(rhs)
            if op in ("/", "%") and b == 0:
                raise Ptx2GcnError.at(expr.span, "division by zero in a constant expression")
            return _BINARY[op](a, b)
        case _:
            raise Ptx2GcnError.at(expr.span, "expected a constant integer expression")


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_BINARY: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": _c_div, "%": lambda a, b: a - b * _c_div(a, b),
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b, "&": lambda a, b: a & b,
    "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
}
