"""ptx2gcn as a C-ABI ``libcuda.so.1``: a small generated C shim whose exports call the Python driver.

Layout: ``abi`` (the one table of exported C entry points: names, C parameter kinds, the name and
CUDA version ``cuGetProcAddress`` knows each by), ``csource`` (the shim's C text, generated from
``abi``), ``build`` (compiling the shim and finding a built copy), ``bridge`` (the Python side: one
handler per export, installed into the shim's slot table at first use). See ``docs/libcuda.md``.

Invariant: ``abi.EXPORTS`` is the only list of entry points; the C source, the slot order and the
Python handlers are all derived from it, and ``bridge`` has a handler for every row (checked by
``tests/libcuda``).
"""
