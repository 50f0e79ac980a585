"""Typed PTX syntax tree, independent of the parser that builds it.

Invariant: every node is an immutable ``@dataclass(slots=True, frozen=True)`` whose first field is
``span`` (a ``ptx2gcn.diagnostics.Span``: file, 1-based line/column, exclusive end). Spans are
excluded from equality and hashing (``field(compare=False)``), so two trees compare equal exactly when
they denote the same PTX, whatever the layout; ``parse(print(tree)) == tree`` relies on this. Nothing
here refers to Lark. Names keep their PTX spelling (``%r1``, ``$L__BB0_2``), dotted words keep their
dot (``.global``, ``.b32``), and immediates keep their exact source spelling next to their value.

Shape is stable: later changes only add optional fields or node classes.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import TypeAlias

from ptx2gcn.diagnostics import Span

# ---------------------------------------------------------------------------------------------------
# Operands and constant expressions
# ---------------------------------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class Register:
    """A register reference such as ``%r1`` or ``input``; ``component`` is ``x``/``y``/... for ``%v.x``."""

    span: Span = field(compare=False, repr=False)
    name: str
    component: str | None = None


@dataclass(slots=True, frozen=True)
class SpecialRegister:
    """A predefined read-only register such as ``%tid.x`` (name ``%tid``, component ``x``) or ``%laneid``."""

    span: Span = field(compare=False, repr=False)
    name: str
    component: str | None = None


@dataclass(slots=True, frozen=True)
class Symbol:
    """A reference to a variable, parameter or function by name (e.g. ``foo_param_0``, ``_Z3addPf``)."""

    span: Span = field(compare=False, repr=False)
    name: str


@dataclass(slots=True, frozen=True)
class Label:
    """A reference to a code label, e.g. the target of ``bra $L__BB0_2``."""

    span: Span = field(compare=False, repr=False)
    name: str


@dataclass(slots=True, frozen=True)
class IntImmediate:
    """An integer constant: ``value`` is its mathematical value, ``text`` its exact spelling.

    Spellings: decimal, ``0x`` hex, ``0b`` binary, leading-``0`` octal, optional ``U`` suffix
    (``unsigned``), optional leading ``-`` (folded in: ``-5`` is one immediate).
    """

    span: Span = field(compare=False, repr=False)
    value: int
    text: str

    @property
    def unsigned(self) -> bool:
        return self.text.endswith(("U", "u"))


@dataclass(slots=True, frozen=True)
class FloatImmediate:
    """A floating-point constant with its exact spelling.

    ``0fXXXXXXXX`` (f32 bits) and ``0dXXXXXXXXXXXXXXXX`` (f64 bits) keep their bit pattern in
    ``text``; ``value`` is the decoded Python float (NaN payloads are only exact in ``bits``).
    Decimal spellings (``1.5``, ``1e-3``) are f64 values. Equality compares ``text`` only.
    """

    span: Span = field(compare=False, repr=False)
    value: float = field(compare=False)  # NaN != NaN; ``text`` determines the value exactly
    text: str = ""

    @property
    def width(self) -> int:
        """32 for ``0f`` spellings, 64 otherwise."""
        body = self.text.lstrip("-")
        return 32 if body[:2] in ("0f", "0F") else 64

    @property
    def bits(self) -> int:
        """The IEEE bit pattern of the constant at ``width`` bits (sign of a leading ``-`` applied)."""
        negative = self.text.startswith("-")
        body = self.text.lstrip("-")
        if body[:2] in ("0f", "0F", "0d", "0D"):
            raw = int(body[2:], 16)
            return raw ^ (1 << (self.width - 1)) if negative else raw
        return int.from_bytes(struct.pack(">d", self.value), "big")


@dataclass(slots=True, frozen=True)
class Sink:
    """The ``_`` operand: a result that is discarded (or an unnamed prototype parameter)."""

    span: Span = field(compare=False, repr=False)


@dataclass(slots=True, frozen=True)
class Negated:
    """``-x``: the arithmetic negation of a (non-immediate) operand."""

    span: Span = field(compare=False, repr=False)
    operand: Operand


@dataclass(slots=True, frozen=True)
class Not:
    """``!p``: the logical complement of a predicate operand."""

    span: Span = field(compare=False, repr=False)
    operand: Operand


@dataclass(slots=True, frozen=True)
class Vector:
    """``{a, b, _, d}``: a brace-enclosed vector of operands (elements may be ``Sink``)."""

    span: Span = field(compare=False, repr=False)
    elements: tuple[Operand, ...]


@dataclass(slots=True, frozen=True)
class Pair:
    """``d|p``: two destinations written with a bar (``setp``, ``shfl``, ...)."""

    span: Span = field(compare=False, repr=False)
    first: Operand
    second: Operand


@dataclass(slots=True, frozen=True)
class Address:
    """``[base]``, ``[base+imm]`` or ``[base+-imm]``; ``base`` is a register, symbol or immediate.

    ``offset`` is None when no offset is written; ``[r-4]`` and ``[r+-4]`` both give ``-4``.
    """

    span: Span = field(compare=False, repr=False)
    base: Operand
    offset: IntImmediate | None = None


@dataclass(slots=True, frozen=True)
class BracketList:
    """``[a, b, ...]`` with two or more items: texture/surface operands like ``[tex, {x, y}]``."""

    span: Span = field(compare=False, repr=False)
    items: tuple[Operand, ...]


@dataclass(slots=True, frozen=True)
class ParenList:
    """``(a, b, ...)``: the return and argument lists of ``call`` (and any parenthesised list of
    several operands). Outside ``call``, ``(x)`` with one item is grouping: a ``ParenExpr``."""

    span: Span = field(compare=False, repr=False)
    items: tuple[Operand, ...]


@dataclass(slots=True, frozen=True)
class Generic:
    """``generic(sym)`` in an initializer: the generic address of a global variable."""

    span: Span = field(compare=False, repr=False)
    symbol: Symbol


@dataclass(slots=True, frozen=True)
class UnaryExpr:
    """A constant-expression unary operation: ``op`` is one of ``-``, ``~``, ``!``."""

    span: Span = field(compare=False, repr=False)
    op: str
    operand: Operand


@dataclass(slots=True, frozen=True)
class BinaryExpr:
    """A binary operation (``+ - * / % << >> & | ^``) of a constant expression (``sym+8``,
    ``(1+2)*4``), or a register/name with an immediate offset used as an instruction operand
    (``%r1+4``, ``%r1+-4``: op ``+``/``-`` as written, the sign of ``-4`` folded into ``rhs``)."""

    span: Span = field(compare=False, repr=False)
    op: str
    lhs: Operand
    rhs: Operand


@dataclass(slots=True, frozen=True)
class ParenExpr:
    """``(e)``: a parenthesised constant expression (kept so printing preserves grouping)."""

    span: Span = field(compare=False, repr=False)
    expr: Operand


Operand: TypeAlias = (
    Register | SpecialRegister | Symbol | Label | IntImmediate | FloatImmediate | Sink | Negated | Not
    | Vector | Pair | Address | BracketList | ParenList | Generic | UnaryExpr | BinaryExpr | ParenExpr
)
"""Anything that can stand in an instruction operand position or a constant expression."""


@dataclass(slots=True, frozen=True)
class InitList:
    """``{a, b, {c, d}}``: a brace-enclosed (possibly nested) variable initializer."""

    span: Span = field(compare=False, repr=False)
    items: tuple[Initializer, ...]


@dataclass(slots=True, frozen=True)
class FieldInit:
    """``{ addr_mode_0 = clamp_to_edge, filter_mode = linear }``: the named fields of a
    ``.samplerref``/``.texref`` initializer, in source order (values: ``Symbol`` or ``IntImmediate``)."""

    span: Span = field(compare=False, repr=False)
    fields: tuple[tuple[str, Operand], ...]


Initializer: TypeAlias = Operand | InitList | FieldInit
"""A variable's initial value: a constant expression or a nested brace list."""

# ---------------------------------------------------------------------------------------------------
# Instructions
# ---------------------------------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class Guard:
    """``@p`` / ``@!p``: the predicate guarding an instruction."""

    span: Span = field(compare=False, repr=False)
    predicate: Register
    negated: bool = False


@dataclass(slots=True, frozen=True)
class Instruction:
    """One PTX instruction: ``[@guard] opcode.mod1.mod2 operands;``.

    ``opcode`` has no dot (``shfl``); ``modifiers`` keep their dots in source order
    (``(".sync", ".down", ".b32")``).
    """

    span: Span = field(compare=False, repr=False)
    guard: Guard | None
    opcode: str
    modifiers: tuple[str, ...]
    operands: tuple[Operand, ...]


# ---------------------------------------------------------------------------------------------------
# Declarations
# ---------------------------------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class Declarator:
    """One declared name: ``%r<10>`` (``count=10``), ``a[4][8]`` (``dims=(4, 8)``), ``a[]``
    (``dims=(None,)``), optionally ``= initializer``."""

    span: Span = field(compare=False, repr=False)
    name: str
    count: int | None = None
    dims: tuple[int | None, ...] = ()
    initializer: Initializer | None = None

    def names(self) -> list[str]:
        """The register names this declarator introduces (``%r<3>`` gives ``%r0 %r1 %r2``).

        This materialises ``count`` strings: for membership tests on untrusted input use
        ``ptx2gcn.frontend.names.NameSet``, which keeps ranges as ranges."""
        if self.count is None:
            return [self.name]
        return [f"{self.name}{i}" for i in range(self.count)]


@dataclass(slots=True, frozen=True)
class VariableDecl:
    """A ``.reg/.local/.shared/.global/.const/.param/...`` declaration of one or more names.

    ``linkage``: ``.extern``/``.visible``/``.weak``/``.common`` in source order. ``attributes``:
    other qualifiers in source order, e.g. ``.attribute(.managed)`` in its canonical spelling.
    ``vector`` is ``.v2``/``.v4``/``.v8`` or None; ``type`` is the element type (``.b32``,
    ``.pred``, ``.texref``).
    """

    span: Span = field(compare=False, repr=False)
    state_space: str
    type: str
    declarators: tuple[Declarator, ...]
    linkage: tuple[str, ...] = ()
    align: int | None = None
    vector: str | None = None
    attributes: tuple[str, ...] = ()
    bank: int | None = None
    """The constant bank of ``.const[2]`` (PTX ISA 1.x-2.1 syntax); None for the default bank."""


@dataclass(slots=True, frozen=True)
class Param:
    """A function/kernel parameter: ``.param .align 8 .b8 x[16]``, ``.reg .b32 r``,
    ``.param .u64 .ptr .global .align 16 p``.

    ``ptr_space``/``ptr_align`` are set only with ``.ptr`` (``is_ptr``).
    """

    span: Span = field(compare=False, repr=False)
    state_space: str
    type: str
    name: str
    align: int | None = None
    vector: str | None = None
    dims: tuple[int | None, ...] = ()
    is_ptr: bool = False
    ptr_space: str | None = None
    ptr_align: int | None = None


# ---------------------------------------------------------------------------------------------------
# Directives
# ---------------------------------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class VersionDirective:
    """``.version major.minor``."""

    span: Span = field(compare=False, repr=False)
    major: int
    minor: int


@dataclass(slots=True, frozen=True)
class TargetDirective:
    """``.target sm_90a, debug, ...``: the target names in source order."""

    span: Span = field(compare=False, repr=False)
    targets: tuple[str, ...]


@dataclass(slots=True, frozen=True)
class AddressSizeDirective:
    """``.address_size 32|64``."""

    span: Span = field(compare=False, repr=False)
    size: int


@dataclass(slots=True, frozen=True)
class FileDirective:
    """``.file index "path" [, timestamp, size]``."""

    span: Span = field(compare=False, repr=False)
    index: int
    path: str
    timestamp: int | None = None
    size: int | None = None


@dataclass(slots=True, frozen=True)
class LocDirective:
    """``.loc file line column [, function_name sym[+off]] [, inlined_at file line column]``."""

    span: Span = field(compare=False, repr=False)
    file_index: int
    line: int
    column: int
    function_name: Symbol | None = None
    function_name_offset: int | None = None
    inlined_at: tuple[int, int, int] | None = None


@dataclass(slots=True, frozen=True)
class PragmaDirective:
    """``.pragma "nounroll";``: the string values without quotes (escapes kept as written)."""

    span: Span = field(compare=False, repr=False)
    values: tuple[str, ...]


@dataclass(slots=True, frozen=True)
class PerformanceDirective:
    """``.maxntid 256, 1, 1`` and its kin (``.reqntid .minnctapersm .maxnctapersm .maxnreg .noreturn
    .maxclusterrank .reqnctapercluster .explicitcluster``); ``name`` keeps the dot."""

    span: Span = field(compare=False, repr=False)
    name: str
    values: tuple[int, ...] = ()


@dataclass(slots=True, frozen=True)
class SectionData:
    """One data line inside ``.section``: ``.b8 1, 2, 3`` or ``.b32 sym+4``."""

    span: Span = field(compare=False, repr=False)
    type: str
    values: tuple[Operand, ...]


@dataclass(slots=True, frozen=True)
class LabelDecl:
    """``name:`` — a code label (or a label inside a ``.section`` body)."""

    span: Span = field(compare=False, repr=False)
    name: str


SectionEntry: TypeAlias = SectionData | LabelDecl


@dataclass(slots=True, frozen=True)
class SectionDirective:
    """``.section .debug_info { ... }``: DWARF data as typed entries."""

    span: Span = field(compare=False, repr=False)
    name: str
    entries: tuple[SectionEntry, ...]


@dataclass(slots=True, frozen=True)
class DwarfDirective:
    """``@@DWARF text``: an old-style (ISA 1.x/2.x) DWARF line, kept verbatim after ``@@DWARF``."""

    span: Span = field(compare=False, repr=False)
    text: str


@dataclass(slots=True, frozen=True)
class BranchTargets:
    """``label: .branchtargets L1, L2, ...;`` — the targets a ``brx.idx`` through ``label`` may take."""

    span: Span = field(compare=False, repr=False)
    name: str
    targets: tuple[str, ...]


@dataclass(slots=True, frozen=True)
class CallTargets:
    """``label: .calltargets f1, f2, ...;`` — the functions an indirect ``call`` may reach."""

    span: Span = field(compare=False, repr=False)
    name: str
    targets: tuple[str, ...]


@dataclass(slots=True, frozen=True)
class CallPrototype:
    """``label: .callprototype (ret) _ (params) [.noreturn];`` — the type of an indirect call."""

    span: Span = field(compare=False, repr=False)
    name: str
    return_params: tuple[Param, ...] | None
    params: tuple[Param, ...] | None
    noreturn: bool = False


@dataclass(slots=True, frozen=True)
class Block:
    """``{ ... }``: a function body or a nested scope (e.g. from inline asm)."""

    span: Span = field(compare=False, repr=False)
    statements: tuple[Statement, ...]


Statement: TypeAlias = (
    Instruction | LabelDecl | VariableDecl | LocDirective | PragmaDirective | BranchTargets
    | CallTargets | CallPrototype | Block | FileDirective | DwarfDirective | SectionDirective
)
"""Anything that may appear inside a function body."""


@dataclass(slots=True, frozen=True)
class Function:
    """A ``.entry`` kernel or ``.func`` function (declaration when ``body`` is None).

    ``return_params``/``params`` are None when the parenthesised list is absent altogether.
    ``directives`` are the performance/pragma directives between the header and the body.
    """

    span: Span = field(compare=False, repr=False)
    kind: str
    name: str
    params: tuple[Param, ...] | None
    body: Block | None
    return_params: tuple[Param, ...] | None = None
    linkage: tuple[str, ...] = ()
    directives: tuple[PerformanceDirective | PragmaDirective, ...] = ()

    @property
    def is_kernel(self) -> bool:
        return self.kind == ".entry"


@dataclass(slots=True, frozen=True)
class AliasDirective:
    """``.alias alias, aliasee;`` (PTX 6.3+)."""

    span: Span = field(compare=False, repr=False)
    alias: str
    aliasee: str


ModuleItem: TypeAlias = (
    VersionDirective | TargetDirective | AddressSizeDirective | FileDirective | SectionDirective
    | DwarfDirective | PragmaDirective | VariableDecl | Function | AliasDirective | LocDirective
)
"""Anything that may appear at module scope."""


@dataclass(slots=True, frozen=True)
class Module:
    """A whole PTX file: its top-level items in source order."""

    span: Span = field(compare=False, repr=False)
    items: tuple[ModuleItem, ...]

    @property
    def version(self) -> VersionDirective | None:
        return next((i for i in self.items if isinstance(i, VersionDirective)), None)

    @property
    def target(self) -> TargetDirective | None:
        return next((i for i in self.items if isinstance(i, TargetDirective)), None)

    @property
    def address_size(self) -> int:
        """The declared address size, 32 when the directive is absent (PTX default)."""
        item = next((i for i in self.items if isinstance(i, AddressSizeDirective)), None)
        return item.size if item is not None else 32

    @property
    def functions(self) -> tuple[Function, ...]:
        return tuple(i for i in self.items if isinstance(i, Function))

    @property
    def variables(self) -> tuple[VariableDecl, ...]:
        return tuple(i for i in self.items if isinstance(i, VariableDecl))
