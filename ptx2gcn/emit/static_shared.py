"""The static ``.shared`` budget of a kernel, checked as ptxas checks it.

Invariant: ``check_static_shared`` raises a located error for the first kernel (in module order,
among those compiled) whose static ``.shared`` variables, laid out in declaration order with their
alignment, take more than ``STATIC_SHARED_LIMIT`` bytes; it does nothing else.

A kernel's static shared data is every non-``extern`` ``.shared`` variable whose address the kernel
or a function it can call takes (``addr_of``); an indirect call may reach every function whose
address is taken anywhere (``lower_control.referenced_symbols``). ptxas 13 rejects a kernel over
the limit on every target ("Entry function 'k' uses too much shared data (0xc007 bytes, 0xc000
max)"; measured with ``a[1]`` then ``.align 8 b[49151]``: 1 + 7 padding + 49151 = 0xc007),
whatever the device's shared memory size: more than 48 KiB must be dynamic shared memory, which a
launch sizes. gfx942's LDS is 64 KiB per work-group,
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


def check_static_shared(module: Module, kernels: Collection[str] | None, referenced: set[str]) -> None:
    """Reject the first kernel (all kernels, or those named in ``kernels``) over the limit;
    ``referenced`` is ``lower_control.referenced_symbols(module)`` (what an indirect call may reach)."""
    shared = {var.name: var for var in module.globals if var.space is AddrSpace.SHARED and var.count >= 0}
    if not shared:
        return
    reach = {fn.name: _direct_uses(fn, shared) for fn in module.functions}  # one pass over the ops
    indirect_targets = referenced & reach.keys()
    for fn in module.functions:
        if fn.kind != "kernel" or fn.is_declaration or (kernels is not None and fn.name not in kernels):
            continue
        used = _shared_used(fn.name, reach, indirect_targets)
        size = _layout_size(var for var in module.globals if var.name in used)
        if size > STATIC_SHARED_LIMIT:
            raise Ptx2GcnError(Diagnostic(
                Severity.ERROR, fn.loc,
                f"entry function '{fn.name}' uses too much shared data ({size:#x} bytes, "
                f"{STATIC_SHARED_LIMIT:#x} max): static .shared variables are limited to 48 KiB per "
                "kernel (ptxas rejects this kernel too); declare the array 'extern .shared' and pass "
                "its size at launch (dynamic shared memory)"))


def _direct_uses(fn: Function, shared: dict[str, Global]) -> tuple[set[str], set[str], bool]:
    """(``.shared`` variables ``fn`` takes the address of, functions it calls, whether it calls
    through a pointer)."""
    variables: set[str] = set()
    callees: set[str] = set()
    indirect = False
    for op in fn.ops():
        if op.name == "addr_of" and str(op.attrs.get("sym")) in shared:
            variables.add(str(op.attrs.get("sym")))
        elif op.name == "call":
            callees.add(str(op.attrs.get("callee")))
        elif op.name == "call_indirect":
            indirect = True
    return variables, callees, indirect


def _shared_used(kernel: str, reach: dict[str, tuple[set[str], set[str], bool]],
                 indirect_targets: set[str]) -> set[str]:
    """Names of the ``.shared`` variables ``kernel`` and the functions it can call take the address
    of (a work-list over the call graph, no recursion)."""
    seen = {kernel}
    work = [kernel]
    used: set[str] = set()
    while work:
        variables, callees, indirect = reach[work.pop()]
        used |= variables
        for name in (callees | indirect_targets) if indirect else callees:
            if name in reach and name not in seen:
                seen.add(name)
                work.append(name)
    return used


def _layout_size(variables: Iterable[Global]) -> int:
    """Bytes of ``variables`` placed one after the other, each at its alignment."""
    end = 0
    for var in variables:
        align = max(var.align, 1)
        end = -(-end // align) * align + var.size
    return end
