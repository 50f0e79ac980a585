"""Devices behind the driver API: the ``Backend`` protocol and its three implementations.

Invariant: the driver reaches a device only through ``protocol.Backend``; a backend module is
imported only when it is chosen (``protocol.select_backend``), so the emulator's numpy or HIP's
library load only where they are used. Device faults become ``BackendError`` with their site.

Layout: ``protocol`` (the interface, the registry, the choice), ``base`` (what the backends share),
``emulator`` (ptx2gcn's gfx942 emulator, ``ptx2gcn.runtime.emulator``), ``hip`` over ``hip_ctypes``
(libamdhip64 through ctypes), ``cuda`` (the original PTX through cuda-python), ``messages`` (device
``printf`` and ``assert`` around a launch).
"""
