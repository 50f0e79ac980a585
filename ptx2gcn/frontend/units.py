"""Split a PTX module into compilation units that can be compiled one at a time (the lazy JIT).

``split_units(text, filename)`` parses and checks the module's declarations (directives,
variables, function headers; function bodies are parsed when their unit compiles, or here with
``check_bodies``) and returns how to cut it into units:

- A **unit** is a set of kernels and the module-scope data they own, compiled together as one PTX
  text (``Unit.ranges``; the runtime's ``ptx2gcn.runtime.driver.jit.unit_text`` assembles it): the
  module's header directives, every top-level item the unit's kernels reach (functions they call
  or take the address of, variables they name, transitively), in source order. Items left out are
  replaced by their newlines only, so every line keeps its number and a diagnostic from compiling
  a unit points at the same ``file:line:col`` as one from compiling the whole module.
- Kernels that reach the same module-scope **data** (a ``.global`` or ``.const`` variable defined
  here, or a function declaring one in its body) share one unit: data must exist once per module,
  since every kernel and the host (``cuModuleGetGlobal``) must see the same bytes. A variable whose
  initializer names a kernel (a kernel pointer stored in a global) pulls that kernel into its unit.
  Data no kernel reaches forms a unit without kernels, compiled when the host asks for it.
- Every other kernel is a unit of its own.

Reach is found by name: an identifier in an item's text that names a top-level item. This can only
over-approximate (a register or label spelled like a module-level name pulls that item in, which
costs compile time, never correctness). ``.section`` debug data and ``@@DWARF`` lines are left out
of every unit: no stage after the parser reads them.

Invariant: the units partition the module's kernels and its module-scope data; each unit's text is
valid PTX whenever the whole module is (a subsequence of its items, declarations before uses kept in
order, names unchanged); the result is a pure function of the text (plain data: ``to_json``).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from ptx2gcn.compile_gc import gc_paused
from ptx2gcn.diagnostics import Ptx2GcnError, Severity
from ptx2gcn.frontend import ast, parse_ptx
from ptx2gcn.frontend.check import check_module

_IDENT = re.compile(r"[A-Za-z_$%][A-Za-z0-9_$]*")
_BODY_DATA = re.compile(r"(?m)^\s*(?:\.(?:visible|extern|weak|common)\s+)*\.(?:global|const)\s")
_HEADER = (ast.VersionDirective, ast.TargetDirective, ast.AddressSizeDirective, ast.FileDirective,
           ast.PragmaDirective, ast.LocDirective)
_DEBUG = (ast.SectionDirective, ast.DwarfDirective)
_LINE_DIRECTIVES = (ast.VersionDirective, ast.TargetDirective, ast.AddressSizeDirective, ast.FileDirective,
                    ast.LocDirective)


@dataclass(frozen=True, slots=True)
class Unit:
    """Kernels compiled together, the module-scope data they own, and the items of their text."""

    kernels: tuple[str, ...]
    globals: tuple[str, ...]
    """Names of the ``.global``/``.const`` variables defined in this unit (``cuModuleGetGlobal``)."""
    ranges: tuple[tuple[int, int], ...]
    """Character ranges [start, end) of the module text that make up the unit, ascending."""


@dataclass(frozen=True, slots=True)
class ModuleUnits:
    units: tuple[Unit, ...]

    def to_json(self) -> dict[str, object]:
        return {"units": [{"kernels": list(u.kernels), "globals": list(u.globals),
                           "ranges": [list(r) for r in u.ranges]} for u in self.units]}


@dataclass(slots=True)
class _Item:
    start: int
    end: int
    names: tuple[str, ...]
    kind: str
    """``header``, ``kernel``, ``function``, ``data`` (module data), ``other`` (declarations), ``debug``."""
    mentions: frozenset[str] = frozenset()


def _offsets(text: str) -> list[int]:
    """Character offset of the start of each line (index 0 is line 1)."""
    return [0, *itertools.accumulate(len(line) + 1 for line in text.split("\n"))]


def _kind_and_names(item: ast.ModuleItem, body: str) -> tuple[str, tuple[str, ...]]:
    if isinstance(item, _HEADER):
        return "header", ()
    if isinstance(item, _DEBUG):
        return "debug", ()
    if isinstance(item, ast.Function):
        if item.kind == ".entry":
            return "kernel", (item.name,)
        return ("data" if item.body is not None and _BODY_DATA.search(body) else "function"), (item.name,)
    if isinstance(item, ast.VariableDecl):
        names = tuple(d.name for d in item.declarators)
        defined = ".extern" not in item.linkage
        return ("data" if defined and item.state_space in (".global", ".const") else "other"), names
    if isinstance(item, ast.AliasDirective):
        return "function", (item.alias,)
    return "header", ()


def item_ranges(module: ast.Module, text: str) -> list[tuple[int, int]]:
    """The character range [start, end) of each of ``module.items`` in its source ``text``."""
    lines = _offsets(text)
    out: list[tuple[int, int]] = []
    for item in module.items:
        span = item.span
        start = lines[span.line - 1] + span.column - 1
        end = lines[span.end_line - 1] + span.end_column - 1 if span.end_line else len(text)
        if isinstance(item, (ast.VariableDecl, ast.AliasDirective, ast.PragmaDirective)) or (
            isinstance(item, ast.Function) and item.body is None
        ):
            # The parser's span may stop at the last declarator; the item ends at its ';' (which
            # cannot occur inside dimensions, initializers or parameter lists).
            semicolon = text.find(";", end - 1)
            end = semicolon + 1 if semicolon >= 0 else end
        elif isinstance(item, _LINE_DIRECTIVES):
            newline = text.find("\n", end - 1)  # line-based: the parser's span may stop before the line ends
            end = newline if newline >= 0 else len(text)
        out.append((start, end))
    return out


def _items(module: ast.Module, text: str) -> list[_Item]:
    out: list[_Item] = []
    for item, (start, end) in zip(module.items, item_ranges(module, text), strict=True):
        kind, names = _kind_and_names(item, text[start:end])
        out.append(_Item(start, end, names, kind))
    return out


class _Sets:
    """Union-find over item indices."""

    def __init__(self, count: int) -> None:
        self.parent = list(range(count))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _reach(start: int, by_name: dict[str, list[int]], items: list[_Item]) -> set[int]:
    """Indices of the items ``items[start]`` reaches by name, itself included (iterative)."""
    seen = {start}
    work = [start]
    while work:
        for name in items[work.pop()].mentions:
            for j in by_name.get(name, ()):
                if j not in seen:
                    seen.add(j)
                    work.append(j)
    return seen


def _find_mentions(items: list[_Item], text: str) -> dict[str, list[int]]:
    """Fill each item's ``mentions``; returns the items by name."""
    by_name: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        for name in item.names:
            by_name.setdefault(name, []).append(index)
    for item in items:
        if item.kind not in ("header", "debug"):
            found = by_name.keys() & set(_IDENT.findall(text, item.start, item.end))
            item.mentions = frozenset(found.difference(item.names))
    return by_name


def _groups(items: list[_Item], reach: dict[int, set[int]]) -> list[list[int]]:
    """The roots (kernels, data) grouped into units: data joins everything that reaches it, and a
    variable pulls in the kernels it names."""
    sets = _Sets(len(items))
    for i, reached in reach.items():
        for j in reached:
            if items[j].kind == "data" or (items[i].kind == "data" and items[j].kind == "kernel"):
                sets.union(i, j)
    groups: dict[int, list[int]] = {}
    for i in reach:
        groups.setdefault(sets.find(i), []).append(i)
    return sorted(groups.values(), key=lambda m: _unit_order(m, items))


def plan_units(module: ast.Module, text: str) -> ModuleUnits:
    """The units of a parsed ``module`` whose source is ``text``."""
    items = _items(module, text)
    by_name = _find_mentions(items, text)
    reach = {i: _reach(i, by_name, items) for i, item in enumerate(items) if item.kind in ("kernel", "data")}
    header = {i for i, item in enumerate(items) if item.kind == "header"}
    units: list[Unit] = []
    for members in _groups(items, reach):
        included = sorted(header.union(*(reach[i] for i in members)))
        kernels = tuple(n for i in members if items[i].kind == "kernel" for n in items[i].names)
        data = tuple(n for i in included if items[i].kind == "data"
                     and not isinstance(module.items[i], ast.Function) for n in items[i].names)
        units.append(Unit(kernels, data, tuple((items[i].start, items[i].end) for i in included)))
    return ModuleUnits(tuple(units))


def _unit_order(members: list[int], items: list[_Item]) -> tuple[int, int]:
    """Units with kernels first (by their first kernel's position), then data-only units."""
    kernels = [i for i in members if items[i].kind == "kernel"]
    return (0, min(kernels)) if kernels else (1, min(members))


_SCAN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|[{};=]|\.(?:entry|func|section)\b', re.S)
_SCAN_BODY = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|[{}]', re.S)
"""``_SCAN`` inside braces, where only nesting matters: the same comments and strings (so both
scans skip the same text), no statement tokens (most of a module's ``;`` are inside bodies)."""


class _BodyScan:
    """The state of ``function_bodies``'s scan: brace depth and what the current top-level
    statement has shown so far."""

    def __init__(self) -> None:
        self.depth = 0
        self.function = False
        self.other = False
        self.opened = -1
        self.bodies: list[tuple[int, int]] = []

    def top_level(self, token: str) -> None:
        if token == ";":
            self.function = self.other = False
        elif token in (".entry", ".func"):
            self.function = True
        elif token in ("=", ".section"):
            self.other = True

    def open(self, at: int) -> None:
        if self.depth == 0 and self.function and not self.other:
            self.opened = at
        self.depth += 1

    def close(self, at: int) -> None:
        self.depth -= 1
        if self.depth == 0:
            if self.opened >= 0:
                self.bodies.append((self.opened, at))
            self.function = self.other = False
            self.opened = -1


def function_bodies(text: str) -> list[tuple[int, int]]:
    """[start, end) of the inside of every function body (between its braces) of ``text``, found by
    a scan that knows comments, strings and nesting but not PTX's grammar: a top-level ``{`` opens a
    body when the statement it ends began a ``.entry`` or ``.func`` (not an initializer after ``=``,
    not a ``.section``). Unbalanced braces end the scan (the parser then reports them)."""
    scan = _BodyScan()
    position = 0
    while (match := (_SCAN_BODY if scan.depth else _SCAN).search(text, position)) is not None:
        token = match.group()
        position = match.end()
        if token == "{":
            scan.open(match.end())
        elif token == "}":
            if scan.depth == 0:
                break
            scan.close(match.start())
        elif scan.depth == 0:
            scan.top_level(token)
    return scan.bodies


def skeleton(text: str, bodies: list[tuple[int, int]]) -> str:
    """``text`` with every body in ``bodies`` emptied: its newlines kept and its last line's
    characters replaced by blanks, so everything outside the bodies keeps its line and column."""
    parts: list[str] = []
    previous = 0
    for start, end in bodies:
        parts.append(text[previous:start])
        newlines = text.count("\n", start, end)
        last = text.rfind("\n", start, end)
        parts.append("\n" * newlines + " " * (end - (last + 1 if last >= 0 else start)))
        previous = end
    parts.append(text[previous:])
    return "".join(parts)


@gc_paused
def split_units(text: str, filename: str = "<input>", *, check_bodies: bool = False) -> ModuleUnits:
    """Check ``text``'s module-level syntax and rules and return its compilation units.

    By default the module is parsed with its function bodies emptied (``skeleton``): directives,
    variables and function headers are checked here (raising the located ``Ptx2GcnError`` a compile
    would raise); what is inside a body is parsed when its unit is compiled. That keeps a load's
    cost proportional to the module's declarations, not to its code (the 35k-line library of
    ``benchmarks/jit.py``: ~0.1 s instead of ~1 s CPU). ``check_bodies`` parses and checks the bodies
    too (what a caller that wants every diagnostic at load asks for). The cyclic collector is paused
    meanwhile, as for a compile (``ptx2gcn.compile_gc``)."""
    source = text if check_bodies else skeleton(text, function_bodies(text))
    module = parse_ptx(source, filename)
    problems = [d for d in check_module(module) if d.severity is Severity.ERROR]
    if problems:
        raise Ptx2GcnError(problems)
    return plan_units(module, text)
