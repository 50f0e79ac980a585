"""The static ``.shared`` budget of a kernel, checked as ptxas checks it.

Invariant: ``check_static_shared`` raises a located error for the first kernel (in module order,
among those compiled) whose static ``.shared`` variables, laid out in declaration order with their
alignment, take more than ``STATIC_SHARED_LIMIT`` bytes; it does nothing else.

A kernel's static shared data is every non-``extern`` ``.shared`` variable whose address the kernel
or a function it can call takes (``addr_of``); an indirect call may reach every function whose
address is taken anywhere. ptxas 13 rejects such a kernel on every target ("Entry function 'k'
uses too much shared data (0xc007 bytes, 0xc000 max)"; measured with ``a[1]`` then ``.align 8
b[49151]``: 1 + 7 padding + 49151 = 0xc007), whatever the device's shared memory size: more than
48 KiB must be dynamic shared memory, which a launch sizes. gfx942's LDS is 64 KiB per work-group,
so without this check a kernel between 48 and 64 KiB would compile here and be rejected by CUDA,
and one above 64 KiB would reach LLVM, whose error names no PTX line.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from ptx2gcn.diagnostics import Diagnostic, Ptx2GcnError, Severity
from ptx2gcn.ir.core import Function, Global, Module
from ptx2gcn.ir.types import AddrSpace

STATIC_SHARED_LIMIT = 0xC000
"""ptxas's limit on static ``.shared`` bytes per kernel, the same for sm_75 … sm_120."""


def check_static_shared(module: Module, kernels: Collection[str] | None = None) -> None:
    """Reject the first kernel (all kernels, or those named in ``kernels``) over the limit."""
    shared = {var.name: var for var in module.globals if var.space is AddrSpace.SHARED and var.count >= 0}
    if not shared:
        return
    functions = {fn.name: fn for fn in module.functions}
    address_taken = {str(op.attrs.get("sym")) for fn in module.functions for op in fn.ops()
                     if op.name == "addr_of"} & functions.keys()
    for fn in module.functions:
        if fn.kind != "kernel" or fn.is_declaration or (kernels is not None and fn.name not in kernels):
            continue
        used = _shared_used(fn, functions, address_taken, shared)
        size = _layout_size(var for var in module.globals if var.name in used)
        if size > STATIC_SHARED_LIMIT:
            raise Ptx2GcnError(Diagnostic(
                Severity.ERROR, fn.loc,
                f"entry function '{fn.name}' uses too much shared data ({size:#x} bytes, "
                f"{STATIC_SHARED_LIMIT:#x} max): static .shared variables are limited to 48 KiB per "
                "kernel (ptxas rejects this kernel too); declare the array 'extern .shared' and pass "
                "its size at launch (dynamic shared memory)"))


def _shared_used(kernel: Function, functions: dict[str, Function], address_taken: set[str],
                 shared: dict[str, Global]) -> set[str]:
    """Names of the ``.shared`` variables ``kernel`` and its callees take the address of (a
    work-list over the call graph, no recursion)."""
    seen = {kernel.name}
    work = [kernel]
    used: set[str] = set()
    while work:
        fn = work.pop()
        for op in fn.ops():
            callees: Collection[str] = ()
            if op.name == "addr_of":
                sym = str(op.attrs.get("sym"))
                if sym in shared:
                    used.add(sym)
            elif op.name == "call":
                callees = (str(op.attrs.get("callee")),)
            elif op.name == "call_indirect":
                callees = address_taken
            for name in callees:
                callee = functions.get(name)
                if callee is not None and name not in seen:
                    seen.add(name)
                    work.append(callee)
    return used


def _layout_size(variables: Iterable[Global]) -> int:
    """Bytes of ``variables`` placed one after the other, each at its alignment."""
    end = 0
    for var in variables:
        align = max(var.align, 1)
        end = -(-end // align) * align + var.size
    return end
