"""The IR view of PTX parameter declarations (kernel ``.param``, device-function ``.param``/``.reg``).

Invariant: ``param_of`` returns a ``ptx2gcn.ir.core.Param`` whose size, alignment and element count
are the declaration's, or raises a located error for a parameter the IR cannot hold. Shared by the
builder (function signatures) and the call lowering (prototypes of indirect calls).
"""

from __future__ import annotations

from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.ir.core import Param
from ptx2gcn.ir.types import PTX_TYPES


def param_of(p: ast.Param, space: str) -> Param:
    """The IR view of a PTX parameter declaration (``space``: kparam or param; ``.reg`` wins)."""
    ptx_type = p.type.lstrip(".")
    if ptx_type not in PTX_TYPES:
        raise UnsupportedError.feature(p.span, f"parameter of type {p.type}",
                                       "only scalar data types are supported as parameters")
    lanes = int(p.vector[2:]) if p.vector else 1
    count = lanes
    kind = "reg" if p.state_space == ".reg" else space
    for dim in p.dims:
        if dim is None:
            if kind != "param" or len(p.dims) != 1:
                raise Ptx2GcnError.at(p.span, "only a device function's .param parameter can be an "
                                              "array of unknown size")
            # ``.param .b8 x[]``: an unsized parameter array (its size is the caller's argument's).
            count = -1
            break
        count *= dim
    elem = max(PTX_TYPES[ptx_type].bits // 8, 1)
    if count < 0:
        return Param(p.name, kind, PTX_TYPES[ptx_type], ptx_type, 0, p.align or elem, -1)
    return Param(p.name, kind, PTX_TYPES[ptx_type], ptx_type, elem * count, p.align or elem * lanes,
                 count if (p.dims or p.vector) else 0, (p.ptr_space or "").lstrip("."), p.ptr_align or 0)
