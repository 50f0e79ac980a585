"""ptx2gcn: recompile CUDA PTX into AMDGPU (gfx942) code objects, and run them.

Pipeline (one stage per subpackage): ``ptx2gcn.grammar`` + ``ptx2gcn.frontend`` (PTX text → typed AST)
→ ``ptx2gcn.ir`` (SSA IR) → ``ptx2gcn.passes`` → ``ptx2gcn.emit`` (LLVM via llvmlite, own linker)
→ ``ptx2gcn.runtime`` (fatbins, JIT cache, driver API, backends, gfx942 emulator).

``ptx2gcn.compile(ptx_text_or_path, arch="gfx942", opt=3) -> CodeObject`` is
``ptx2gcn.compiler.compile``.

Invariant: importing ``ptx2gcn`` is cheap and has no side effects; heavy modules (lark, llvmlite,
numpy) load only when a stage that needs them runs (``compile``/``CodeObject`` load on first use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

__all__ = ["CodeObject", "__version__", "compile"]

if TYPE_CHECKING:
    from ptx2gcn.compiler import CodeObject, compile  # noqa: A004


def __getattr__(name: str) -> object:
    if name in ("compile", "CodeObject"):
        from ptx2gcn import compiler

        return getattr(compiler, name)
    raise AttributeError(f"module 'ptx2gcn' has no attribute {name!r}")
