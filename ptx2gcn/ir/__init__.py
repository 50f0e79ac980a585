"""ptx2gcn's SSA IR: types, the opcode table, ops, text form, verifier.

Invariant: IR handed from one stage to the next passes ``ptx2gcn.ir.verify.verify`` for its phase,
and its text form (``printer``) parses back (``parser``) to IR that prints identically. Nothing in
this package imports PTX-specific code (``ptx2gcn.frontend``, ``ptx2gcn.translate``): the IR is the
interface between the translator, the passes and the emitter (tests/unit/test_import_graph.py).

Layout: ``types`` (value types), ``opcodes`` (the one opcode table: every op's operands, results,
attributes and effects), ``core`` (Module/Function/Block/Op/Value with use lists), ``cfg``
(dominators), ``printer``/``parser``/``lexer`` (the text form; they round-trip exactly), ``verify``
with ``verify_rules`` (every invariant, per phase), ``evaluate`` (exact constant semantics),
``passbase`` (the pass interface; passes live in ``ptx2gcn.passes``), ``rewriter`` (an insertion
cursor for passes that expand one op into several, blocks included), ``wave64`` (Mode P warp
geometry as IR, shared by the ``wave64-*`` passes). PTX → IR is
``ptx2gcn.translate``.

Decision: SSA merges are **block arguments**, not phis.
- PTX gives us straight-line code with labels; the builder splits blocks constantly (every guarded
  side-effecting instruction becomes a branch around it). With block arguments a split only moves
  ops; with phis every phi in every successor must have its predecessor list rewritten.
- Braun et al.'s on-the-fly construction ("Simple and Efficient Construction of SSA Form", CC 2013)
  maps one-to-one: an "incomplete phi" is a block argument appended while the block is unsealed,
  and trivial-phi removal is ``Block.remove_arg``.
- Merge values live on the edge (``br -> ^b(%v)``), so the printed IR shows which value flows along
  which edge, and there is no "phi must be first in block" rule to maintain.
- Codegen maps each block argument to one LLVM ``phi`` whose incoming values are the successor
  arguments of each predecessor's terminator; the verifier forbids a conditional branch whose two
  targets are the same block, so every (predecessor, block) edge is unique, as LLVM phis need.
"""
