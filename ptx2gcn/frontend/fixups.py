"""Name classification that needs declarations: registers spelled without ``%`` and ``%``-symbols.

The lexer classifies a name by spelling (``%x`` is a register, ``x`` a symbol). PTX lets a register
be named ``input`` (``.reg .b32 input;``) and a parameter be named ``%p``; this pass, run once per
function body, turns such references into the right node. Invariant: afterwards every ``Symbol`` in
the body that names a ``.reg`` declared in the function is a ``Register`` and every ``Register``
naming a ``.param``/variable declared in the function (and not a register) is a ``Symbol``. The body
is returned unchanged (same object) when no declaration needs this. ``classify_module_names`` does
the same for ``%``-named module functions and variables (call targets such as ``%f``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from ptx2gcn.frontend import ast
from ptx2gcn.frontend.names import NameSet


def _declarations(block: ast.Block) -> Iterator[ast.VariableDecl]:
    for stmt in block.statements:
        if type(stmt) is ast.VariableDecl:
            yield stmt
        elif type(stmt) is ast.Block:
            yield from _declarations(stmt)


def _declared(body: ast.Block, params: Sequence[ast.Param]) -> tuple[NameSet, NameSet]:
    """(registers, other symbols) declared by the parameters and anywhere in the body."""
    registers, symbols = NameSet(), NameSet()
    for param in params:
        (registers if param.state_space == ".reg" else symbols).add_name(param.name, param.span)
    for decl in _declarations(body):
        target = registers if decl.state_space == ".reg" else symbols
        for declarator in decl.declarators:
            target.add(declarator)
    return registers, symbols


def _any_name(names: NameSet, percent: bool) -> bool:
    return any(n.startswith("%") == percent for n in (*names.explicit, *names.ranges))


def classify_function_names(body: ast.Block, params: Sequence[ast.Param],
                            rets: Sequence[ast.Param]) -> ast.Block:
    """Reclassify names in ``body`` by their declarations (see the module docstring)."""
    registers, symbols = _declared(body, [*params, *rets])
    if not _any_name(registers, percent=False) and not _any_name(symbols, percent=True):
        return body

    def fix(op: ast.Operand) -> ast.Operand:
        if type(op) is ast.Symbol and op.name in registers:
            return ast.Register(op.span, op.name)
        if type(op) is ast.Register and op.component is None and op.name in symbols and op.name not in registers:
            return ast.Symbol(op.span, op.name)
        return _map_children(op, fix)

    return _rewrite_block(body, fix)


def classify_module_names(items: tuple[ast.ModuleItem, ...]) -> tuple[ast.ModuleItem, ...]:
    """Module-level functions and variables spelled ``%name`` are symbols in every body that does
    not declare a register of that name (rare: only machine-written PTX names things so)."""
    globals_ = {item.name for item in items if isinstance(item, ast.Function)}
    globals_.update(d.name for item in items if isinstance(item, ast.VariableDecl) for d in item.declarators)
    odd = {name for name in globals_ if name.startswith("%")}
    if not odd:
        return items
    fixed: list[ast.ModuleItem] = []
    for item in items:
        if isinstance(item, ast.Function) and item.body is not None:
            registers = _declared(item.body, [*(item.params or ()), *(item.return_params or ())])[0]

            def fix(op: ast.Operand, registers: NameSet = registers) -> ast.Operand:
                if type(op) is ast.Register and op.component is None and op.name in odd and op.name not in registers:
                    return ast.Symbol(op.span, op.name)
                return _map_children(op, fix)

            item = replace(item, body=_rewrite_block(item.body, fix))
        fixed.append(item)
    return tuple(fixed)


def _rewrite_block(block: ast.Block, fix: Callable[[ast.Operand], ast.Operand]) -> ast.Block:
    statements: list[ast.Statement] = []
    for stmt in block.statements:
        if type(stmt) is ast.Instruction:
            stmt = replace(stmt, operands=tuple(fix(o) for o in stmt.operands))
        elif type(stmt) is ast.Block:
            stmt = _rewrite_block(stmt, fix)
        statements.append(stmt)
    return replace(block, statements=tuple(statements))


def _map_children(op: ast.Operand, fix: Callable[[ast.Operand], ast.Operand]) -> ast.Operand:
    """Apply ``fix`` to the direct operand children of a compound operand."""
    match op:
        case ast.Address(base=base):
            return replace(op, base=fix(base))
        case ast.Vector(elements=items):
            return replace(op, elements=tuple(fix(i) for i in items))
        case ast.BracketList(items=items) | ast.ParenList(items=items):
            return replace(op, items=tuple(fix(i) for i in items))
        case ast.Pair(first=first, second=second):
            return replace(op, first=fix(first), second=fix(second))
        case ast.Negated(operand=inner) | ast.Not(operand=inner):
            return replace(op, operand=fix(inner))
        case _:
            return op
