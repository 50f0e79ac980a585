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


def range_prefix(name: str, count_of: Callable[[str], int | None]) -> str | None:
    """The prefix of the ``prefix<count>`` range that declares ``name`` (``count_of(prefix)`` is the
    range's count, None when no range has that prefix), or None. O(len(name)) whatever the counts."""
    # Try every split of the trailing digits: a range prefix may itself end in digits.
    end = len(name)
    start = end
    while start > 0 and name[start - 1].isdigit():
        start -= 1
    for cut in range(start, end):
        digits = name[cut:]
        if (len(digits) > 1 and digits[0] == "0") or len(digits) > _MAX_DIGITS:
            continue
        count = count_of(name[:cut])
        if count is not None and int(digits) < count:
            return name[:cut]
    return None


class NameSet:
    """Declared names: explicit ones and ``prefix<count>`` ranges, each with its declaring span."""

    __slots__ = ("explicit", "ranges")

    def __init__(self) -> None:
        self.explicit: dict[str, Span] = {}
        self.ranges: dict[str, tuple[int, Span]] = {}

    def find(self, name: str) -> Span | None:
        """The span declaring ``name``, or None when it is not declared here."""
        span = self.explicit.get(name)
        if span is not None or not self.ranges:
            return span
        prefix = range_prefix(name, lambda p: self.ranges[p][0] if p in self.ranges else None)
        return None if prefix is None else self.ranges[prefix][1]

    def __contains__(self, name: str) -> bool:
        return self.find(name) is not None

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
        return (name.startswith(prefix) and digits.isdigit() and (digits == "0" or digits[0] != "0")
                and len(digits) <= _MAX_DIGITS and int(digits) < count)
