"""PTX front end: text → typed AST (``ptx2gcn.frontend.ast``), with located diagnostics.

Public API: ``parse_ptx(text, filename)`` and ``parse_file(path)`` return an ``ast.Module`` or raise
``ptx2gcn.diagnostics.Ptx2GcnError``; ``printer.print_module`` emits canonical PTX;
``check.check_module`` returns the module-level diagnostics (undeclared names, duplicates).
"""

from ptx2gcn.frontend.parse import parse_bytes, parse_file, parse_ptx

__all__ = ["parse_bytes", "parse_file", "parse_ptx"]
