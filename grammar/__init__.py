"""The PTX grammar (``ptx.lark``), installed as ``ptx2gcn.grammar``; load it by package name."""
