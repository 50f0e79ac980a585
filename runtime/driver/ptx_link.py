"""Linking PTX units into one PTX module, as CUDA's ``cuLink*`` links them (but staying on PTX).

A unit is split into its top-level statements (each ends at a ``;`` or at the ``}`` closing a body,
outside comments and strings). The linked module is: one header (the highest ``.version`` of the
units, the ``.target`` of the unit with the highest ``sm_`` number, ``.address_size 64``), then
every unit's module-scope variables, then a prototype of every function that is defined somewhere
and used across units, then every unit's functions and kernels in unit order.

Linking rules (those of the PTX ISA's linking directives, section 11.6):

- an ``.extern`` declaration of a symbol that another unit defines resolves to that definition: it
  is dropped (for variables) or becomes a prototype with the definition's linkage (functions), so
  the module still declares before use;
- an ``.extern`` symbol that no unit defines stays ``.extern`` (the compiler reports it);
- ``.weak`` definitions of one name: the first is kept, later ones dropped; a ``.visible`` definition
  replaces ``.weak`` ones;
- two ``.visible`` definitions of one name are an error (``duplicate definition``), as with nvlink;
- so is a declaration whose results or parameters differ in number from the definition it resolves
  to (nvlink: "Prototype doesn't match");
- ``malloc``/``free`` declared ``.extern`` and defined by no unit (CUDA's device-runtime built-ins)
  come from ptx2gcn's device-heap unit (``DEVICE_MALLOC``: an 8 MiB bump allocator).

``cap_registers`` carries a link's ``CU_JIT_MAX_REGISTERS`` into its output, whose loader gets no
JIT options of the link: every kernel gets ``.maxnreg`` (the lower of its own and the link's), as a
cubin records each kernel's register count.

Invariant: the output is a PTX module whose statements are the units' statements, unchanged except
for the ``.extern`` keyword of resolved function declarations and the dropped duplicates; one unit
links to itself, unchanged. Other top-level directives (``.file``, ``.section``) are kept once
each; ``.file`` indices are renumbered across units (each unit counts from 1) and every ``.loc``
follows its unit's file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER = re.compile(r"^\s*\.(version|target|address_size)\b\s*([^\n;]*)", re.MULTILINE)
_LINE_DIRECTIVE = re.compile(r"^\s*\.(version|target|address_size|file)\b")
"""Directives that end at the end of their line (no ``;``)."""
_FUNCTION = re.compile(r"\.(?:func|entry)\b")
_NAME_BEFORE_PARAMS = re.compile(r"([A-Za-z_$%][\w$]*)\s*\((?![^()]*\)\s*[A-Za-z_$%][\w$]*\s*\()")
_VARIABLE_NAME = re.compile(r"([A-Za-z_$%][\w$]*)\s*(?:\[[^\]]*\]\s*)*(?:=|;|$)")


class PtxLinkError(ValueError):
    """Units that do not link: the message names the symbol and the units."""


@dataclass(frozen=True)
class Statement:
    unit: str
    text: str
    kind: str
    """``function`` (``.func``/``.entry``, with or without a body), ``variable`` or ``other``."""
    name: str
    linkage: str
    """``extern``, ``visible``, ``weak``, ``common`` or ``""`` (internal)."""
    defines: bool
    """A function with a body, or a variable that is not ``.extern``."""


def _skip(text: str, index: int) -> int:
    """The index after the comment or string starting at ``index`` (``index`` itself if none does)."""
    if text.startswith("//", index):
        end = text.find("\n", index)
        return len(text) if end < 0 else end
    if text.startswith("/*", index):
        end = text.find("*/", index + 2)
        return len(text) if end < 0 else end + 2
    if text[index] == '"':
        end = index + 1
        while end < len(text) and text[end] != '"':
            end += 2 if text[end] == "\\" else 1
        return end + 1
    return index


def _split(text: str) -> list[str]:
    """Top-level statements of a PTX text (line directives such as ``.version`` included), comments
    kept inside the statement that follows them."""
    statements: list[str] = []
    start, depth, index = 0, 0, 0
    while index < len(text):
        after = _skip(text, index)
        if after != index:
            index = after
            continue
        char = text[index]
        depth += {"{": 1, "}": -1}.get(char, 0)
        closes_body = char == "}" and depth == 0 and not text[index + 1 :].lstrip().startswith(";")
        ends = closes_body or (char == ";" and depth == 0)  # "= {...};" (an initializer) ends at its ";"
        if char == "\n" and depth == 0 and _LINE_DIRECTIVE.match(_code(text[start:index])):
            statements.append(text[start:index])
            start = index + 1
        elif ends:
            statements.append(text[start : index + 1])
            start = index + 1
        index += 1
    if text[start:].strip():
        statements.append(text[start:])
    return statements


def _code(statement: str) -> str:
    """The statement without comments (for classification only)."""
    without_block = re.sub(r"/\*.*?\*/", " ", statement, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", " ", without_block)


def _linkage(code: str) -> str:
    for word in ("extern", "visible", "weak", "common"):
        if re.search(rf"(^|\s)\.{word}\b", code):
            return word
    return ""


def _classify(unit: str, statement: str) -> Statement:
    code = _code(statement).strip()
    linkage = _linkage(code)
    if _FUNCTION.search(code.split("{", 1)[0]):
        head = code.split("{", 1)[0]
        after = _FUNCTION.split(head, maxsplit=1)[1]
        found = _NAME_BEFORE_PARAMS.search(after)
        name = found.group(1) if found else ""
        return Statement(unit, statement, "function", name, linkage, "{" in code)
    if re.search(r"(^|\s)\.(global|const|shared)\b", code):
        declaration = code.split("=", 1)[0].rstrip(";").strip()
        found = _VARIABLE_NAME.search(declaration.split()[-1] + ";") if declaration.split() else None
        name = found.group(1) if found else ""
        return Statement(unit, statement, "variable", name, linkage, linkage != "extern")
    return Statement(unit, statement, "other", "", linkage, False)


def _header(units: list[tuple[str, str]]) -> str:
    versions: list[tuple[int, int]] = []
    targets: list[tuple[int, str]] = []
    for _name, text in units:
        for directive, value in _HEADER.findall(_code(text)):
            if directive == "version":
                major, _, minor = value.strip().partition(".")
                versions.append((int(major or 0), int(minor or 0)))
            elif directive == "target":
                number = re.search(r"sm_(\d+)", value)
                targets.append((int(number.group(1)) if number else 0, value.strip()))
    if not versions or not targets:
        missing = ".version" if not versions else ".target"
        raise PtxLinkError(f"no unit has a {missing} directive: not PTX")
    major, minor = max(versions)
    return f".version {major}.{minor}\n.target {max(targets)[1]}\n.address_size 64\n"


def _arity(statement: Statement) -> tuple[int, int]:
    """(results, parameters) of a function's header: its ``.param``/``.reg`` declarations before and
    after the name."""
    head = _code(statement.text).split("{", 1)[0]
    after = _FUNCTION.split(head, maxsplit=1)[1]
    found = re.search(rf"(?<![\w$%]){re.escape(statement.name)}\s*\(", after)
    if found is None:
        return (len(re.findall(r"\.(?:param|reg)\b", after)), 0)
    count = lambda text: len(re.findall(r"\.(?:param|reg)\b", text))  # noqa: E731
    return count(after[: found.start()]), count(after[found.end() :])


def _check_prototype(declaration: Statement, definition: Statement) -> None:
    """A declaration and the definition it resolves to take and return as many values (nvlink:
    "Prototype doesn't match"; ptxas, in one module: "Inconsistent prototypes")."""
    declared, defined = _arity(declaration), _arity(definition)
    if declared != defined:
        def what(arity: tuple[int, int]) -> str:
            return f"{arity[0]} result(s), {arity[1]} parameter(s)"

        raise PtxLinkError(
            f"prototype of {declaration.name!r} in {declaration.unit} ({what(declared)}) does not match its "
            f"definition in {definition.unit} ({what(defined)})"
        )


def _prototype(declaration: Statement, linkage: str) -> str:
    return re.sub(r"(^|\s)\.extern\b", lambda m: f"{m.group(1)}.{linkage}", declaration.text, count=1)


def _definitions(statements: list[Statement]) -> dict[tuple[str, str], Statement]:
    """(kind, name) -> the definition every reference to that external symbol resolves to."""
    definitions: dict[tuple[str, str], Statement] = {}
    for statement in statements:
        if not statement.defines or statement.linkage not in ("visible", "weak", "common", "extern"):
            continue
        key = (statement.kind, statement.name)
        earlier = definitions.get(key)
        if earlier is None or (earlier.linkage in ("weak", "common") and statement.linkage == "visible"):
            definitions[key] = statement
        elif earlier.linkage == "visible" and statement.linkage == "visible":
            raise PtxLinkError(
                f"duplicate definition of {statement.name!r}: in {earlier.unit} and in {statement.unit}"
            )
    return definitions


HEAP_BYTES = 8 << 20
"""The device heap of ``malloc``: 8 MiB, ``CU_LIMIT_MALLOC_HEAP_SIZE``'s default in CUDA."""

DEVICE_MALLOC = f"""
// ptx2gcn's device heap: CUDA's built-in malloc/free for linked programs (a bump allocator; free
// keeps the memory, as a heap that is never compacted would; NULL once the heap is used up).
.version 7.0
.target sm_52
.address_size 64
.global .align 16 .b8 __ptx2gcn_heap[{HEAP_BYTES}];
.global .align 8 .u64 __ptx2gcn_heap_top;
.weak .func (.param .b64 result) malloc(.param .b64 size)
{{
  .reg .b64 %rd<9>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [size];
  add.u64 %rd2, %rd1, 15;
  and.b64 %rd2, %rd2, -16;
  mov.u64 %rd3, __ptx2gcn_heap_top;
  atom.global.add.u64 %rd4, [%rd3], %rd2;
  add.u64 %rd5, %rd4, %rd2;
  setp.gt.u64 %p1, %rd5, {HEAP_BYTES};
  mov.u64 %rd6, __ptx2gcn_heap;
  cvta.global.u64 %rd6, %rd6;
  add.u64 %rd7, %rd6, %rd4;
  selp.u64 %rd8, 0, %rd7, %p1;
  st.param.b64 [result], %rd8;
  ret;
}}
.weak .func free(.param .b64 pointer)
{{
  ret;
}}
"""
"""CUDA's ``malloc``/``free`` are built into its device runtime, not defined in any PTX unit; a
link whose units call them without defining them gets this unit (``link_ptx``)."""


def _with_builtins(units: list[tuple[str, str]], statements: list[Statement]) -> list[tuple[str, str]]:
    """``units`` plus the device-heap unit when a unit declares ``malloc``/``free`` ``.extern`` and none
    defines them."""
    defined = {s.name for s in statements if s.kind == "function" and s.defines}
    wanted = {s.name for s in statements if s.kind == "function" and s.linkage == "extern"}
    if {"malloc", "free"} & wanted - defined:
        return [*units, ("<ptx2gcn device heap>", DEVICE_MALLOC)]
    return units


_FILE = re.compile(r'^(\s*\.file\s+)(\d+)(\s+"(?:[^"\\]|\\.)*")', re.MULTILINE)
_LOC = re.compile(r"(\.loc\s+)(\d+)\b")


def _with_indices(text: str, mapping: dict[str, int]) -> str:
    text = _FILE.sub(lambda m: f"{m.group(1)}{mapping[m.group(2)]}{m.group(3)}", text)
    return _LOC.sub(lambda m: f"{m.group(1)}{mapping.get(m.group(2), m.group(2))}", text)


def _renumber_files(units: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each unit numbers its ``.file`` directives from 1: give every distinct file of the link one
    index and rewrite each unit's ``.file`` and ``.loc`` lines to it."""
    index_of: dict[str, int] = {}
    renumbered: list[tuple[str, str]] = []
    for name, text in units:
        mapping: dict[str, int] = {}
        for found in _FILE.finditer(text):
            file = found.group(3).strip()
            mapping[found.group(2)] = index_of.setdefault(file, len(index_of) + 1)
        renumbered.append((name, _with_indices(text, mapping) if mapping else text))
    return renumbered


def link_ptx(units: list[tuple[str, str]]) -> str:
    """One PTX module from ``units`` ((name, PTX text) each), linked as the module docstring says."""
    if not units:
        raise PtxLinkError("nothing to link: no PTX unit was added")
    statements = [_classify(unit, s) for unit, text in units for s in _split(text)]
    units = _with_builtins(units, statements)
    if len(units) == 1:
        return units[0][1]
    units = _renumber_files(units)
    statements = [_classify(unit, s) for unit, text in units for s in _split(text)]
    definitions = _definitions(statements)
    others: list[str] = []
    variables: list[str] = []
    prototypes: list[str] = []
    bodies: list[str] = []
    for statement in statements:
        if statement.kind == "other":
            kept = _code(statement.text).strip() not in ("", ";") and not _HEADER.match(_code(statement.text))
            if kept and statement.text.strip() not in others:
                others.append(statement.text.strip())  # .file, .section: kept once each
            continue
        defined = definitions.get((statement.kind, statement.name))
        if statement.defines and defined is not None and defined is not statement:
            continue  # a .weak duplicate, or a .weak overridden by a .visible definition
        if statement.linkage == "extern" and defined is not None:
            if statement.kind == "function":
                _check_prototype(statement, defined)
                prototypes.append(_prototype(statement, defined.linkage))
            continue
        (variables if statement.kind == "variable" else bodies).append(statement.text)
    return _header(units) + "\n".join(s.strip("\n") for s in others + variables + prototypes + bodies) + "\n"



_MAXNREG = re.compile(r"\.maxnreg\s+(\d+)")
_ENTRY = re.compile(r"(?<![\w$.])\.entry\b")


def _next_code(text: str, index: int, wanted: str) -> int:
    """The index of the first character of ``wanted`` at or after ``index`` outside comments and
    strings (``len(text)`` if none)."""
    while index < len(text):
        after = _skip(text, index)
        if after != index:
            index = after
        elif text[index] in wanted:
            return index
        else:
            index += 1
    return index


def cap_registers(text: str, ceiling: int) -> str:
    """``text`` with every kernel (``.entry`` with a body) limited to ``ceiling`` registers per thread
    (``.maxnreg``; a kernel's own lower ``.maxnreg`` stays)."""
    out: list[str] = []
    done, index = 0, 0
    while index < len(text):
        index = _next_code(text, index, "{.")
        if index >= len(text):
            break
        if text[index] == "{":  # a body (or an initializer): skip to its matching "}"
            depth = 0
            while index < len(text):
                index = _next_code(text, index, "{}")
                if index < len(text):
                    depth += 1 if text[index] == "{" else -1
                    index += 1
                    if depth == 0:
                        break
            continue
        if not _ENTRY.match(text, index) or (index > 0 and (text[index - 1].isalnum() or text[index - 1] in "_$")):
            index += 1
            continue
        body = _next_code(text, index, "{;")
        if body >= len(text) or text[body] == ";":
            index = body
            continue
        head = text[index:body]
        found = _MAXNREG.search(_code(head))
        if found is None:
            head = f"{head.rstrip()}\n.maxnreg {ceiling}\n"
        else:
            head = _MAXNREG.sub(f".maxnreg {min(int(found.group(1)), ceiling)}", head, count=1)
        out.append(text[done:index] + head)
        done = index = body
    return "".join(out) + text[done:]
