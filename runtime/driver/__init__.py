"""The CUDA driver API's implementation behind ``ptx2gcn.cuda``: state, handles, calls, JIT.

Invariant: every call returns CUDA's ``CUresult`` for the case (``errors``: ``CudaError`` inside,
result tuples at the boundary), never a Python exception; handles are checked against the live
state (``state``) before use. PTX reaches the compiler only through ``jit``, which calls the public
``ptx2gcn.compile`` with a ``ptx2gcn.options.CompileOptions`` built from the module-load options.

Layout: ``state`` (driver, devices, contexts, handles), ``enums``/``types`` (cuda.h names),
``errors``, ``args``/``host`` (argument checking), ``device``, ``memory``, ``module`` (+ ``jit``),
``launch``, ``stream``, ``limits``: one file per family of calls.
"""
