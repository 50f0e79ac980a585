"""The IR core: Module → Function → Block → Op, SSA values with explicit use lists.

Invariants (checked by ``ptx2gcn.ir.verify``):
- every ``Use`` in ``op.operands`` or in a successor's ``args`` is registered in its value's
  ``uses`` and in no other value's; mutate operands only through ``Use.set`` / the helpers here;
- an ``OpResult`` belongs to exactly one op, a ``BlockArg`` to exactly one block;
- a block's last op is its only terminator; the entry block has no predecessors and its
  arguments are the function's parameters.

Ops and blocks are mutable and compared by identity; types and attribute values are immutable.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ptx2gcn.diagnostics import Span
from ptx2gcn.ir.opcodes import is_terminator
from ptx2gcn.ir.types import AddrSpace, Type

Attr = str | int | bool
"""An attribute value: an identifier-like string, an integer (float bit patterns too) or a flag."""


class Value:
    """An SSA value: defined once (by an op result or a block argument), used anywhere dominated."""

    __slots__ = ("type", "name", "uses")

    def __init__(self, type: Type, name: str = "") -> None:
        self.type: Type = type
        """The value's IR type (never changes meaning; passes may retype only with care)."""
        self.name: str = name
        """A name hint for printing (a PTX register name, possibly empty)."""
        self.uses: dict[Use, None] = {}
        """Every use of this value, in insertion order (a dict used as an ordered set)."""

    def replace_all_uses_with(self, other: Value) -> None:
        for use in list(self.uses):
            use.set(other)

    @property
    def has_uses(self) -> bool:
        return bool(self.uses)

    def users(self) -> Iterator[Op]:
        for use in self.uses:
            yield use.owner


class OpResult(Value):
    """Result number ``index`` of ``op``."""

    __slots__ = ("op", "index")

    def __init__(self, type: Type, op: Op, index: int, name: str = "") -> None:
        # Value's fields set here rather than through super().__init__: every op result is made
        # here (100k+ per large kernel), and the extra call was a measurable share of IR building.
        self.type = type
        self.name = name
        self.uses = {}
        self.op = op
        self.index = index


class BlockArg(Value):
    """Argument number ``index`` of ``block`` (the SSA merge point; see ``ptx2gcn.ir``)."""

    __slots__ = ("block", "index")

    def __init__(self, type: Type, block: Block, index: int, name: str = "") -> None:
        super().__init__(type, name)
        self.block = block
        self.index = index


class Use:
    """One operand slot of ``owner`` currently holding ``value``."""

    __slots__ = ("owner", "value")

    def __init__(self, owner: Op, value: Value) -> None:
        self.owner = owner
        self.value = value
        value.uses[self] = None

    def set(self, value: Value) -> None:
        if value is self.value:
            return
        del self.value.uses[self]
        self.value = value
        value.uses[self] = None

    def drop(self) -> None:
        self.value.uses.pop(self, None)


class Successor:
    """A branch target of a terminator and the values passed to the target's arguments."""

    __slots__ = ("block", "args")

    def __init__(self, block: Block, args: list[Use]) -> None:
        self.block = block
        self.args = args

    @property
    def arg_values(self) -> list[Value]:
        return [use.value for use in self.args]


class Op:
    """One operation: ``results = name operands -> successors {attrs}``."""

    __slots__ = ("name", "operands", "results", "attrs", "successors", "loc", "parent")

    def __init__(self, name: str, operands: Iterable[Value] = (), result_types: Iterable[Type] = (),
                 attrs: dict[str, Attr] | None = None, loc: Span | None = None) -> None:
        self.name: str = name
        """The opcode, a row of ``ptx2gcn.ir.opcodes.OPS``."""
        self.operands: list[Use] = [Use(self, v) for v in operands]
        self.results: list[OpResult] = [OpResult(t, self, i) for i, t in enumerate(result_types)]
        self.attrs: dict[str, Attr] = {k: v for k, v in attrs.items() if v is not False} if attrs else {}
        """Typed modifiers (``type``, ``rnd``, ``ftz``...); a False flag is never stored."""
        self.successors: list[Successor] = []
        self.loc: Span | None = loc
        """Where the op came from (a PTX line, or the IR text when parsed from IR)."""
        self.parent: Block | None = None

    @property
    def operand_values(self) -> list[Value]:
        return [use.value for use in self.operands]

    def operand(self, index: int) -> Value:
        return self.operands[index].value

    @property
    def result(self) -> OpResult:
        """The single result (IndexError when the op has none)."""
        return self.results[0]

    def add_successor(self, block: Block, args: Iterable[Value] = ()) -> Successor:
        succ = Successor(block, [Use(self, v) for v in args])
        self.successors.append(succ)
        return succ

    def set_operand(self, index: int, value: Value) -> None:
        self.operands[index].set(value)

    def drop_uses(self) -> None:
        """Unregister every use this op makes (before erasing it)."""
        for use in self.operands:
            use.drop()
        for succ in self.successors:
            for use in succ.args:
                use.drop()

    def detach(self) -> None:
        """Forget an op that has left its function for good (its results unused): unregister its
        uses and drop its operands, results, successors and block.

        Afterwards the op keeps only its name, attributes and location, and no reference cycle
        (op <-> use, op <-> result) holds it: reference counting frees it and its results as soon
        as the pass lets go of it, not the cyclic collector after the compile.
        """
        self.drop_uses()
        self.operands.clear()
        self.results.clear()
        self.successors.clear()
        self.parent = None

    def erase(self) -> None:
        """Remove this op from its block and ``detach`` it; its results must be unused."""
        assert all(not r.uses for r in self.results), f"erasing {self.name} whose result is used"
        if self.parent is not None:
            self.parent.ops.remove(self)
        self.detach()

    def __repr__(self) -> str:
        return f"<Op {self.name} at {self.loc}>"


class Block:
    """A basic block: arguments, then ops ending in exactly one terminator."""

    __slots__ = ("label", "args", "ops", "parent")

    def __init__(self, label: str = "") -> None:
        self.label: str = label
        """A name hint for printing (the PTX label, possibly empty)."""
        self.args: list[BlockArg] = []
        self.ops: list[Op] = []
        self.parent: Function | None = None

    def add_arg(self, type: Type, name: str = "") -> BlockArg:
        arg = BlockArg(type, self, len(self.args), name)
        self.args.append(arg)
        return arg

    def remove_arg(self, index: int, preds: list[Block] | None = None) -> None:
        """Drop argument ``index`` (must be unused) and the matching value on every incoming edge.

        ``preds``: the predecessors when the caller knows them (saves a scan of the function).
        """
        arg = self.args.pop(index)
        assert not arg.uses, "removing a used block argument"
        for i, other in enumerate(self.args):
            other.index = i
        for pred in self.predecessors() if preds is None else preds:
            term = pred.terminator
            assert term is not None
            for succ in term.successors:
                if succ.block is self:
                    succ.args.pop(index).drop()

    def append(self, op: Op) -> Op:
        op.parent = self
        self.ops.append(op)
        return op

    def insert(self, index: int, op: Op) -> Op:
        op.parent = self
        self.ops.insert(index, op)
        return op

    def insert_before(self, anchor: Op, op: Op) -> Op:
        return self.insert(self.ops.index(anchor), op)

    @property
    def terminator(self) -> Op | None:
        if not self.ops:
            return None
        last = self.ops[-1]
        return last if is_terminator(last.name) else None

    def successors(self) -> list[Block]:
        term = self.terminator
        return [s.block for s in term.successors] if term is not None else []

    def predecessors(self) -> list[Block]:
        """Blocks whose terminator branches here, in function order, without duplicates."""
        if self.parent is None:
            return []
        return [b for b in self.parent.blocks if self in b.successors()]

    def __repr__(self) -> str:
        return f"<Block {self.label or id(self)}>"


@dataclass(slots=True)
class Param:
    """A function parameter or return value with its PTX ABI facts.

    ``space`` is ``kparam`` for kernel parameters, ``param`` for device-function ``.param``
    parameters (both are passed as an address of parameter memory), and ``reg`` for ``.reg``
    parameters (passed as a value of ``type``).
    """

    name: str
    space: str
    type: Type
    """The PTX element type as an IR type (for arrays: of one element)."""
    ptx_type: str
    """The PTX type name of an element (``u64``, ``b8``...)."""
    size: int
    """Size in bytes (element size times ``count``)."""
    align: int
    count: int = 0
    """Array length for ``x[N]`` parameters; 0 for scalars; -1 for an unsized ``.param`` array
    ``x[]`` of a device function (``size`` is then 0: the caller's argument gives it)."""
    ptr_space: str = ""
    """The ``.ptr.<space>`` attribute of a kernel parameter ('' when absent)."""
    ptr_align: int = 0
    """The ``.ptr ... .align N`` attribute (0 when absent)."""

    @property
    def value_type(self) -> Type:
        """The type of the entry-block argument that stands for this parameter."""
        from ptx2gcn.ir.types import PtrType, VectorType

        if self.space == "kparam":
            return PtrType(AddrSpace.KPARAM)
        if self.space == "param":
            return PtrType(AddrSpace.PARAM)
        return VectorType(self.type, self.count) if self.count else self.type


@dataclass(eq=False, slots=True)
class Function:
    """A kernel (``.entry``) or device function (``.func``); no blocks for a declaration."""

    name: str
    kind: str
    """``kernel`` or ``func``."""
    params: list[Param] = field(default_factory=lambda: [])
    returns: list[Param] = field(default_factory=lambda: [])
    """Return values: ``.param`` ones are passed as leading address arguments, ``.reg`` ones by ``ret``."""
    linkage: str = ""
    """``visible``, ``extern``, ``weak`` or '' (internal)."""
    directives: dict[str, tuple[int, ...]] = field(default_factory=lambda: {})
    """Performance directives (``maxntid``, ``reqntid``, ``minnctapersm``, ``maxnreg``...)."""
    blocks: list[Block] = field(default_factory=lambda: [])
    loc: Span | None = None

    @property
    def is_declaration(self) -> bool:
        return not self.blocks

    @property
    def entry(self) -> Block:
        return self.blocks[0]

    @property
    def abi_params(self) -> list[Param]:
        """Entry-block arguments in order: ``.param`` return slots first, then the parameters."""
        return [p for p in self.returns if p.space == "param"] + self.params

    @property
    def reg_returns(self) -> list[Param]:
        return [p for p in self.returns if p.space != "param"]

    def add_block(self, block: Block) -> Block:
        block.parent = self
        self.blocks.append(block)
        return block

    def ops(self) -> Iterator[Op]:
        for block in self.blocks:
            yield from block.ops


@dataclass(frozen=True, slots=True)
class SymbolRef:
    """An address in an initializer: ``@name`` (in the symbol's own space), ``generic(@name)``,
    either plus a byte ``offset``."""

    name: str
    generic: bool = False
    offset: int = 0

    def __str__(self) -> str:
        text = f"generic(@{self.name})" if self.generic else f"@{self.name}"
        return text + (f"+{self.offset}" if self.offset > 0 else f"{self.offset}" if self.offset else "")


InitItem = int | SymbolRef
"""One initializer element: a bit pattern or the address of a symbol."""


@dataclass(eq=False, slots=True)
class Global:
    """A module-level variable in ``space`` (global, shared, const, local)."""

    name: str
    space: AddrSpace
    ptx_type: str
    """Element PTX type (``b8``, ``u32``, ``f32``...)."""
    count: int
    """Number of elements (flattened); 0 for a scalar, -1 for an unsized extern array."""
    align: int
    linkage: str = ""
    init: tuple[InitItem, ...] | None = None
    """Elements in order (shorter than ``count``: the rest is zero), or None for no initializer."""
    loc: Span | None = None
    sampler: tuple[tuple[str, str | int], ...] = ()
    """The fields of a ``.texref``/``.samplerref`` initializer in source order (``filter_mode =
    linear``, ``addr_mode_0 = clamp_to_edge``, ``normalized_coords = 1``...); () when none."""

    @property
    def elem_size(self) -> int:
        from ptx2gcn.ir.types import OPAQUE_TYPES, ptx_type

        if self.ptx_type in OPAQUE_TYPES:
            return 8  # a handle
        return max(ptx_type(self.ptx_type).bits // 8, 1)

    @property
    def size(self) -> int:
        return self.elem_size * max(self.count, 1) if self.count >= 0 else 0


@dataclass(eq=False, slots=True)
class Module:
    """A translation unit: header facts, globals, functions (in source order)."""

    source: str = "<input>"
    version: str = ""
    target: str = ""
    address_size: int = 64
    globals: list[Global] = field(default_factory=lambda: [])
    functions: list[Function] = field(default_factory=lambda: [])

    def function(self, name: str) -> Function | None:
        for fn in self.functions:
            if fn.name == name:
                return fn
        return None

    def global_(self, name: str) -> Global | None:
        for var in self.globals:
            if var.name == name:
                return var
        return None


def dispose(module: Module) -> None:
    """Empty ``module``'s functions so that reference counting, not the cyclic collector, frees the IR.

    The IR is one web of reference cycles (ops and their blocks, results and their op, values and
    the uses that point back at them), so without this it lives until the cyclic collector runs
    after the compile: on the 104k-line corpus kernel that collection walked ~700k IR objects.
    Only for a module that nothing else will read: afterwards every function is a body-less
    declaration, and ops, blocks and values are detached from each other (an op that a caller still
    holds keeps its name, attributes and location, and nothing else).
    """
    for function in module.functions:
        for block in function.blocks:
            for arg in block.args:
                arg.uses.clear()
            for op in block.ops:
                for result in op.results:
                    result.uses.clear()
                op.operands.clear()
                op.results.clear()
                op.successors.clear()
                op.parent = None
            block.args.clear()
            block.ops.clear()
            block.parent = None
        function.blocks.clear()
