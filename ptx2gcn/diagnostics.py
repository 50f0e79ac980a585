"""Located diagnostics: ``file:line:col: error: message``, the source line, and a caret.

Invariant: every error that reaches a user about their input is a ``Ptx2GcnError`` carrying one or
more ``Diagnostic``s with a ``Span`` (or an explicit "no location"), and renders without needing
anything but itself: a ``Span`` keeps a reference to its ``SourceFile`` (excluded from equality, so
AST/IR nodes compare by position only).

Lines and columns are 1-based; ``end_column`` is exclusive. Unsupported-but-valid PTX uses
``UnsupportedError`` whose message reads ``unsupported: <instruction>: <why>``.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import FrozenInstanceError, dataclass
from enum import Enum

EXCERPT_WIDTH = 160
"""Longest source excerpt a diagnostic prints; longer lines are shown as a window around the span."""


class SourceFile:
    """A named text with a lazily built line index (shared by every Span into it)."""

    __slots__ = ("name", "text", "_line_starts")

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.text = text
        self._line_starts: list[int] | None = None

    def _starts(self) -> list[int]:
        if self._line_starts is None:
            starts = [0]
            find = self.text.find
            pos = find("\n")
            while pos != -1:
                starts.append(pos + 1)
                pos = find("\n", pos + 1)
            self._line_starts = starts
        return self._line_starts

    def line_text(self, line: int) -> str:
        """The text of 1-based ``line`` without its newline ('' when out of range)."""
        starts = self._starts()
        if not 1 <= line <= len(starts):
            return ""
        begin = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[begin:end].rstrip("\r")

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        starts = self._starts()
        index = bisect.bisect_right(starts, offset) - 1
        return index + 1, offset - starts[index] + 1

    def __repr__(self) -> str:
        return f"SourceFile({self.name!r}, {len(self.text)} chars)"


class Span:
    """A range in a source file: 1-based line/column, end column exclusive.

    An immutable record with the behaviour of a frozen dataclass: fields set only by ``__init__``
    (assigning or deleting one raises ``FrozenInstanceError``); equality and hash over the position
    (``file`` .. ``end_column``), never ``source``; no ordering. A plain ``__slots__`` class rather
    than ``@dataclass(frozen=True)``: a parse makes ~3 spans per PTX line (320k for the 104k-line
    corpus kernel), and the dataclass's ``__init__``, one ``object.__setattr__`` call per field,
    took ~0.5 us of it against ~0.28 us for this one (which stores through the slot descriptors).
    """

    __slots__ = ("file", "line", "column", "end_line", "end_column", "source")
    __match_args__ = ("file", "line", "column", "end_line", "end_column", "source")

    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    source: SourceFile | None
    """The text the span points into (for excerpts); not part of equality, hash or repr."""

    def __init__(self, file: str, line: int, column: int, end_line: int = 0, end_column: int = 0,
                 source: SourceFile | None = None) -> None:
        _set_file(self, file)
        _set_line(self, line)
        _set_column(self, column)
        _set_end_line(self, end_line)
        _set_end_column(self, end_column)
        _set_source(self, source)

    def _position(self) -> tuple[str, int, int, int, int]:
        return (self.file, self.line, self.column, self.end_line, self.end_column)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Span):
            return NotImplemented
        return self._position() == other._position()

    def __hash__(self) -> int:
        return hash((self.file, self.line, self.column, self.end_line, self.end_column))

    def __repr__(self) -> str:
        return (f"Span(file={self.file!r}, line={self.line!r}, column={self.column!r}, "
                f"end_line={self.end_line!r}, end_column={self.end_column!r})")

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[type[Span], tuple[str, int, int, int, int, SourceFile | None]]:
        return (Span, (*self._position(), self.source))

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    @staticmethod
    def unknown(file: str = "<unknown>") -> Span:
        return Span(file, 0, 0)

    def excerpt(self) -> str:
        """The source line and a caret line under the span ('' when the text is not available)."""
        if self.source is None or self.line <= 0:
            return ""
        text = self.source.line_text(self.line)
        if not text and self.line > 1:
            return ""
        start = max(self.column - 1, 0)
        if self.end_line == self.line and self.end_column > self.column:
            width = self.end_column - self.column
        else:
            width = 1
        width = max(1, min(width, max(len(text) - start, 1)))
        if len(text) > EXCERPT_WIDTH:
            # A multi-megabyte line (minified or generated PTX) is shown as a window around the span.
            begin = max(0, min(start - EXCERPT_WIDTH // 4, len(text) - EXCERPT_WIDTH))
            end = begin + EXCERPT_WIDTH
            prefix, suffix = ("..." if begin else ""), ("..." if end < len(text) else "")
            text = f"{prefix}{text[begin:end]}{suffix}"
            start = start - begin + len(prefix)
            width = max(1, min(width, end - begin - (start - len(prefix))))
        # Keep tabs so the caret lines up under tab-indented PTX.
        lead = "".join(ch if ch == "\t" else " " for ch in text[:start])
        return f"{text}\n{lead}^{'~' * (width - 1)}\n"


# ``Span.__init__`` stores through the slots' own descriptors: ``Span.__setattr__`` forbids assignment.
_set_file, _set_line, _set_column, _set_end_line, _set_end_column, _set_source = (
    getattr(Span, name).__set__ for name in Span.__slots__)


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: Severity
    span: Span | None
    message: str
    notes: tuple[Diagnostic, ...] = ()

    def render(self) -> str:
        where = f"{self.span}: " if self.span is not None and self.span.line > 0 else (
            f"{self.span.file}: " if self.span is not None else "")
        out = f"{where}{self.severity.value}: {self.message}\n"
        if self.span is not None:
            out += self.span.excerpt()
        for note in self.notes:
            out += note.render()
        return out


class Ptx2GcnError(Exception):
    """An error about the user's input, with one or more located diagnostics."""

    def __init__(self, diagnostics: Diagnostic | Sequence[Diagnostic]) -> None:
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        super().__init__(self.diagnostics[0].message if self.diagnostics else "error")

    @classmethod
    def at(cls, span: Span | None, message: str, notes: Iterable[Diagnostic] = ()) -> Ptx2GcnError:
        return cls(Diagnostic(Severity.ERROR, span, message, tuple(notes)))

    @property
    def span(self) -> Span | None:
        return self.diagnostics[0].span if self.diagnostics else None

    def render(self) -> str:
        return "".join(d.render() for d in self.diagnostics)

    def __str__(self) -> str:
        return self.render().rstrip("\n")

    def __reduce__(self) -> tuple[type, tuple[tuple[Diagnostic, ...]]]:
        return (type(self), (self.diagnostics,))


class UnsupportedError(Ptx2GcnError):
    """Valid PTX that ptx2gcn does not (yet) translate: ``unsupported: <instruction>: <why>``."""

    def __init__(self, diagnostics: Diagnostic | Sequence[Diagnostic]) -> None:
        super().__init__(diagnostics)

    @classmethod
    def feature(cls, span: Span | None, instruction: str, why: str) -> UnsupportedError:
        return cls(Diagnostic(Severity.ERROR, span, f"unsupported: {instruction}: {why}"))


def note(span: Span | None, message: str) -> Diagnostic:
    return Diagnostic(Severity.NOTE, span, message)
