"""ptx2gcn's SSA IR (see ``ptx2gcn.ir.core`` for the representation and its invariants)."""
