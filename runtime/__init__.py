"""Runtime, installed as ``ptx2gcn.runtime``: fatbins, JIT cache, driver API, backends, emulator."""
