"""PTX source locations as LLVM ``!dbg`` locations (conventions C6), without emitting DWARF.

Invariant: with locations on, every LLVM instruction lowered from an IR op that has a ``loc``
carries ``!dbg !DILocation(line, column, scope: <its function's DISubprogram>)``, so LLVM's own
messages and ``--emit llvm`` output point at the PTX line. The compile unit's ``emissionKind`` is
``NoDebug``: the code object gets no debug sections. The module flags this needs are written here
together with the code-object-version flag (``ptx2gcn.emit.target.ensure_cov5`` then leaves the
module alone).
"""

from __future__ import annotations

import os

from llvmlite import ir

from ptx2gcn.diagnostics import Span
from ptx2gcn.emit.target import COV5_FLAG


class DebugLocations:
    """The DIFile/DICompileUnit of one module and the DISubprogram of each function."""

    def __init__(self, module: ir.Module, source: str) -> None:
        self.module = module
        directory, name = os.path.split(os.path.abspath(source)) if source != "<input>" else ("", source)
        self.file = module.add_debug_info("DIFile", {"filename": name, "directory": directory})
        self.unit = module.add_debug_info("DICompileUnit", {
            "language": ir.DIToken("DW_LANG_C99"), "file": self.file, "producer": "ptx2gcn",
            "isOptimized": True, "emissionKind": ir.DIToken("NoDebug")}, is_distinct=True)
        module.add_named_metadata("llvm.dbg.cu", self.unit)
        self._scope: ir.DIValue | None = None
        self._cache: dict[tuple[int, int], ir.DIValue] = {}

    def enter(self, fn: ir.Function, line: int) -> None:
        """Start function ``fn`` (declared at PTX ``line``): later locations are scoped to it."""
        subroutine = self.module.add_debug_info("DISubroutineType", {"types": self.module.add_metadata([])})
        self._scope = self.module.add_debug_info("DISubprogram", {
            "name": fn.name, "file": self.file, "line": line, "type": subroutine, "scopeLine": line,
            "unit": self.unit, "spFlags": ir.DIToken("DISPFlagDefinition | DISPFlagOptimized")},
            is_distinct=True)
        fn.set_metadata("dbg", self._scope)
        self._cache = {}

    def at(self, builder: ir.IRBuilder, loc: Span | None) -> None:
        """Attach ``loc`` to the instructions ``builder`` creates next (none when ``loc`` is None)."""
        if loc is None or loc.line <= 0 or self._scope is None:
            builder.debug_metadata = None
            return
        key = (loc.line, loc.column)
        location = self._cache.get(key)
        if location is None:
            location = self.module.add_debug_info("DILocation", {
                "line": loc.line, "column": loc.column, "scope": self._scope})
            self._cache[key] = location
        builder.debug_metadata = location


def module_flags_text() -> str:
    """The module-flag block (code object v5 and the debug-info version) to append to the IR text."""
    return (f'\n!llvm.module.flags = !{{!9998, !9999}}\n!9998 = !{{i32 2, !"Debug Info Version", i32 3}}\n'
            f"!9999 = {COV5_FLAG}\n")
