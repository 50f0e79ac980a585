"""Python's cyclic garbage collector, paused while a compilation builds its object graphs.

Invariant: inside ``paused_gc()`` (or a function decorated with ``gc_paused``) no automatic cyclic
collection runs; on leaving it (normally or by an exception) the collector is enabled again exactly
when it was enabled on entry, so nesting and callers that disabled it themselves keep their setting.
Nothing is collected explicitly. A compile breaks the reference cycles of the graphs it owns once
it is done with them (``ptx2gcn.ir.core.dispose`` for the IR, ``ptx2gcn.emit.module`` for
llvmlite's module), so reference counting frees those; what is left in cycles (a few hundred
objects: llvmlite's function declarations, the IR a caller of ``to_ir`` dropped) goes at the next
automatic collection. With compiles running in several threads the collector may come back on
while another one still runs (which only costs that one speed); a pause that began with the
collector on never leaves it off.

Why: a compile allocates millions of objects (AST, IR, llvmlite values) that stay alive until it
ends. With the collector on, every generation-2 collection walks that whole live graph again: on
the 104k-line corpus kernel this cost 3.5-4 s of 18 s CPU (parse 2.9 -> 1.7 s, IR 3.0 -> 2.0 s,
LLVM IR 2.5 -> 0.9 s), against one collection of ~0.85 s after the compile, for 10 % more peak
memory (664 -> 729 MB). The IR builder and the IR text parser pause it too, for callers that use
them outside ``compile()`` (tests, ``ptx2gcn opt``); so do the lazy JIT's module split
(``split_units``), reading the parser's tables, and the first use of ``ptx2gcn.compile`` /
``split_units``, which imports the compiler: each allocates ~100k long-lived objects, and in a host
process holding numpy and its own objects every full collection meanwhile walked all of those
(reading the tables: 44 -> 20 ms CPU). The ``ptx2gcn compile`` process skips even that
one collection: it keeps the collector off and freezes what is left before it exits
(``ptx2gcn.cli._run_one_shot``; 0.44-0.48 s of CPU on the 104k-line file); a library call cannot,
as its caller's process goes on. Since the compile frees its AST and IR by reference counting (see
above), the collection after a library ``compile()`` of that file finds ~160 objects instead of
1.65M (0.42-0.51 -> 0.02-0.03 s of CPU); the freeing costs ~0.1 s inside the compile (the
``llvm-ir`` stage), which the ``ptx2gcn compile`` process, leaving everything to its exit before,
now pays too.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run the body with automatic cyclic garbage collection off (restored afterwards)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def gc_paused(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` run inside ``paused_gc()``."""

    @functools.wraps(function)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        with paused_gc():
            return function(*args, **kwargs)

    return paused
