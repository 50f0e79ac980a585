"""Canonical PTX text for an AST.

Invariant: for every module ``m`` produced by the parser, ``parse_ptx(print_module(m)) == m`` (AST
equality ignores spans). Canonical layout: one item per line, module-level declarations unindented,
function bodies indented by one tab per nesting level, labels at column 1, operands separated by
``", "``, immediates in their original spelling, declaration words in the order linkage, state
space, attributes (``.attribute(.managed)``, ``.ptr``), alignment, vector, type (nvcc's order).
Dispatch is by node type through tables, not isinstance
ladders.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ptx2gcn.frontend import ast


def print_module(module: ast.Module) -> str:
    """The canonical PTX text of ``module`` (ends with a newline)."""
    lines: list[str] = []
    for item in module.items:
        _ITEM[type(item)](item, lines)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------
# Operands and initializers
# ---------------------------------------------------------------------------------------------------


def operand(op: ast.Operand | ast.InitList | ast.FieldInit) -> str:
    """The PTX spelling of one operand, constant expression or initializer."""
    return _OPERAND[type(op)](op)


def _name_with_component(op: ast.Register | ast.SpecialRegister) -> str:
    return op.name if op.component is None else f"{op.name}.{op.component}"


def _address(op: ast.Address) -> str:
    base = operand(op.base)
    if op.offset is None:
        return f"[{base}]"
    return f"[{base}+{op.offset.text}]"


def _join(items: tuple[Any, ...]) -> str:
    return ", ".join(operand(i) for i in items)


_OPERAND: dict[type, Callable[[Any], str]] = {
    ast.Register: _name_with_component,
    ast.SpecialRegister: _name_with_component,
    ast.Symbol: lambda op: op.name,
    ast.Label: lambda op: op.name,
    ast.IntImmediate: lambda op: op.text,
    ast.FloatImmediate: lambda op: op.text,
    ast.Sink: lambda op: "_",
    ast.Negated: lambda op: f"-{operand(op.operand)}",
    ast.Not: lambda op: f"!{operand(op.operand)}",
    ast.Vector: lambda op: "{" + _join(op.elements) + "}",
    ast.Pair: lambda op: f"{operand(op.first)}|{operand(op.second)}",
    ast.Address: _address,
    ast.BracketList: lambda op: "[" + _join(op.items) + "]",
    ast.ParenList: lambda op: "(" + _join(op.items) + ")",
    ast.Generic: lambda op: f"generic({op.symbol.name})",
    ast.UnaryExpr: lambda op: f"{op.op}{operand(op.operand)}",
    ast.BinaryExpr: lambda op: f"{operand(op.lhs)}{op.op}{operand(op.rhs)}",
    ast.ParenExpr: lambda op: f"({operand(op.expr)})",
    ast.InitList: lambda op: "{" + _join(op.items) + "}",
    ast.FieldInit: lambda op: "{" + ", ".join(f"{name} = {operand(value)}" for name, value in op.fields) + "}",
}

# ---------------------------------------------------------------------------------------------------
# Declarations and parameters
# ---------------------------------------------------------------------------------------------------


def _dims(dims: tuple[int | None, ...]) -> str:
    return "".join("[]" if d is None else f"[{d}]" for d in dims)


def declarator(decl: ast.Declarator) -> str:
    text = decl.name
    if decl.count is not None:
        text += f"<{decl.count}>"
    text += _dims(decl.dims)
    if decl.initializer is not None:
        text += f" = {operand(decl.initializer)}"
    return text


def variable(decl: ast.VariableDecl) -> str:
    space = decl.state_space if decl.bank is None else f"{decl.state_space}[{decl.bank}]"
    words = [*decl.linkage, space, *decl.attributes]
    if decl.align is not None:
        words.append(f".align {decl.align}")
    words += [*([decl.vector] if decl.vector else []), decl.type]
    return " ".join(words) + " " + ", ".join(declarator(d) for d in decl.declarators) + ";"


def param(p: ast.Param) -> str:
    words = [p.state_space]
    if p.align is not None:
        words.append(f".align {p.align}")
    if p.vector:
        words.append(p.vector)
    words.append(p.type)
    if p.is_ptr:
        words.append(".ptr")
        if p.ptr_space:
            words.append(p.ptr_space)
        if p.ptr_align is not None:
            words.append(f".align {p.ptr_align}")
    return " ".join(words) + " " + p.name + _dims(p.dims)


def _param_list(params: tuple[ast.Param, ...] | None) -> str:
    if params is None:
        return ""
    return "(" + ", ".join(param(p) for p in params) + ")"


# ---------------------------------------------------------------------------------------------------
# Directives and statements (each appends whole lines)
# ---------------------------------------------------------------------------------------------------


def instruction(ins: ast.Instruction) -> str:
    text = ""
    if ins.guard is not None:
        text = f"@{'!' if ins.guard.negated else ''}{ins.guard.predicate.name} "
    text += ins.opcode + "".join(ins.modifiers)
    if ins.operands:
        text += " " + _join(ins.operands)
    return text + ";"


def _loc(loc: ast.LocDirective) -> str:
    text = f".loc {loc.file_index} {loc.line} {loc.column}"
    if loc.function_name is not None:
        text += f", function_name {loc.function_name.name}"
        if loc.function_name_offset is not None:
            text += f"+{loc.function_name_offset}"
    if loc.inlined_at is not None:
        text += ", inlined_at {} {} {}".format(*loc.inlined_at)
    return text


def _file(f: ast.FileDirective) -> str:
    text = f'.file {f.index} "{f.path}"'
    if f.timestamp is not None:
        text += f", {f.timestamp}, {f.size}"
    return text


def _perf(d: ast.PerformanceDirective | ast.PragmaDirective) -> str:
    if isinstance(d, ast.PragmaDirective):
        return _pragma(d)
    return d.name + (" " + ", ".join(str(v) for v in d.values) if d.values else "")


def _pragma(p: ast.PragmaDirective) -> str:
    return ".pragma " + ", ".join(f'"{v}"' for v in p.values) + ";"


def _section(s: ast.SectionDirective, lines: list[str]) -> None:
    lines.append(f".section {s.name}")
    lines.append("{")
    for entry in s.entries:
        if isinstance(entry, ast.LabelDecl):
            lines.append(f"{entry.name}:")
        else:
            lines.append(f"\t{entry.type} {_join(entry.values)}")
    lines.append("}")


def _prototype(p: ast.CallPrototype) -> str:
    rets = _param_list(p.return_params)
    params = _param_list(p.params)
    text = f"{p.name}: .callprototype " + (f"{rets} " if rets else "") + "_" + (f" {params}" if params else "")
    return text + (" .noreturn" if p.noreturn else "") + ";"


def _function(f: ast.Function, lines: list[str]) -> None:
    head = " ".join([*f.linkage, f.kind])
    rets = _param_list(f.return_params)
    if rets:
        head += " " + rets
    head += " " + f.name + _param_list(f.params)
    if lines:
        lines.append("")
    if f.body is None and not f.directives:
        lines.append(head + ";")
        return
    lines.append(head)
    lines.extend(_perf(d) for d in f.directives)
    if f.body is None:
        lines.append(";")
    else:
        _block(f.body, lines, 1)


def _statement(stmt: ast.Statement, lines: list[str], depth: int) -> None:
    indent = "\t" * depth
    match stmt:
        case ast.Instruction():
            lines.append(indent + instruction(stmt))
        case ast.LabelDecl():
            lines.append(f"{stmt.name}:")
        case ast.Block():
            _block(stmt, lines, depth + 1)
        case _:
            _STATEMENT[type(stmt)](stmt, lines, indent)


def _block(block: ast.Block, lines: list[str], depth: int) -> None:
    lines.append("\t" * (depth - 1) + "{")
    for stmt in block.statements:
        _statement(stmt, lines, depth)
    lines.append("\t" * (depth - 1) + "}")


def _line(render: Callable[[Any], str]) -> Callable[[Any, list[str], str], None]:
    return lambda node, lines, indent: lines.append(indent + render(node))


_STATEMENT: dict[type, Callable[[Any, list[str], str], None]] = {
    ast.VariableDecl: _line(variable),
    ast.LocDirective: _line(_loc),
    ast.PragmaDirective: _line(_pragma),
    ast.BranchTargets: _line(lambda b: f"{b.name}: .branchtargets {', '.join(b.targets)};"),
    ast.CallTargets: _line(lambda b: f"{b.name}: .calltargets {', '.join(b.targets)};"),
    ast.CallPrototype: _line(_prototype),
    ast.FileDirective: _line(_file),
    ast.DwarfDirective: _line(lambda d: f"@@DWARF {d.text}"),
    ast.SectionDirective: lambda node, lines, indent: _section(node, lines),
}

_ITEM: dict[type, Callable[[Any, list[str]], None]] = {
    ast.VersionDirective: lambda v, lines: lines.append(f".version {v.major}.{v.minor}"),
    ast.TargetDirective: lambda t, lines: lines.append(".target " + ", ".join(t.targets)),
    ast.AddressSizeDirective: lambda a, lines: lines.append(f".address_size {a.size}"),
    ast.FileDirective: lambda f, lines: lines.append(_file(f)),
    ast.LocDirective: lambda d, lines: lines.append(_loc(d)),
    ast.SectionDirective: _section,
    ast.DwarfDirective: lambda d, lines: lines.append(f"@@DWARF {d.text}"),
    ast.PragmaDirective: lambda p, lines: lines.append(_pragma(p)),
    ast.VariableDecl: lambda v, lines: lines.append(variable(v)),
    ast.AliasDirective: lambda a, lines: lines.append(f".alias {a.alias}, {a.aliasee};"),
    ast.Function: _function,
}
