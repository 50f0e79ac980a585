"""Per-function lowering state shared by every ``lower_*`` module.

Invariant: ``FnContext`` maps each IR ``Value`` to exactly one LLVM value, defined before any use
is lowered (blocks are lowered in dominance order, block arguments become ``phi``s created when
their block is entered and completed after the whole function is lowered). All llvmlite calls
that create intrinsics go through ``intrinsic`` so declarations are made once per module;
host-visible variables (``.global``/``.const``, the assertion record) are ``HostVisibleGlobal``s.
Lowering functions receive ``(cx, op)`` and must ``define`` every result of ``op``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from llvmlite import ir

from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.emit.llvm_types import I8, I32, I64, llvm_type, pointer
from ptx2gcn.emit.param_copy import ParamCopy
from ptx2gcn.emit.return_slots import ReturnSlot
from ptx2gcn.ir.core import Block, Function, Op, OpResult, Value


class HostVisibleGlobal(ir.GlobalVariable):  # pyright: ignore[reportUntypedBaseClass]
    """A ``.global``/``.const`` variable: ``externally_initialized`` (llvmlite cannot spell it), so
    LLVM never folds a load to the initializer nor drops a store nobody in the module reads: the
    host may write or read it between launches (``cuModuleGetGlobal``, ``cudaMemcpyToSymbol``)."""

    def __init__(self, module: ir.Module, typ: ir.Type, name: str, addrspace: int) -> None:
        super().__init__(module, typ, name, addrspace)
        # CUDA keeps every named .global/.const, module-local or not, for cuModuleGetGlobal: each is
        # an exported symbol (protected: the runtime finds it, code addresses it directly, no GOT).
        self.storage_class = "protected"

    def descr(self, buf: list[str]) -> None:
        text: list[str] = []
        super().descr(text)  # pyright: ignore[reportUnknownMemberType]
        words = "".join(text).split(" ")
        kind = next(i for i, word in enumerate(words) if word in ("global", "constant"))
        buf.append(" ".join([*words[:kind], "externally_initialized", *words[kind:]]))


def runtime_record(module: ir.Module, name: str, size: int) -> ir.GlobalVariable:
    """The module's zero-initialised, 8-aligned, host-visible ``size``-byte global ``name`` in global
    memory (made on first use): a record the runtime reads or sets up around each launch (the
    assertion record, the printf control block)."""
    record = module.globals.get(name)
    if record is None:
        t = ir.ArrayType(I8, size)
        record = HostVisibleGlobal(module, t, name, 1)
        record.initializer = ir.Constant(t, None)
        record.align = 8
        record.type = pointer(1)  # references print as opaque ``ptr addrspace(1)``
    assert isinstance(record, ir.GlobalVariable)
    return record


@dataclass
class ModuleContext:
    """Module-wide state: the LLVM module, declared intrinsics, globals and functions by name."""

    module: ir.Module
    arch: str
    mma: str = "auto"
    """``--mma``: auto, exact or mfma (``lower_mma_mfma``)."""
    max_registers: int | None = None
    """Every kernel's register ceiling (``CompileOptions.max_registers``, ``kernel_abi``)."""
    globals: dict[str, ir.GlobalVariable] = field(default_factory=lambda: {})
    functions: dict[str, ir.Function] = field(default_factory=lambda: {})
    defined: set[str] = field(default_factory=lambda: set[str]())
    """Names of the functions that have a body in this module."""
    exit_flagged: frozenset[str] = frozenset()
    """Device functions that return an extra ``i1`` "the thread exited" (``lower_control``)."""
    return_slots: dict[str, list[ReturnSlot]] = field(default_factory=lambda: {})
    """Per device function, its ``.param`` results returned in registers (``return_slots``)."""
    indirect_exit_flag: bool = False
    """Whether calls through a function pointer return that ``i1`` too."""
    indirect_values: bool = False
    """Whether calls through a function pointer pass ``.param`` slots by value (``return_slots``)."""
    _intrinsics: dict[str, ir.Function] = field(default_factory=lambda: {})

    def intrinsic(self, name: str, ret: ir.Type, args: Sequence[ir.Type],
                  attrs: Sequence[str] = ()) -> ir.Function:
        """The declaration of LLVM function ``name`` (created on first use)."""
        fn = self._intrinsics.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ret, list(args)), name)
            for attr in attrs:
                fn.attributes.add(attr)
            self._intrinsics[name] = fn
        return fn


@dataclass
class FnContext:
    """State while lowering one IR function into one LLVM function."""

    mod: ModuleContext
    fn: Function
    llfn: ir.Function
    builder: ir.IRBuilder
    values: dict[Value, ir.Value] = field(default_factory=lambda: {})
    blocks: dict[Block, ir.Block] = field(default_factory=lambda: {})
    phis: dict[Block, list[ir.PhiInstr]] = field(default_factory=lambda: {})
    op: Op | None = None
    """The op being lowered (for diagnostics)."""
    entry_allocas: ir.Block | None = None
    is_kernel: bool = False
    param_copies: dict[OpResult, ParamCopy] | None = None
    """Local allocas that copy a by-value kernel parameter (``ptx2gcn.emit.param_copy``), found on
    first use."""
    slot_allocas: list[tuple[ir.Value, ReturnSlot]] = field(default_factory=lambda: [])
    """This function's register-returned ``.param`` slots: the local alloca standing for each."""
    param_copy_stores: set[Op] = field(default_factory=lambda: set())
    """The ``st`` ops that copy by-value parameters member by member: the memcpy replaces them."""
    exit_block: ir.Block | None = None
    """Where a thread that executed ``exit`` (here or in a callee) leaves this function; made on
    first use."""
    loaded_a: set[int] = field(default_factory=lambda: set())
    """The ``id``s of the registers ``wmma.load`` produced for wmma A fragments in ``wmma_mfma``'s
    layout (``wmma_mfma.checked_a``)."""

    def get(self, value: Value) -> ir.Value:
        return self.values[value]

    def operand(self, op: Op, index: int) -> ir.Value:
        return self.values[op.operands[index].value]

    def operands(self, op: Op) -> list[ir.Value]:
        return [self.values[u.value] for u in op.operands]

    def define(self, op: Op, *results: ir.Value) -> None:
        """Bind ``op``'s results, converting to the declared IR result types where the bits agree."""
        for result, value in zip(op.results, results, strict=True):
            to = llvm_type(result.type)
            self.values[result] = value if value.type is to else self.coerce(value, to)

    def coerce(self, value: ir.Value, to: ir.Type) -> ir.Value:
        """``value`` as type ``to`` by a same-width bitcast (or int resize); no-op when equal."""
        if value.type == to:
            return value
        b = self.builder
        if isinstance(value.type, ir.IntType) and isinstance(to, ir.IntType):
            return b.zext(value, to) if to.width > value.type.width else b.trunc(value, to)
        if isinstance(value.type, ir.PointerType) and isinstance(to, ir.PointerType):
            return b.addrspacecast(value, to)
        return b.bitcast(value, to)

    def call(self, name: str, ret: ir.Type, args: Sequence[ir.Value], attrs: Sequence[str] = ()) -> ir.Value:
        """Call intrinsic/runtime function ``name`` with ``args`` (declared from their types)."""
        fn = self.mod.intrinsic(name, ret, [a.type for a in args], attrs)
        return self.builder.call(fn, list(args))

    def unsupported(self, what: str, why: str) -> UnsupportedError:
        return UnsupportedError.feature(self.op.loc if self.op else None, what, why)

    def attr(self, op: Op, name: str, default: str = "") -> str:
        value = op.attrs.get(name, default)
        return value if isinstance(value, str) else default

    def flag(self, op: Op, name: str) -> bool:
        return bool(op.attrs.get(name, False))

    def i32(self, value: int) -> ir.Constant:
        return ir.Constant(I32, value)

    def i64(self, value: int) -> ir.Constant:
        return ir.Constant(I64, value)


Lowering = Callable[[FnContext, Op], None]
"""A lowering function: emit LLVM IR for one op and ``define`` its results."""
