"""A whole-kernel PTX interpreter: the reference executor for launches (``// LAUNCH:`` file tests).

It runs every thread of a grid over the typed AST of ``ptx2gcn.frontend`` with warp-32 semantics:
lanes of a warp execute together at the lowest program counter among them (so diverged lanes
reconverge), CTA barriers and ``.sync`` warp collectives wait for their participants, memory is
byte arrays per state space behind PTX's generic addresses, and every value an instruction computes
comes from ``ptx2gcn.reference`` (the exact per-instruction model, warp collectives included).
Threads call ``.func`` functions with a frame each; lanes of a warp run together where their call
sites and program counter agree.
Values PTX leaves unspecified stay unspecified (``Machine.read`` reports which bytes are fixed).

Invariant: imports only ``ptx2gcn.frontend`` (to parse), ``ptx2gcn.reference`` (semantics) and
``ptx2gcn.diagnostics``; nothing of the compiler (``translate``, ``ir``, ``passes``, ``emit``,
``link``) or the runtime and its emulator, so it is an independent oracle for what they run
(``tests/unit/test_import_graph.py``). An instruction it does not model is a located
``unsupported: <instruction>: ...`` error, never a guess.

Use::

    machine = Machine(ptx_text, "k.ptx")
    out = machine.allocate(bytes(256))
    machine.launch("k", grid=(1, 1, 1), block=(64, 1, 1), params=[out.to_bytes(8, "little")])
    data, fixed = machine.read(out, 256)

Adding an instruction: its values belong in ``ptx2gcn.reference`` (then ``alu.arithmetic`` runs it
with no change here); control flow, memory and synchronisation have their handler in ``machine``'s
dispatch (``_execute``), ``memops`` or ``sync``; what a warp executes together (collectives, the
``.aligned`` matrix instructions of ``matrix`` and ``wmma``, fed by ``ptx2gcn.reference.mma``) is a
row of ``sync.WARP_LEVEL``; ``calls`` runs ``.func`` calls. Not modelled: indirect calls, ``.shared``
variables declared inside a ``.func``, sub-byte and ``.b1`` matrix forms, ``brx.idx``, ``alloca``,
``cp.async``, ``mbarrier``, textures and surfaces.

Cost: one reference-model call per instruction per warp group; about 0.1-0.3 ms per executed
instruction group plus the model's per-lane cost, so it is meant for small test launches.
"""

from ptx2gcn.interp.machine import Machine

__all__ = ["Machine"]
