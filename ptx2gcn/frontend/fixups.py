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


def _declarations(block: ast.Block) -> Iterator[ast.VariableDecl]:
    for stmt in block.statements:
        if type(stmt) is ast.VariableDecl:
            yield stmt
        elif type(stmt) is ast.Block:
            yield from _declarations(stmt)


def _odd_names(body: ast.Block, params: Sequence[ast.Param]) -> tuple[set[str], set[str]]:
    registers: set[str] = set()
    symbols: set[str] = set()
    for param in params:
        (registers if param.state_space == ".reg" else symbols).add(param.name)
    for decl in _declarations(body):
        target = registers if decl.state_space == ".reg" else symbols
        for declarator in decl.declarators:
            target.update(declarator.names())
    to_register = {n for n in registers if not n.startswith("%")}
    to_symbol = {n for n in symbols if n.startswith("%")} - registers
    return to_register, to_symbol


def classify_function_names(body: ast.Block, params: Sequence[ast.Param],
                            rets: Sequence[ast.Param]) -> ast.Block:
    """Reclassify names in ``body`` by their declarations (see the module docstring)."""
    to_register, to_symbol = _odd_names(body, [*params, *rets])
    return _reclassify(body, to_register, to_symbol)


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
            registers = _odd_names(item.body, [*(item.params or ()), *(item.return_params or ())])[0]
            local = {d for decl in _declarations(item.body) if decl.state_space == ".reg"
                     for declarator in decl.declarators for d in declarator.names()}
            item = replace(item, body=_reclassify(item.body, registers, odd - local))
        fixed.append(item)
    return tuple(fixed)


def _reclassify(body: ast.Block, to_register: set[str], to_symbol: set[str]) -> ast.Block:
    if not to_register and not to_symbol:
        return body

    def fix(op: ast.Operand) -> ast.Operand:
        if type(op) is ast.Symbol and op.name in to_register:
            return ast.Register(op.span, op.name)
        if type(op) is ast.Register and op.name in to_symbol and op.component is None:
            return ast.Symbol(op.span, op.name)
        return _map_children(op, fix)

    return _rewrite_block(body, fix)


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
