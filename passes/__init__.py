"""IR passes, one per module, installed as ``ptx2gcn.passes``."""
