"""Counted / named barriers, ``bar.arrive`` and ``bar.red`` (Mode P) — placeholder."""

from __future__ import annotations

from collections.abc import Callable

from ptx2gcn.emit.context import FnContext
from ptx2gcn.ir.core import Op

CtaBarrier = Callable[[FnContext], None]


def lower_counted_bar(cx: FnContext, op: Op, cta_barrier: CtaBarrier) -> None:
    raise cx.unsupported(f"bar.{cx.attr(op, 'mode')} with a thread count", "not lowered yet")


def lower_bar_red(cx: FnContext, op: Op, cta_barrier: CtaBarrier) -> None:
    raise cx.unsupported(f"bar.red.{cx.attr(op, 'op')}", "not lowered yet")
