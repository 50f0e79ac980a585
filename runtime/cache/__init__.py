"""The JIT cache: code objects by content-addressed key, in memory and on disk.

Invariant: a hit returns exactly the bytes a fresh compilation with the same key would produce: the
key (``key.CacheKey``) holds every input of the compilation (PTX bytes, the whole
``CompileOptions`` value, ptx2gcn's version and source identity, the LLVM version), and a stored
entry is served only when its full key matches byte for byte (``store``).

Layout: ``key`` (keys and their address), ``store`` (the on-disk half, atomic writes, LRU size
bound), ``jit_cache`` (``JitCache``: memory in front of the store, ``get_or_build``).
"""
