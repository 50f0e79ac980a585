"""The table from PTX opcode to its lowering function, and which lowerings are pure.

Invariant: ``LOWERINGS`` has one entry per PTX opcode the builder translates; ``PURE`` lists the
opcodes whose lowering emits only side-effect-free, non-convergent ops, so a guarded instance can
be computed unconditionally and selected (``selp``) instead of branched around. The modules in
``DEFERRED`` (instructions most kernels never use) are imported on the first instruction they
lower: until then their entries are stand-ins (``ptx2gcn.deferred``) that import the module, put its real lowering in
the table and run it.
"""

from __future__ import annotations

from ptx2gcn.deferred import deferred_entries
from ptx2gcn.translate.alu import ALU, Lowering
from ptx2gcn.translate.async_proxy import ASYNC
from ptx2gcn.translate.cluster import CLUSTER
from ptx2gcn.translate.control import CONTROL
from ptx2gcn.translate.memory import MEMORY

DEFERRED: dict[str, tuple[str, tuple[str, ...]]] = {
    "ptx2gcn.translate.matrix": ("MATRIX", ("mma", "wmma", "ldmatrix", "stmatrix", "movmatrix")),
    "ptx2gcn.translate.texture": ("TEXTURE", ("txq", "suq", "tex", "tld4", "suld", "sust")),
}
"""Lowering modules imported on first use → (their table's name, the opcodes it defines). Why: a
compile process otherwise imports (and, without a bytecode cache, byte-compiles) them for every
kernel; ``tests/ir/test_lowering_table.py`` checks these opcodes against the modules' tables."""


LOWERINGS: dict[str, Lowering] = {**ALU, **MEMORY, **CONTROL, **CLUSTER, **ASYNC}
for _module, (_table, _opcodes) in DEFERRED.items():
    LOWERINGS.update(deferred_entries(LOWERINGS, _module, _table, _opcodes))

PURE: frozenset[str] = frozenset(ALU) | frozenset(CLUSTER)
