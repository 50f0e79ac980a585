"""Find where a field of a TOML case file is written, for located error messages.

``tomllib`` returns plain values without positions, so the locator scans the text: table headers
(``[expect]``, the n-th ``[[args]]``) and ``key =`` lines, including keys inside one-line inline
tables (``y = { rtol = 1e-6 }``). It understands the subset of TOML that case files use; where it
cannot find a field it falls back to a span naming only the file.

Invariant: the returned span is either a real position in the text (1-based line and column) or
``Span.unknown(file)``; the locator never raises.
"""

from __future__ import annotations

import re

from ptx2gcn.diagnostics import SourceFile, Span

_ARRAY_HEADER = re.compile(r"^\s*\[\[\s*([A-Za-z0-9_.-]+)\s*\]\]")
_TABLE_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]")
_FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)\])?$")
_DECODE_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def decode_error_span(source: SourceFile, message: str) -> tuple[Span, str]:
    """The position ``tomllib`` appends to its messages, as a span; and the message without it."""
    match = _DECODE_POSITION.search(message)
    if match is None:
        return Span.unknown(source.name), message
    line, column = int(match.group(1)), int(match.group(2))
    return Span(source.name, line, column, line, column + 1, source), message[: match.start()]


def field_span(source: SourceFile, field: str) -> Span:
    """The span of ``field`` (``grid``, ``args[2].buffer``, ``tolerance.y.rtol``) in the case file."""
    parts = field.split(".")
    lines = source.text.split("\n")
    first = _FIELD.match(parts[0])
    if first is None:
        return Span.unknown(source.name)
    table, index = first.group(1), first.group(2)
    if index is not None:
        start = _nth_header(lines, _ARRAY_HEADER, table, int(index))
        keys = parts[1:]
    elif len(parts) > 1:
        start = _nth_header(lines, _TABLE_HEADER, table, 0)
        keys = parts[1:]
    else:
        start, keys = 0, parts
    if start is None:
        return Span.unknown(source.name)
    if not keys:
        return _span(source, start, lines[start])
    found = _key_in_section(lines, start if index is not None or len(parts) > 1 else -1, keys)
    if found is None:
        return _span(source, start, lines[start]) if start or index is not None else Span.unknown(source.name)
    line, column, length = found
    return Span(source.name, line + 1, column + 1, line + 1, column + 1 + length, source)


def _nth_header(lines: list[str], pattern: re.Pattern[str], name: str, n: int) -> int | None:
    seen = 0
    for number, line in enumerate(lines):
        match = pattern.match(line)
        if match is not None and match.group(1) == name:
            if seen == n:
                return number
            seen += 1
    return None


def _key_in_section(lines: list[str], header: int, keys: list[str]) -> tuple[int, int, int] | None:
    """(line, column, length) of ``keys[0]`` in the section after ``header`` (-1: the top level), and of
    ``keys[1]`` inside its inline table when given."""
    for number in range(header + 1, len(lines)):
        line = lines[number]
        if _ARRAY_HEADER.match(line) or _TABLE_HEADER.match(line):
            return None
        match = re.match(rf"^\s*\"?({re.escape(keys[0])})\"?\s*=", line)
        if match is None:
            continue
        if len(keys) > 1:
            inner = re.search(rf"[{{,]\s*({re.escape(keys[1])})\s*=", line)
            if inner is not None:
                return number, inner.start(1), len(keys[1])
        return number, match.start(1), len(keys[0])
    return None


def _span(source: SourceFile, number: int, line: str) -> Span:
    column = len(line) - len(line.lstrip())
    return Span(source.name, number + 1, column + 1, number + 1, len(line.rstrip()) + 1, source)
