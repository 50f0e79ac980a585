"""Handlers of the entry points real clients need beyond the core set (numba-cuda, cuda.core,
cuda-python's examples): linking, host-mapped/registered/managed memory, pointer queries,
occupancy, stream callbacks, function attributes, peer access and IPC.

Same conventions as ``bridge``: C arguments as integers, the implementation in
``ptx2gcn.runtime.driver`` called through ``marshal._run``, outputs written through the caller's
pointers. The rows are the group of ``abi.EXPORTS`` marked "entry points for real clients".

Invariant: ``CLIENT_HANDLERS`` has exactly the symbols of that group; a handler never raises.
"""

from __future__ import annotations

from ptx2gcn.runtime.driver import linking as _linking
from ptx2gcn.runtime.libcuda.marshal import _U64, Handler, _bytes_at, _option_arrays, _run


def _link_create(count: int, options: int, values: int, out: int) -> int:
    keys, settings = _option_arrays(count, options, values)
    return _run(_linking.link_create, [(out, _U64)], count, keys, settings)


def _link_add_data(state: int, kind: int, data: int, size: int, name: int, *options: int) -> int:
    keys, settings = _option_arrays(*options)
    return _run(_linking.link_add_data, [], state, kind, data, size, _bytes_at(name), options[0], keys, settings)


def _link_add_file(state: int, kind: int, path: int, count: int, options: int, values: int) -> int:
    keys, settings = _option_arrays(count, options, values)
    return _run(_linking.link_add_file, [], state, kind, _bytes_at(path), count, keys, settings)


CLIENT_HANDLERS: dict[str, Handler] = {
    "cuLinkCreate_v2": _link_create,
    "cuLinkAddData_v2": _link_add_data,
    "cuLinkAddFile_v2": _link_add_file,
    "cuLinkComplete": lambda state, out, size: _run(_linking.link_complete, [(out, _U64), (size, _U64)], state),
    "cuLinkDestroy": lambda state: _run(_linking.link_destroy, [], state),
}
