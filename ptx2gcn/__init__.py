"""ptx2gcn: recompile CUDA PTX into AMDGPU (gfx942) code objects, and run them.

Pipeline (one stage per subpackage): ``ptx2gcn.grammar`` + ``ptx2gcn.frontend`` (PTX text → typed AST)
→ ``ptx2gcn.ir`` (SSA IR) → ``ptx2gcn.passes`` → ``ptx2gcn.emit`` (LLVM via llvmlite, own linker)
→ ``ptx2gcn.runtime`` (fatbins, JIT cache, driver API, backends, gfx942 emulator).

Invariant: importing ``ptx2gcn`` is cheap and has no side effects; heavy modules (lark, llvmlite,
numpy) load only when a stage that needs them runs.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
