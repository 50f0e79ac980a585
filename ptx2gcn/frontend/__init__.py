"""PTX front end: text → typed AST (``ptx2gcn.frontend.ast``), with located diagnostics."""
