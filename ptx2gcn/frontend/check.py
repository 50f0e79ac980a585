"""Module-level semantic checks on a parsed PTX AST: names, duplicates, directive shapes.

Invariant: ``check_module`` never raises for a parser-produced module; it returns every problem it
finds as an error ``Diagnostic`` located at the offending use or declaration (with a note at the
earlier declaration for duplicates), in source order per function. Checked:

* registers used in an instruction or guard are declared (``.reg`` in the function or an enclosing
  ``{ }`` scope, or a ``.reg`` parameter); ``.reg .b32 %r<10>`` declares ``%r0`` … ``%r9``;
* branch targets are labels of the same function; other names resolve to a parameter, a variable in
  scope, a module-level variable or function, a call prototype or a branch/call-target list;
* module-level names are declared (a function at least by a prototype) before they are used, in
  bodies and in initializers, as ptxas requires;
* no name is declared twice in one scope (a function may be declared before it is defined once);
* module directives: one ``.version`` first, one ``.target`` naming known targets that this PTX
  version supports (``ptx2gcn.frontend.targets``), at most one
  ``.address_size``, no ``.file`` index twice; ``.calltargets`` name declared functions;
  performance directives carry the number of values PTX allows, and only where PTX allows them;
* kernel parameters are ``.param``; ``.reg/.param/.local`` variables are function-scoped and carry
  no linkage directive (ptxas rules with the ABI, i.e. for every target since sm_20);
* (warning) every ``.loc`` file index has a ``.file`` directive.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ptx2gcn.diagnostics import Diagnostic, Severity, Span, note
from ptx2gcn.frontend import ast
from ptx2gcn.frontend.names import NameSet
from ptx2gcn.frontend.targets import version_problem

# https://docs.nvidia.com/cuda/parallel-thread-execution/#predefined-identifiers (the %-names are
# SpecialRegister nodes; WARP_SZ is the one plain-name constant).
PREDEFINED_NAMES: frozenset[str] = frozenset({"WARP_SZ"})

# name → (min values, max values, allowed on .entry, allowed on .func)
# https://docs.nvidia.com/cuda/parallel-thread-execution/#performance-tuning-directives
_PERF_SHAPES: dict[str, tuple[int, int, bool, bool]] = {
    ".maxntid": (1, 3, True, False), ".reqntid": (1, 3, True, False),
    ".minnctapersm": (1, 1, True, False), ".maxnctapersm": (1, 1, True, False),
    ".maxnreg": (1, 1, True, True), ".noreturn": (0, 0, False, True),
    ".maxclusterrank": (1, 1, True, False), ".reqnctapercluster": (1, 3, True, False),
    ".explicitcluster": (0, 0, True, False), ".blocksareclusters": (0, 0, True, False),
    ".abi_preserve": (1, 1, True, True), ".abi_preserve_control": (1, 1, True, True),
}


def _error(span: Span | None, message: str, *notes: Diagnostic) -> Diagnostic:
    return Diagnostic(Severity.ERROR, span, message, tuple(notes))


def operand_leaves(op: ast.Operand) -> Iterator[ast.Operand]:
    """The name-like leaves (Register, SpecialRegister, Symbol, Label) inside an operand."""
    match op:
        case ast.Register() | ast.SpecialRegister() | ast.Symbol() | ast.Label():
            yield op
        case ast.Address(base=base):
            yield from operand_leaves(base)
        case ast.Vector(elements=items) | ast.BracketList(items=items) | ast.ParenList(items=items):
            for item in items:
                yield from operand_leaves(item)
        case ast.Pair(first=first, second=second) | ast.BinaryExpr(lhs=first, rhs=second):
            yield from operand_leaves(first)
            yield from operand_leaves(second)
        case ast.Negated(operand=inner) | ast.Not(operand=inner) | ast.UnaryExpr(operand=inner):
            yield from operand_leaves(inner)
        case ast.ParenExpr(expr=inner):
            yield from operand_leaves(inner)
        case ast.Generic(symbol=symbol):
            yield symbol
        case _:
            return


# ptxas (with the ABI, i.e. every target since sm_20) rejects these at module scope.
_FUNCTION_ONLY_SPACES = frozenset({".reg", ".param", ".local"})


def _uses_abi(module: ast.Module) -> bool:
    """False only for sm_1x targets (PTX before the ABI allowed module-scope .reg and .local)."""
    target = module.target
    return target is None or not any(re.fullmatch(r"sm_1[0-3]", t) for t in target.targets)


def _check_array_sizes(decl: ast.VariableDecl, out: list[Diagnostic]) -> None:
    """``x[]`` needs an initializer to size it, or ``.extern`` (dynamic shared memory)."""
    if ".extern" in decl.linkage:
        return
    for declarator in decl.declarators:
        if None in declarator.dims and declarator.initializer is None:
            out.append(_error(declarator.span, f"array '{declarator.name}' has no size: give one, "
                                               "an initializer, or declare it .extern"))


class _Scope:
    """Registers and symbols declared in one ``{ }`` scope, with their declaring spans."""

    __slots__ = ("registers", "symbols")

    def __init__(self) -> None:
        self.registers = NameSet()
        self.symbols = NameSet()


class _FunctionChecker:
    """Checks one function body against the module's global names."""

    def __init__(self, visible: set[str], globals_: dict[str, Span], out: list[Diagnostic]) -> None:
        self.visible = visible  # module names declared before (and including) this function
        self.globals = globals_  # all module names, to explain a use before the declaration
        self.out = out
        self.scopes: list[_Scope] = []
        self.labels: dict[str, Span] = {}

    def run(self, function: ast.Function) -> None:
        assert function.body is not None
        top = _Scope()
        for p in (*(function.return_params or ()), *(function.params or ())):
            if function.is_kernel and None in p.dims:
                self.out.append(_error(p.span, f"kernel parameter '{p.name}' cannot be an array of unknown size"))
            if function.is_kernel and p.state_space != ".param":
                self.out.append(_error(p.span, f"kernel parameter '{p.name}' must be in the .param state space"))
            table = top.registers if p.state_space == ".reg" else top.symbols
            self._clash(table.add_name(p.name, p.span), p.name, p.span, "parameter")
        self.scopes.append(top)
        self._collect_labels(function.body)
        self._block(function.body, new_scope=False)

    def _clash(self, previous: Span | None, name: str, span: Span, what: str) -> None:
        if previous is not None:
            self.out.append(_error(span, f"duplicate declaration of {what} '{name}'",
                                   note(previous, "previous declaration is here")))

    def _declare(self, table: dict[str, Span], name: str, span: Span, what: str) -> None:
        previous = table.get(name)
        if previous is not None:
            self.out.append(_error(span, f"duplicate declaration of {what} '{name}'",
                                   note(previous, "previous declaration is here")))
        else:
            table[name] = span

    def _collect_labels(self, block: ast.Block) -> None:
        for stmt in block.statements:
            if isinstance(stmt, (ast.LabelDecl, ast.BranchTargets, ast.CallTargets, ast.CallPrototype)):
                self._declare(self.labels, stmt.name, stmt.span, "label")
            elif isinstance(stmt, ast.Block):
                self._collect_labels(stmt)

    def _block(self, block: ast.Block, new_scope: bool = True) -> None:  # noqa: C901
        if new_scope:
            self.scopes.append(_Scope())
        for stmt in block.statements:
            match stmt:
                case ast.Instruction():
                    self._instruction(stmt)
                case ast.VariableDecl():
                    self._variable(stmt)
                case ast.Block():
                    self._block(stmt)
                case ast.BranchTargets(targets=targets):
                    for target in targets:
                        if target not in self.labels:
                            self.out.append(_error(stmt.span, f"undeclared label '{target}' in .branchtargets"))
                case ast.CallTargets(targets=targets):
                    for target in targets:
                        if target not in self.visible:
                            self.out.append(_error(stmt.span, f"undeclared function '{target}' in .calltargets"))
                case _:
                    pass
        if new_scope:
            self.scopes.pop()

    def _variable(self, decl: ast.VariableDecl) -> None:
        _check_array_sizes(decl, self.out)
        if decl.linkage:
            self.out.append(_error(decl.span, f"'{decl.linkage[0]}' is only allowed on module-scope declarations"))
        scope = self.scopes[-1]
        table = scope.registers if decl.state_space == ".reg" else scope.symbols
        what = "register" if table is scope.registers else "variable"
        for declarator in decl.declarators:
            self._clash(table.add(declarator), declarator.name, declarator.span, what)

    def _instruction(self, ins: ast.Instruction) -> None:
        if ins.guard is not None:
            self._register(ins.guard.predicate)
        for op in ins.operands:
            kind = type(op)
            if kind is ast.Register:  # the common operands, without walking their leaves
                self._register(op)
            elif kind is ast.IntImmediate or kind is ast.SpecialRegister:
                continue
            else:
                for leaf in operand_leaves(op):
                    self._leaf(leaf)

    def _leaf(self, leaf: ast.Operand) -> None:
        if isinstance(leaf, ast.Register):
            self._register(leaf)
        elif isinstance(leaf, ast.Label):
            if leaf.name not in self.labels:
                self.out.append(_error(leaf.span, f"undeclared label '{leaf.name}'"))
        elif isinstance(leaf, ast.Symbol):
            self._symbol(leaf)

    def _register(self, reg: ast.Register) -> None:
        name = reg.name
        for scope in self.scopes:
            if name in scope.registers:
                return
        self.out.append(_error(reg.span, f"undeclared register '{reg.name}'"))

    def _symbol(self, sym: ast.Symbol) -> None:
        name = sym.name
        if name in self.visible or name in self.labels or name in PREDEFINED_NAMES:
            return
        if any(name in s.symbols or name in s.registers for s in self.scopes):
            return
        later = self.globals.get(name)
        if later is not None:
            self.out.append(_error(sym.span, f"'{name}' is used before its declaration",
                                   note(later, "declared here; PTX needs a declaration (or prototype) first")))
        else:
            self.out.append(_error(sym.span, f"undeclared name '{name}'"))


def _module_names(module: ast.Module, out: list[Diagnostic]) -> dict[str, Span]:  # noqa: C901
    """Module-level names; a function may be declared many times but defined once, and an
    ``.extern`` variable may be declared again (by its definition)."""
    names: dict[str, Span] = {}
    functions: set[str] = set()
    externs: set[str] = set()
    defined: dict[str, Span] = {}
    for item in module.items:
        if isinstance(item, ast.Function):
            if item.body is not None:
                if item.name in defined:
                    out.append(_error(item.span, f"function '{item.name}' is defined twice",
                                      note(defined[item.name], "first definition is here")))
                defined[item.name] = item.span
            if item.name in names and item.name not in functions:
                out.append(_error(item.span, f"'{item.name}' is already declared as a variable",
                                  note(names[item.name], "previous declaration is here")))
            names.setdefault(item.name, item.span)
            functions.add(item.name)
        elif isinstance(item, ast.VariableDecl):
            _check_array_sizes(item, out)
            if item.state_space in _FUNCTION_ONLY_SPACES and _uses_abi(module):
                out.append(_error(item.span, f"{item.state_space} variables cannot be declared at module scope"))
            extern = ".extern" in item.linkage
            external = extern or bool({".visible", ".weak", ".common"} & set(item.linkage))
            for declarator in item.declarators:
                name = declarator.name
                if name in names and not (extern or name in externs):
                    out.append(_error(declarator.span, f"duplicate declaration of '{name}'",
                                      note(names[name], "previous declaration is here")))
                elif name in externs and not external:
                    out.append(_error(declarator.span, f"'.extern' variable '{name}' can only be defined "
                                                       "with .visible, .weak or .common linkage",
                                      note(names[name], ".extern declaration is here")))
                names.setdefault(name, declarator.span)
                if extern:
                    externs.add(name)
        elif isinstance(item, ast.AliasDirective):
            names.setdefault(item.alias, item.span)
    return names


# https://docs.nvidia.com/cuda/parallel-thread-execution/#ptx-module-directives-target
_TARGET = re.compile(r"(?:sm|compute)_[0-9]+[af]?|texmode_unified|texmode_independent|debug|map_f64_to_f32")


def _check_targets_and_files(module: ast.Module, out: list[Diagnostic]) -> None:
    files: dict[int, Span] = {}
    version = module.version
    for item in module.items:
        if isinstance(item, ast.TargetDirective):
            for name in item.targets:
                if _TARGET.fullmatch(name) is None:
                    out.append(_error(item.span, f"unknown .target '{name}' (expected sm_XX, texmode_*, "
                                                 "debug or map_f64_to_f32)"))
                elif version is not None and (problem := version_problem(version.major, version.minor, name)):
                    out.append(_error(item.span, problem, note(version.span, ".version is here")))
        elif isinstance(item, ast.FileDirective):
            if item.index in files:
                out.append(_error(item.span, f"duplicate .file index {item.index}",
                                  note(files[item.index], "first declared here")))
            files.setdefault(item.index, item.span)


def _check_directives(module: ast.Module, out: list[Diagnostic]) -> None:
    _check_targets_and_files(module, out)
    seen: dict[type, Span] = {}
    for index, item in enumerate(module.items):
        kind = type(item)
        if kind in (ast.VersionDirective, ast.TargetDirective, ast.AddressSizeDirective):
            if kind in seen:
                out.append(_error(item.span, "this directive may appear only once per module",
                                  note(seen[kind], "first one is here")))
            seen[kind] = item.span
        if kind is ast.VersionDirective and index != 0:
            out.append(_error(item.span, ".version must be the first directive of the module"))
    if module.items and ast.VersionDirective not in seen:
        out.append(_error(module.items[0].span, "missing .version directive at the start of the module"))
    if module.items and ast.TargetDirective not in seen:
        out.append(_error(module.items[0].span, "missing .target directive"))


def _check_performance(function: ast.Function, out: list[Diagnostic]) -> None:
    for directive in function.directives:
        if not isinstance(directive, ast.PerformanceDirective):
            continue
        low, high, on_entry, on_func = _PERF_SHAPES[directive.name]
        count = len(directive.values)
        if not low <= count <= high:
            wanted = f"{low}" if low == high else f"{low} to {high}"
            out.append(_error(directive.span, f"{directive.name} takes {wanted} value(s), not {count}"))
        if not (on_entry if function.is_kernel else on_func):
            out.append(_error(directive.span, f"{directive.name} is not allowed on a {function.kind}"))
        if any(v <= 0 for v in directive.values) and directive.name != ".abi_preserve":
            out.append(_error(directive.span, f"{directive.name} values must be positive"))


def _check_loc_files(module: ast.Module, out: list[Diagnostic]) -> None:
    """A ``.loc`` naming a file index with no ``.file`` anywhere in the module is a warning (ptxas
    warns too: the line information is incomplete). nvcc may put ``.file`` after its uses."""
    files = {item.index for item in module.items if isinstance(item, ast.FileDirective)}
    blocks = [f.body for f in module.functions if f.body is not None]
    locs = [item for item in module.items if isinstance(item, ast.LocDirective)]
    while blocks:
        for stmt in blocks.pop().statements:
            if isinstance(stmt, ast.LocDirective):
                locs.append(stmt)
            elif isinstance(stmt, ast.Block):
                blocks.append(stmt)
    reported: set[int] = set()
    for loc in locs:
        if loc.file_index not in files and loc.file_index not in reported:
            reported.add(loc.file_index)
            out.append(Diagnostic(Severity.WARNING, loc.span,
                                  f".loc refers to file {loc.file_index}, which no .file directive declares"))


def _check_initializers(decl: ast.VariableDecl, visible: set[str], out: list[Diagnostic]) -> None:
    """Names in a module-level initializer (``generic(a)``, ``fptr = f``) must be declared before."""
    pending: list[ast.Initializer] = [d.initializer for d in decl.declarators if d.initializer is not None]
    while pending:
        init = pending.pop()
        if isinstance(init, ast.InitList):
            pending.extend(init.items)
        elif not isinstance(init, ast.FieldInit):  # sampler fields hold enum words, not names
            for leaf in operand_leaves(init):
                if isinstance(leaf, ast.Symbol) and leaf.name not in visible:
                    out.append(_error(leaf.span, f"undeclared name '{leaf.name}' in initializer "
                                                 "(PTX needs it declared before this variable)"))


def check_module(module: ast.Module) -> list[Diagnostic]:
    """All semantic problems of ``module`` (empty when it is clean); see the module docstring.
    Errors have ``Severity.ERROR``; the only warning is a ``.loc`` without its ``.file``."""
    out: list[Diagnostic] = []
    _check_directives(module, out)
    _check_loc_files(module, out)
    globals_ = _module_names(module, out)
    visible: set[str] = set()  # grows in source order: PTX names must be declared before use
    for item in module.items:
        if isinstance(item, ast.VariableDecl):
            visible.update(d.name for d in item.declarators)
            _check_initializers(item, visible, out)
        elif isinstance(item, ast.AliasDirective):
            visible.add(item.alias)
        elif isinstance(item, ast.Function):
            visible.add(item.name)
            _check_performance(item, out)
            if item.body is not None:
                _FunctionChecker(visible, globals_, out).run(item)
    return out
