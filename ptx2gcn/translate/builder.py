"""PTX AST → SSA IR: module structure, function bodies, labels, guards.

Invariant: ``build_module`` either returns a module that passes ``ptx2gcn.ir.verify`` in phase
``ssa`` or raises a located ``Ptx2GcnError``/``UnsupportedError``. Guards keep PTX's exact meaning:
an instruction whose lowering is pure (``ptx2gcn.translate.lowering.PURE``) computes its result and a
``selp`` keeps the old register value when the guard is false; any other guarded instruction
(memory, calls, collectives, control flow) runs in its own block reached by ``cbr`` only when the
guard holds. Labels start blocks; a block is sealed for SSA construction once it is reached and
every branch into it has been built.
The ``CompileOptions`` value decides what is translated: with ``options.kernels`` only those
kernels get a body (every other kernel stays a declaration, every ``.func`` is built, since any
kept code may call it), so an instruction ptx2gcn cannot translate in a kernel nobody asked for
does not stop the compile (``ptx2gcn compile --kernel NAME``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from ptx2gcn.compile_gc import paused_gc
from ptx2gcn.diagnostics import Ptx2GcnError, Span, UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.ir.core import Block, Function, Global, InitItem, Module, SymbolRef
from ptx2gcn.ir.opcodes import UNSUPPORTED
from ptx2gcn.ir.types import OPAQUE_TYPES, PRED, PTX_TYPES, AddrSpace
from ptx2gcn.options import CompileOptions
from ptx2gcn.translate.control import emit_return, lower_bra
from ptx2gcn.translate.emitter import FnCtx, RegScope, Symbols, const_eval, float_bits, int_bits, type_kind
from ptx2gcn.translate.lowering import LOWERINGS, PURE
from ptx2gcn.translate.modifiers import Mods
from ptx2gcn.translate.params import param_of

# PTX ISA 5.4.? "Operand Size Exceeding Instruction-Type Size": only these take wider registers.
_WIDER_REGISTERS = frozenset({"ld", "ldu", "st", "cvt"})
_GLOBAL_SPACES = {".global": AddrSpace.GLOBAL, ".shared": AddrSpace.SHARED, ".const": AddrSpace.CONST,
                  ".local": AddrSpace.LOCAL}


@functools.lru_cache(maxsize=4096)
def _instruction_kind(modifiers: tuple[str, ...]) -> str | None:
    """The class of an instruction's type when its ``modifiers`` have exactly one type (else None).
    Cached: a kernel repeats a few hundred modifier lists many thousand times."""
    types = [m[1:] for m in modifiers if m[1:] in PTX_TYPES]
    return type_kind(types[0]) if len(types) == 1 else None


def build_module(tree: ast.Module, options: CompileOptions | None = None) -> Module:
    """Translate a parsed PTX module into verified-shape SSA IR, for ``options`` (default: the
    defaults): the bodies of the kernels in ``options.kernels`` (all when None) and of every
    ``.func``."""
    wanted = None if options is None or options.kernels is None else frozenset(options.kernels)
    version = tree.version
    target = tree.target
    module = Module(source=tree.span.file,
                    version=f"{version.major}.{version.minor}" if version else "",
                    target=",".join(target.targets) if target else "",
                    address_size=tree.address_size)
    symbols = Symbols(module)
    for item in tree.items:
        if isinstance(item, ast.VariableDecl):
            for var in _globals(item, item.state_space):
                _add_global(symbols, var)
        elif isinstance(item, ast.Function):
            _declare_function(symbols, item)
    with paused_gc():
        for item in tree.items:
            if isinstance(item, ast.Function) and item.body is not None and (
                    wanted is None or not item.is_kernel or item.name in wanted):
                fn = symbols.functions[item.name]
                _FunctionBuilder(symbols, fn, item).build()
    return module


def _add_global(symbols: Symbols, var: Global) -> None:
    previous = symbols.globals.get(var.name)
    if previous is not None:
        if "extern" in (previous.linkage, var.linkage):
            if previous.linkage == "extern":
                symbols.module.globals[symbols.module.globals.index(previous)] = var
                symbols.globals[var.name] = var
            return
        raise Ptx2GcnError.at(var.loc, f"{var.name} is declared twice")
    symbols.globals[var.name] = var
    symbols.module.globals.append(var)


def _globals(decl: ast.VariableDecl, space_name: str, prefix: str = "") -> Iterator[Global]:
    space = _GLOBAL_SPACES.get(space_name)
    if space is None:
        raise Ptx2GcnError.at(decl.span, f"a {space_name} variable cannot be declared here")
    ptx_type = decl.type.lstrip(".")
    if ptx_type in OPAQUE_TYPES and space == AddrSpace.GLOBAL:
        yield from _opaque_globals(decl, ptx_type, prefix)
        return
    if ptx_type not in PTX_TYPES or ptx_type == "pred":
        raise UnsupportedError.feature(decl.span, f"{space_name} {decl.type}",
                                       "only scalar data types are supported in variables")
    lanes = int(decl.vector[2:]) if decl.vector else 1
    linkage = next((w.lstrip(".") for w in decl.linkage if w in (".visible", ".extern", ".weak", ".common")), "")
    for d in decl.declarators:
        count = lanes
        unsized = False
        for dim in d.dims:
            if dim is None:
                unsized = True
            else:
                count *= dim
        init = _initializer(d, ptx_type) if d.initializer is not None else None
        if unsized:
            count = len(init) if init is not None else -1
        elif not d.dims and lanes == 1:
            count = 0
        elem = 8 if ptx_type in OPAQUE_TYPES else max(PTX_TYPES[ptx_type].bits // 8, 1)
        yield Global(prefix + d.name, space, ptx_type, count, decl.align or elem * lanes, linkage,
                     init, d.span)


def _opaque_globals(decl: ast.VariableDecl, ptx_type: str, prefix: str) -> Iterator[Global]:
    """``.global .texref/.samplerref/.surfref`` handles, with their ``{ field = value }`` state."""
    linkage = next((w.lstrip(".") for w in decl.linkage if w in (".visible", ".extern", ".weak", ".common")), "")
    for d in decl.declarators:
        count = 0
        for dim in d.dims:
            count = -1 if dim is None or count < 0 else max(count, 1) * dim
        fields: list[tuple[str, str | int]] = []
        if d.initializer is not None:
            if not isinstance(d.initializer, ast.FieldInit):
                raise Ptx2GcnError.at(d.initializer.span, f"a {decl.type} is initialized with "
                                      "{ field = value, ... }")
            fields = [(name, _field_value(value)) for name, value in d.initializer.fields]
        yield Global(prefix + d.name, AddrSpace.GLOBAL, ptx_type, count, decl.align or 8, linkage, None,
                     d.span, tuple(fields))


def _field_value(value: ast.Operand) -> str | int:
    if isinstance(value, ast.IntImmediate):
        return value.value
    if isinstance(value, ast.Symbol):
        return value.name
    raise Ptx2GcnError.at(value.span, "a sampler field's value is a name (linear, clamp_to_edge ...) "
                          "or an integer")


def _initializer(d: ast.Declarator, ptx_type: str) -> tuple[InitItem, ...]:
    want = PTX_TYPES[ptx_type]
    values: list[InitItem] = []

    def walk(item: ast.Initializer) -> None:
        if isinstance(item, ast.InitList):
            for sub in item.items:
                walk(sub)
        elif isinstance(item, ast.FloatImmediate):
            values.append(float_bits(item, want))
        elif (ref := _symbol_ref(item)) is not None:
            values.append(ref)
        elif isinstance(item, (ast.IntImmediate, ast.UnaryExpr, ast.BinaryExpr, ast.ParenExpr)):
            values.append(int_bits(const_eval(item), want))
        else:
            raise Ptx2GcnError.at(item.span, "expected a constant or a symbol address in an initializer")

    assert d.initializer is not None
    walk(d.initializer)
    return tuple(values)


def _symbol_ref(item: ast.Initializer) -> SymbolRef | None:
    """``sym``, ``generic(sym)``, optionally ``+ imm``/``- imm``, as an address initializer."""
    offset = 0
    if isinstance(item, ast.BinaryExpr) and item.op in ("+", "-") and isinstance(item.rhs, ast.IntImmediate):
        offset = item.rhs.value if item.op == "+" else -item.rhs.value
        item = item.lhs
    if isinstance(item, ast.Generic):
        return SymbolRef(item.symbol.name, True, offset)
    if isinstance(item, (ast.Symbol, ast.Register)):
        return SymbolRef(item.name, False, offset)
    return None


def _declare_function(symbols: Symbols, item: ast.Function) -> None:
    kind = "kernel" if item.is_kernel else "func"
    space = "kparam" if item.is_kernel else "param"
    linkage = next((w.lstrip(".") for w in item.linkage), "")
    fn = Function(item.name, kind, [param_of(p, space) for p in item.params or ()],
                  [param_of(p, "param") for p in item.return_params or ()], linkage, loc=item.span)
    for directive in item.directives:
        if isinstance(directive, ast.PerformanceDirective):
            fn.directives[directive.name.lstrip(".")] = directive.values
    previous = symbols.functions.get(item.name)
    if previous is not None:
        if previous.is_declaration and item.body is None:
            return
        if item.body is None:
            return
        if previous.blocks or not previous.is_declaration:
            raise Ptx2GcnError.at(item.span, f"function {item.name} is defined twice")
        symbols.module.functions.remove(previous)
    symbols.functions[item.name] = fn
    symbols.module.functions.append(fn)


class _FunctionBuilder:
    """Walks one function body in order, creating blocks at labels and lowering instructions."""

    def __init__(self, symbols: Symbols, fn: Function, item: ast.Function) -> None:
        self.item = item
        self.fn = fn
        entry = fn.add_block(Block("entry"))
        self.ctx = FnCtx(symbols, fn, entry)
        self.labels: list[dict[str, Block]] = []
        self.scope_labels: dict[int, dict[str, Block]] = {}
        self.pending: dict[Block, int] = {}
        self.branch_targets: dict[str, ast.BranchTargets] = {}
        self.reached: set[Block] = set()

    def build(self) -> None:
        ctx = self.ctx
        entry = ctx.current()
        for param in self.fn.abi_params:
            arg = entry.add_arg(param.value_type, param.name)
            if param.space != "reg":
                ctx.locals[param.name] = arg
            elif param.count:
                ctx.declare_vector(param.name, param.type, param.count, kind=type_kind(param.ptx_type))
                parts = ctx.emit("unpack", (arg,), [param.type] * param.count).results
                for var, part in zip(ctx.vectors[param.name], parts):
                    ctx.write_var(var, part)
            else:
                ctx.write_var(ctx.declare(param.name, param.type, kind=type_kind(param.ptx_type)), arg)
        for ret in self.fn.reg_returns:
            if ret.count:
                ctx.declare_vector(ret.name, ret.type, ret.count, kind=type_kind(ret.ptx_type))
            else:
                ctx.declare(ret.name, ret.type, kind=type_kind(ret.ptx_type))
        assert self.item.body is not None
        self._collect_labels(self.item.body)
        self._block(self.item.body)
        if ctx.block is not None:
            emit_return(ctx, self.item.body.span)
        for block in list(self.pending):
            self._seal(block)
        ctx.ssa.finish()

    # --- labels and sealing ------------------------------------------------------------------

    def _collect_labels(self, body: ast.Block) -> None:
        """Create a block per label and count the branches into each (a pre-pass over the body)."""
        self._enter_labels(body, [])

    def _enter_labels(self, block: ast.Block, scopes: list[dict[str, Block]]) -> None:  # noqa: C901
        """``_collect_labels`` for one (nested) block; ``scopes``: the labels of the enclosing ones.

        A method, not a closure in ``_collect_labels``: a recursive closure is a reference cycle
        (function -> cell -> function) that would keep this builder, and with it the function's
        AST and SSA state, alive until the cyclic collector runs.
        """
        labels: dict[str, Block] = {}
        for stmt in block.statements:
            if isinstance(stmt, ast.BranchTargets):
                self.branch_targets[stmt.name] = stmt
            if isinstance(stmt, ast.LabelDecl):
                if stmt.name in labels:
                    raise Ptx2GcnError.at(stmt.span, f"label {stmt.name} is defined twice")
                labels[stmt.name] = Block(stmt.name)
                self.pending[labels[stmt.name]] = 0
        self.scope_labels[id(block)] = labels
        scopes.append(labels)
        for stmt in block.statements:
            if isinstance(stmt, ast.Block):
                self._enter_labels(stmt, scopes)
            elif isinstance(stmt, ast.CallPrototype):
                self.ctx.prototypes[stmt.name] = stmt
            elif isinstance(stmt, ast.CallTargets):
                self.ctx.calltargets[stmt.name] = stmt
            elif isinstance(stmt, ast.Instruction) and stmt.opcode == "bra":
                target = _resolve(scopes, stmt)
                if target is not None:
                    self.pending[target] += 1
            elif isinstance(stmt, ast.Instruction) and stmt.opcode == "brx":
                for target in self._switch_targets(scopes, stmt):
                    self.pending[target] += 1
        scopes.pop()


    def _switch_targets(self, scopes: list[dict[str, Block]], ins: ast.Instruction) -> list[Block]:
        """The distinct blocks a ``brx.idx`` through a known ``.branchtargets`` list may reach."""
        name = getattr(ins.operands[-1], "name", None) if ins.operands else None
        targets = self.branch_targets.get(name) if isinstance(name, str) else None
        found: dict[Block, None] = {}
        for label in targets.targets if targets is not None else ():
            for scope in reversed(scopes):
                if label in scope:
                    found[scope[label]] = None
                    break
        return list(found)

    def switch_targets(self, ins: ast.Instruction) -> list[Block]:
        """``brx.idx`` targets in list order (repeats kept): a located error when unknown."""
        name = getattr(ins.operands[-1], "name", None) if ins.operands else None
        targets = self.branch_targets.get(name) if isinstance(name, str) else None
        if targets is None:
            raise Ptx2GcnError.at(ins.span, "brx.idx needs a .branchtargets label as its list")
        return [self.label_block(targets.span, label) for label in targets.targets]

    def _seal(self, block: Block) -> None:
        self.ctx.ssa.seal(block)

    def branch_done(self, target: Block) -> None:
        """Record that one counted branch into ``target`` has been built."""
        self.pending[target] -= 1
        if self.pending[target] == 0 and target in self.reached:
            self._seal(target)

    def label_block(self, span: Span, name: str) -> Block:
        for scope in reversed(self.labels):
            block = scope.get(name)
            if block is not None:
                return block
        raise Ptx2GcnError.at(span, f"undefined label {name}")

    # --- statements --------------------------------------------------------------------------

    def _block(self, body: ast.Block) -> None:
        self.labels.append(self.scope_labels[id(body)])
        self.ctx.regs.append(RegScope())
        for stmt in body.statements:
            self._statement(stmt)
        self.ctx.regs.pop()
        self.labels.pop()

    def _statement(self, stmt: ast.Statement) -> None:
        match stmt:
            case ast.Instruction():
                self.instruction(stmt)
            case ast.LabelDecl(name=name):
                self._label(self.labels[-1][name])
            case ast.VariableDecl():
                self._declare(stmt)
            case ast.Block():
                self._block(stmt)
            case _:
                pass  # .loc, .pragma, prototypes, branch/call targets: no code

    def _label(self, block: Block) -> None:
        ctx = self.ctx
        ctx.ssa.new_block(block)
        if ctx.block is not None:
            ctx.loc = None
            ctx.emit("br").add_successor(block)
            ctx.ssa.add_edge(ctx.block, block)
        self.fn.add_block(block)
        self.reached.add(block)
        ctx.block = block
        if self.pending[block] == 0:
            # Every branch here was built already: its predecessors are known.
            ctx.ssa.seal(block)

    def _declare(self, decl: ast.VariableDecl) -> None:
        ctx = self.ctx
        space = decl.state_space
        if space == ".reg":
            ptx_type = decl.type.lstrip(".")
            if ptx_type not in PTX_TYPES:
                raise UnsupportedError.feature(decl.span, f".reg {decl.type}", "unknown register type")
            lanes = int(decl.vector[2:]) if decl.vector else 0
            kind = type_kind(ptx_type)
            for d in decl.declarators:
                if d.count is not None:
                    ctx.declare_range(d.name, d.count, PTX_TYPES[ptx_type], lanes, kind)
                elif lanes:
                    ctx.declare_vector(d.name, PTX_TYPES[ptx_type], lanes, kind=kind)
                else:
                    ctx.declare(d.name, PTX_TYPES[ptx_type], kind=kind)
        elif space in (".local", ".param"):
            target = AddrSpace.LOCAL if space == ".local" else AddrSpace.PARAM
            for var in _globals(decl, ".local"):
                ctx.loc = decl.span
                ctx.locals[var.name] = ctx.entry_alloca(target, max(var.size, var.elem_size),
                                                        var.align, var.name)
        elif space in (".shared", ".global", ".const"):
            # Function-scope variables of these spaces are static: one module-level variable each.
            for var in _globals(decl, space, prefix=f"{self.fn.name}."):
                _add_global(ctx.symbols, var)
                ctx.locals[var.name.removeprefix(f"{self.fn.name}.")] = var
        else:
            raise UnsupportedError.feature(decl.span, f"{space} variable inside a function",
                                           "only .reg, .local, .param, .shared, .global and .const "
                                           "variables are supported there")

    # --- instructions ------------------------------------------------------------------------

    def instruction(self, ins: ast.Instruction) -> None:
        ctx = self.ctx
        ctx.loc = ins.span
        lower = LOWERINGS.get(ins.opcode)
        if lower is None:
            why = UNSUPPORTED.get(ins.opcode)
            if why is not None:
                raise UnsupportedError.feature(ins.span, ins.opcode, why)
            raise Ptx2GcnError.at(ins.span, f"unknown instruction '{ins.opcode}'")
        mods = Mods(ins.opcode, ins.modifiers, ins.span)
        ctx.written = []
        ctx.exact_width = ins.opcode not in _WIDER_REGISTERS
        ctx.inst_kind = _instruction_kind(ins.modifiers)
        try:
            if ins.guard is None:
                lower(ctx, ins, mods, self)
            elif ins.opcode in PURE:
                self._guarded_select(ins, mods)
            else:
                self._guarded_branch(ins, mods)
        except Ptx2GcnError:
            raise
        except Exception as error:  # a builder bug: say which PTX line triggered it
            error.add_note(f"while building IR for '{ins.opcode}' at {ins.span}")
            raise

    def _guarded_select(self, ins: ast.Instruction, mods: Mods) -> None:
        ctx = self.ctx
        assert ins.guard is not None
        pred = ctx.src(ins.guard.predicate, PRED)
        ctx.capture = {}
        try:
            LOWERINGS[ins.opcode](ctx, ins, mods, self)
            captured = ctx.capture
        finally:
            ctx.capture = None
        for var, new in captured.items():
            old = ctx.read_var(var)
            if ins.guard.negated:
                new, old = old, new
            ctx.write_var(var, ctx.value("selp", (new, old, pred), var.type))

    def _guarded_branch(self, ins: ast.Instruction, mods: Mods) -> None:
        ctx = self.ctx
        guard = ins.guard
        assert guard is not None
        pred = ctx.src(guard.predicate, PRED)
        if ins.opcode == "bra":
            lower_bra(ctx, ins, mods, self, pred, guard.negated)
            return
        before = ctx.current()
        then, join = Block(), Block()
        cbr = ctx.emit("cbr", (pred,))
        for block in ((join, then) if guard.negated else (then, join)):
            cbr.add_successor(block)
        ssa = ctx.ssa
        ssa.new_block(then)
        ssa.add_edge(before, then)
        ssa.seal(then)
        ssa.new_block(join)
        ssa.add_edge(before, join)
        self.fn.add_block(then)
        ctx.block = then
        LOWERINGS[ins.opcode](ctx, ins, mods, self)
        if ctx.block is not None:
            ctx.emit("br").add_successor(join)
            ssa.add_edge(ctx.block, join)
        ssa.seal(join)
        ssa.alias(join, before)
        self.fn.add_block(join)
        ctx.block = join
        for var in dict.fromkeys(ctx.written):
            ssa.merge(var, join)


def _resolve(scopes: list[dict[str, Block]], ins: ast.Instruction) -> Block | None:
    if not ins.operands:
        return None
    target = ins.operands[-1]
    name = getattr(target, "name", None)
    if not isinstance(name, str):
        return None
    for scope in reversed(scopes):
        if name in scope:
            return scope[name]
    return None
