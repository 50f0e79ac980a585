"""The pass interface: a frozen dataclass with a kebab-case ``name`` and ``run(module) -> bool``.

Invariant: a pass reads and rewrites one module in place; ``run`` returns whether it changed
anything, and the module then satisfies the verifier in phase ``ensures``. CompileOptions of a pass are
its dataclass fields. The module docstring of each pass states **Requires**, **Ensures** and
**Not handled**.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ptx2gcn.ir.core import Module


@dataclass(frozen=True)
class Pass:
    """Base class of every IR pass (see ``ptx2gcn.passes`` for the registry)."""

    name: ClassVar[str] = ""
    ensures: ClassVar[str] = "ssa"
    """The verifier phase the module is in after this pass."""

    def run(self, module: Module) -> bool:
        raise NotImplementedError
