"""Deterministic text form of the IR (the inverse of ``ptx2gcn.ir.parser``).

Invariant: ``print_module`` depends only on the module's content and order, never on object
identities, and every name it prints is unique in its scope, so ``print(parse(print(m)))`` equals
``print(m)``. Grammar (one item per line)::

    module "file.ptx" version "7.0" target "sm_80" address_size 64
    global.<space> @name : <ptx type>[N] align A [linkage] [= [v0, v1, ...]]
    <kernel|func> @name [linkage] (<param>, ...) [-> (<param>, ...)] [<directive> v, ...]* [{ ... }]
      <param> := <kparam|param|reg> <ptx type>[N] %name size S align A [ptr <space> [align P]]
    ^label(%arg: type, ...):
      %r0, %r1 = opname %x, %y [-> ^b1(%v, ...), ^b2] [{key = value, flag}] [: type, ...]

Float constants get a trailing ``// value`` comment; comments are ignored by the parser.
"""

from __future__ import annotations

import re
import struct

from ptx2gcn.ir.core import Attr, Block, Function, Global, Module, Op, Param, Value
from ptx2gcn.ir.types import FloatType, Type

_NAME_RE = re.compile(r"[A-Za-z0-9_$.]+\Z")
_WORD_RE = re.compile(r"[A-Za-z_$][A-Za-z0-9_$.:]*\Z")


class _Names:
    """Unique printable names for values and blocks of one function."""

    def __init__(self) -> None:
        self.values: dict[Value, str] = {}
        self.blocks: dict[Block, str] = {}
        self._used: set[str] = set()
        self._used_blocks: set[str] = set()
        self._suffix: dict[str, int] = {}
        """The next suffix to try per hint (keeps naming linear for much-reassigned registers)."""
        self._counter = 0

    def _fresh(self, hint: str) -> str:
        if hint and _NAME_RE.match(hint) and hint not in self._used:
            self._used.add(hint)
            return hint
        if hint and _NAME_RE.match(hint):
            suffix = self._suffix.get(hint, 1)
            while f"{hint}.{suffix}" in self._used:
                suffix += 1
            self._suffix[hint] = suffix + 1
            name = f"{hint}.{suffix}"
        else:
            while str(self._counter) in self._used:
                self._counter += 1
            name = str(self._counter)
        self._used.add(name)
        return name

    def value(self, value: Value) -> str:
        name = self.values.get(value)
        if name is None:
            name = self._fresh(value.name)
            self.values[value] = name
        return name

    def block(self, block: Block) -> str:
        name = self.blocks.get(block)
        if name is None:
            name = self._fresh_block(block.label)
            self.blocks[block] = name
        return name

    def _fresh_block(self, hint: str) -> str:
        used = self._used_blocks
        named = bool(hint) and _NAME_RE.match(hint) is not None
        base = hint if named else "bb"
        name = base
        if not named or name in used:
            sep = "." if named else ""
            index = self._suffix.get("^" + base, 1 if named else 0)
            while f"{base}{sep}{index}" in used:
                index += 1
            self._suffix["^" + base] = index + 1
            name = f"{base}{sep}{index}"
        used.add(name)
        return name


def format_attr(value: Attr) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if _WORD_RE.match(value) and value not in ("true", "false"):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _format_attrs(attrs: dict[str, Attr]) -> str:
    if not attrs:
        return ""
    parts = [key if value is True else f"{key} = {format_attr(value)}" for key, value in sorted(attrs.items())]
    return " {" + ", ".join(parts) + "}"


def _float_comment(op: Op) -> str:
    if op.name != "const" or not op.results:
        return ""
    t = op.results[0].type
    value = op.attrs.get("value")
    if not isinstance(t, FloatType) or not isinstance(value, int):
        return ""
    if t.kind == "f32":
        return f"  // {struct.unpack('<f', struct.pack('<I', value & 0xFFFFFFFF))[0]!r}"
    if t.kind == "f64":
        return f"  // {struct.unpack('<d', struct.pack('<Q', value & (1 << 64) - 1))[0]!r}"
    if t.kind == "f16":
        return f"  // {struct.unpack('<e', struct.pack('<H', value & 0xFFFF))[0]!r}"
    return ""


def print_op(op: Op, names: _Names, with_locs: bool = False) -> str:
    parts: list[str] = []
    if op.results:
        parts.append(", ".join("%" + names.value(r) for r in op.results) + " = ")
    parts.append(op.name)
    if op.operands:
        parts.append(" " + ", ".join("%" + names.value(u.value) for u in op.operands))
    if op.successors:
        targets: list[str] = []
        for succ in op.successors:
            text = "^" + names.block(succ.block)
            if succ.args:
                text += "(" + ", ".join("%" + names.value(u.value) for u in succ.args) + ")"
            targets.append(text)
        parts.append(" -> " + ", ".join(targets))
    parts.append(_format_attrs(op.attrs))
    if op.results:
        parts.append(" : " + ", ".join(str(r.type) for r in op.results))
    if with_locs and op.loc is not None and op.loc.line > 0:
        parts.append(f" loc({op.loc.line}:{op.loc.column})")
    parts.append(_float_comment(op))
    return "".join(parts)


def _print_param(param: Param, names: _Names, value: Value | None) -> str:
    count = "" if param.count == 0 else ("[]" if param.count < 0 else f"[{param.count}]")
    name = names.value(value) if value is not None else param.name.lstrip("%")
    text = f"{param.space} {param.ptx_type}{count} %{name} size {param.size} align {param.align}"
    if param.ptr_space:
        text += f" ptr {param.ptr_space}"
        if param.ptr_align:
            text += f" align {param.ptr_align}"
    return text


def _print_signature(fn: Function, names: _Names) -> str:
    args: list[Value | None] = list(fn.entry.args) if fn.blocks else []
    slots = fn.abi_params
    by_param: dict[int, Value | None] = {id(p): (args[i] if i < len(args) else None)
                                         for i, p in enumerate(slots)}
    head = f"{fn.kind} @{fn.name}"
    if fn.linkage:
        head += f" {fn.linkage}"
    head += " (" + ", ".join(_print_param(p, names, by_param.get(id(p))) for p in fn.params) + ")"
    if fn.returns:
        head += " -> (" + ", ".join(_print_param(p, names, by_param.get(id(p))) for p in fn.returns) + ")"
    for key, values in sorted(fn.directives.items()):
        head += f" {key}" + ("" if not values else " " + ", ".join(str(v) for v in values))
    return head


def print_function(fn: Function, with_locs: bool = False) -> str:
    names = _Names()
    lines = [_print_signature(fn, names) + (" {" if fn.blocks else "")]
    for block in fn.blocks:
        head = "^" + names.block(block)
        if block.args:
            head += "(" + ", ".join(f"%{names.value(a)}: {a.type}" for a in block.args) + ")"
        lines.append(head + ":")
        lines.extend("  " + print_op(op, names, with_locs) for op in block.ops)
    if fn.blocks:
        lines.append("}")
    return "\n".join(lines)


def print_global(var: Global) -> str:
    count = "" if var.count == 0 else ("[]" if var.count < 0 else f"[{var.count}]")
    text = f"global.{var.space.value} @{var.name} : {var.ptx_type}{count} align {var.align}"
    if var.linkage:
        text += f" {var.linkage}"
    if var.init is not None:
        text += " = [" + ", ".join(str(v) for v in var.init) + "]"
    if var.sampler:
        text += " sampler {" + ", ".join(f"{k} = {v}" for k, v in var.sampler) + "}"
    return text


def print_module(module: Module, with_locs: bool = False) -> str:
    """The module's text form, ending with a newline."""
    lines = [f'module "{module.source}" version "{module.version}" target "{module.target}" '
             f"address_size {module.address_size}"]
    lines.extend(print_global(var) for var in module.globals)
    for fn in module.functions:
        lines.append("")
        lines.append(print_function(fn, with_locs))
    return "\n".join(lines) + "\n"


def type_text(t: Type) -> str:
    return str(t)
