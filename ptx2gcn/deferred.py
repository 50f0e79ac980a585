"""Dispatch-table entries whose module is imported on their first call.

Invariant: each entry ``deferred_entries(table, module, attribute, names)`` returns is a stand-in
that, on its first call, imports ``module``, puts ``module.<attribute>[name]`` into ``table`` in its
own place and calls it with the same arguments; from then on ``table`` holds the real entry, so
only the first use of a name pays anything. A name the module's table lacks raises ``KeyError``
on first use (each user's tests check its names against the modules).

Why: the IR builder's and the LLVM emitter's lowering tables import modules for instructions most
kernels never use (warp-level ops, video, clusters, packing, matrices, textures); importing them up
front cost every small compile several milliseconds.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any

Entry = Callable[..., Any]


def deferred_entries(table: MutableMapping[str, Any], module: str, attribute: str,
                     names: Iterable[str]) -> dict[str, Entry]:
    """Stand-ins for ``names``, to be stored in ``table`` (see the module invariant)."""

    def stand_in(name: str) -> Entry:
        def first_call(*args: Any) -> Any:
            real = getattr(importlib.import_module(module), attribute)[name]
            table[name] = real
            return real(*args)

        return first_call

    return {name: stand_in(name) for name in names}
