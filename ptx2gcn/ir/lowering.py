"""The table from PTX opcode to its lowering function, and which lowerings are pure.

Invariant: ``LOWERINGS`` has one entry per PTX opcode the builder translates; ``PURE`` lists the
opcodes whose lowering emits only side-effect-free, non-convergent ops, so a guarded instance can
be computed unconditionally and selected (``selp``) instead of branched around.
"""

from __future__ import annotations

from ptx2gcn.ir.lower_alu import ALU, Lowering
from ptx2gcn.ir.lower_async import ASYNC
from ptx2gcn.ir.lower_cluster import CLUSTER
from ptx2gcn.ir.lower_control import CONTROL
from ptx2gcn.ir.lower_matrix import MATRIX
from ptx2gcn.ir.lower_mem import MEMORY
from ptx2gcn.ir.lower_texture import TEXTURE

LOWERINGS: dict[str, Lowering] = {**ALU, **MEMORY, **CONTROL, **MATRIX, **TEXTURE, **CLUSTER, **ASYNC}

PURE: frozenset[str] = frozenset(ALU) | frozenset(CLUSTER)
