"""The dotted modifiers of one PTX instruction, consumed piece by piece by its lowering.

Invariant: a lowering takes every modifier it understands (``take``, ``type``, ``one_of``...) and
then calls ``done()``, which reports any modifier left over as a located error; so no modifier
that changes meaning is ever silently ignored. Performance-only hints (cache eviction priorities,
L2 prefetch sizes) are taken with ``hints()``.
"""

from __future__ import annotations

import functools

from ptx2gcn.diagnostics import Ptx2GcnError, Span, UnsupportedError
from ptx2gcn.ir.types import PTX_TYPES

ROUNDING = frozenset({"rn", "rz", "rm", "rp", "rna", "rs", "rni", "rzi", "rmi", "rpi", "approx", "full"})
SPACES = {"global": "global", "shared": "shared", "shared::cta": "shared", "local": "local",
          "const": "const", "param": "param", "param::entry": "param", "param::func": "param"}


@functools.lru_cache(maxsize=4096)
def _without_dots(modifiers: tuple[str, ...]) -> tuple[str, ...]:
    """``modifiers`` without their leading dots (cached: kernels repeat the same lists)."""
    return tuple(m[1:] if m.startswith(".") else m for m in modifiers)


class Mods:
    """The modifiers of ``opcode`` (without dots), in source order."""

    def __init__(self, opcode: str, modifiers: tuple[str, ...], span: Span) -> None:
        self.opcode = opcode
        self.left: list[str] = list(_without_dots(modifiers))
        self.span = span

    @property
    def full_name(self) -> str:
        return ".".join([self.opcode, *self.left])

    def error(self, message: str) -> Ptx2GcnError:
        return Ptx2GcnError.at(self.span, message)

    def take(self, word: str) -> bool:
        if word in self.left:
            self.left.remove(word)
            return True
        return False

    def one_of(self, words: frozenset[str] | set[str] | tuple[str, ...]) -> str | None:
        found = [m for m in self.left if m in words]
        if len(found) > 1:
            raise self.error(f"'{self.opcode}' takes one of {', '.join(sorted(words))}, got "
                             f"{', '.join(found)}")
        if found:
            self.left.remove(found[0])
            return found[0]
        return None

    def types(self) -> list[str]:
        """Every PTX type modifier, removed, in source order."""
        found = [m for m in self.left if m in PTX_TYPES]
        for m in found:
            self.left.remove(m)
        return found

    def type(self) -> str:
        """The single type modifier (an error when there is none or more than one)."""
        found = self.types()
        if len(found) != 1:
            raise self.error(f"'{self.opcode}' needs exactly one type modifier, got "
                             f"{len(found) or 'none'}")
        return found[0]

    def space(self, cluster: bool = False) -> str:
        """The state-space modifier ('generic' when absent). ``cluster``: the instruction's lowering
        handles ``.shared::cluster`` (returned as 'shared_cluster'); otherwise that space is a
        located ``unsupported``."""
        found = [m for m in self.left if m in SPACES]
        if len(found) > 1:
            raise self.error(f"'{self.opcode}' has more than one state space")
        if not found:
            if "shared::cluster" in self.left and cluster:
                self.left.remove("shared::cluster")
                return "shared_cluster"
            if any(m.startswith("shared::cluster") for m in self.left):
                raise UnsupportedError.feature(self.span, f"{self.opcode}.shared::cluster",
                                               "this instruction's access to another CTA's shared "
                                               "memory is not translated")
            return "generic"
        self.left.remove(found[0])
        return SPACES[found[0]]

    def vec(self) -> int:
        """The ``.vN`` count (0 when absent)."""
        found = self.one_of(frozenset({"v2", "v4", "v8"}))
        return int(found[1:]) if found else 0

    def hints(self) -> str:
        """Performance-only cache hints (``L1::evict_last``, ``L2::64B``...), removed, dot-joined."""
        found = [m for m in self.left if m.startswith(("L1::", "L2::", "level::"))]
        for m in found:
            self.left.remove(m)
        return ".".join(found)

    def rounding(self) -> str | None:
        return self.one_of(ROUNDING)

    def done(self) -> None:
        if self.left:
            raise self.error(f"'{self.opcode}' does not support modifier(s) "
                             f"{', '.join('.' + m for m in self.left)}")
