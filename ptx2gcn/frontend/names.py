"""Sets of declared names where ``%r<N>`` ranges stay ranges (never expanded into N strings).

Invariant: ``name in names`` is exact PTX semantics — ``.reg .b32 %r<10>`` declares ``%r0`` …
``%r9`` and nothing else (not ``%r01``, not ``%r10``) — and costs O(len(name)) whatever N is, so a
hostile ``%r<999999999999>`` cannot exhaust memory or time.
"""

from __future__ import annotations

from collections.abc import Callable

from ptx2gcn.diagnostics import Span
from ptx2gcn.frontend import ast

_MAX_DIGITS = 10
"""Range counts are below 2**32 (the builder enforces it), so indices have at most 10 digits."""
_ASCII_DIGITS = "0123456789"


def _index_digits(digits: str) -> bool:
    """Whether ``digits`` can be a range index: ASCII decimal digits, no leading zero, at most
    ``_MAX_DIGITS`` long (``str.isdigit`` alone would also accept ``²`` or ``٣``)."""
    return (digits.isascii() and digits.isdigit() and (digits[0] != "0" or len(digits) == 1)
            and len(digits) <= _MAX_DIGITS)


def range_prefix(name: str, count_of: Callable[[str], int | None]) -> str | None:
    """The prefix of the ``prefix<count>`` range that declares ``name`` (``count_of(prefix)`` is the
    range's count, None when no range has that prefix), or None. O(len(name)) whatever the counts."""
    # Try every split of the trailing digits: a range prefix may itself end in digits.
    end = len(name)
    start = len(name.rstrip(_ASCII_DIGITS))
    for cut in range(max(start, end - _MAX_DIGITS), end):
        digits = name[cut:]
        if digits[0] == "0" and cut < end - 1:
            continue
        count = count_of(name[:cut])
        if count is not None and int(digits) < count:
            return name[:cut]
    return None


class NameSet:
    """Declared names: explicit ones and ``prefix<count>`` ranges, each with its declaring span."""

    __slots__ = ("explicit", "ranges", "_found")

    def __init__(self) -> None:
        self.explicit: dict[str, Span] = {}
        self.ranges: dict[str, tuple[int, Span]] = {}
        self._found: set[str] = set()
        """Names already found declared: names are never undeclared, so a hit stays a hit."""

    def find(self, name: str) -> Span | None:
        """The span declaring ``name``, or None when it is not declared here."""
        span = self.explicit.get(name)
        if span is not None or not self.ranges:
            return span
        prefix = range_prefix(name, self._count)
        return None if prefix is None else self.ranges[prefix][1]

    def _count(self, prefix: str) -> int | None:
        entry = self.ranges.get(prefix)
        return None if entry is None else entry[0]

    def __contains__(self, name: str) -> bool:
        if name in self._found:
            return True
        if self.find(name) is None:
            return False
        self._found.add(name)
        return True

    def add(self, declarator: ast.Declarator) -> Span | None:
        """Declare ``declarator``'s names; returns the earlier declaration's span when it clashes
        (the same name, or a range with the same prefix), else None."""
        if declarator.count is None:
            previous = self.find(declarator.name)
            if previous is None:
                self.explicit[declarator.name] = declarator.span
            return previous
        previous_range = self.ranges.get(declarator.name)
        if previous_range is not None:
            return previous_range[1]
        clash = next((span for name, span in self.explicit.items() if self._in_range(
            name, declarator.name, declarator.count)), None)
        self.ranges[declarator.name] = (declarator.count, declarator.span)
        return clash

    def add_name(self, name: str, span: Span) -> Span | None:
        """Declare one explicit name (a parameter); returns the clashing declaration's span."""
        return self.add(ast.Declarator(span, name))

    @staticmethod
    def _in_range(name: str, prefix: str, count: int) -> bool:
        digits = name[len(prefix):]
        return name.startswith(prefix) and _index_digits(digits) and int(digits) < count
