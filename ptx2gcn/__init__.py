"""ptx2gcn: recompile CUDA PTX into AMDGPU (gfx942) code objects, and run them.

Pipeline (one stage per subpackage; docs/ARCHITECTURE.md): ``ptx2gcn.grammar`` + ``ptx2gcn.frontend``
(PTX text → typed AST) → ``ptx2gcn.translate`` (→ SSA IR, ``ptx2gcn.ir``) → ``ptx2gcn.passes`` →
``ptx2gcn.emit`` (LLVM via llvmlite) → ``ptx2gcn.link`` (own linker) → ``ptx2gcn.runtime`` (fatbins,
JIT cache, driver API, backends, gfx942 emulator).

``ptx2gcn.compile(ptx_text_or_path, options=None, *, name=None, **fields) -> CodeObject`` is
``ptx2gcn.compiler.compile``, the one public compile entry point (the runtime uses nothing else of
the compiler, besides ``ptx2gcn.split_units``, which cuts a module into lazily compiled units):
``options`` is a ``ptx2gcn.CompileOptions`` (``ptx2gcn.options``), ``fields``
replace single fields of it (``arch="gfx942", opt=3``), and ``CodeObject.data`` holds the code
object's bytes.

Invariant: importing ``ptx2gcn`` is cheap and has no side effects; heavy modules (lark, llvmlite,
numpy) load only when a stage that needs them runs (``compile``/``CodeObject`` load on first use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ptx2gcn.version import __version__

__all__ = ["CodeObject", "CompileOptions", "__version__", "compile", "split_units"]

if TYPE_CHECKING:
    from ptx2gcn.compiler import CodeObject, compile  # noqa: A004
    from ptx2gcn.frontend.units import split_units
    from ptx2gcn.options import CompileOptions


def __getattr__(name: str) -> object:
    if name in ("compile", "CodeObject", "split_units"):
        # The first use imports the compiler (lark, llvmlite, ~200 modules): with the cyclic
        # collector paused, which would otherwise walk the caller's whole heap (numpy, a host
        # program's objects) again and again while those long-lived module objects are allocated.
        from ptx2gcn.compile_gc import paused_gc

        with paused_gc():
            if name == "split_units":
                from ptx2gcn.frontend.units import split_units

                return split_units
            from ptx2gcn import compiler

            return getattr(compiler, name)
    if name == "CompileOptions":
        from ptx2gcn.options import CompileOptions

        return CompileOptions
    raise AttributeError(f"module 'ptx2gcn' has no attribute {name!r}")
