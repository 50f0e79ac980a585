"""What a compile leaves for Python's cyclic garbage collector: none of its AST or IR.

``compile()`` and ``compile_llvm()`` own the IR they build (``ptx2gcn.ir.core.dispose`` empties it
once the LLVM IR is printed), the passes ``detach`` the ops they remove, and the IR builder keeps no
reference cycle through the AST, so reference counting frees all of it. The check: run the code with
the collector off, then collect with ``gc.DEBUG_SAVEALL`` and look at the types of what the collector
found (everything it would have had to free, cycles and what hangs off them). The IR that
``to_ir`` returns to its caller is the caller's, and stays whole.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable

import pytest

from ptx2gcn import compiler
from ptx2gcn.diagnostics import Span
from ptx2gcn.frontend import ast
from ptx2gcn.ir import core
from ptx2gcn.ir.core import Op, dispose
from ptx2gcn.ir.types import I32
from ptx2gcn.ir.verify import verify
from ptx2gcn.translate import emitter

# A loop (block arguments), a dead add, a common subexpression, a constant to fold, a guarded
# branch and an unreachable block: every way the passes take ops out of a function.
PTX = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry loop(.param .u64 p, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r2, 0;
    add.s32 %r5, %r1, 7;
    mov.u32 %r6, 3;
    add.s32 %r7, %r6, 4;
LOOP:
    add.s32 %r3, %r2, %r1;
    add.s32 %r4, %r2, %r1;
    add.s32 %r2, %r3, %r4;
    setp.lt.u32 %p1, %r2, 100;
    @%p1 bra LOOP;
    add.s32 %r2, %r2, %r7;
    st.global.u32 [%rd2], %r2;
    ret;
DEAD:
    st.global.u32 [%rd2], %r1;
    ret;
}
"""

TRACKED = (core.__name__, ast.__name__, emitter.__name__)
"""Modules whose objects a finished compile must not leave to the collector (with ``Span``)."""


def _left_to_collector(work: Callable[[], object]) -> Counter[str]:
    """Run ``work`` with the collector off; the AST/IR/emitter objects (and Spans) that the next
    collection then finds, counted by type name."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        work()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found = Counter(type(o).__qualname__ for o in gc.garbage
                        if type(o).__module__ in TRACKED or isinstance(o, Span))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    return found


def test_the_check_sees_an_undisposed_module() -> None:
    """The check can fail: a module dropped without ``dispose`` is left to the collector."""
    found = _left_to_collector(lambda: compiler.to_ir(PTX, "k.ptx"))
    assert found["Op"] > 0 and found["Block"] > 0 and found["Use"] > 0


def test_a_disposed_module_is_freed_by_reference_counting() -> None:
    found = _left_to_collector(lambda: dispose(compiler.to_ir(PTX, "k.ptx")))
    assert found == Counter()


@pytest.mark.parametrize("entry", [compiler.compile, compiler.compile_llvm, compiler.compile_object])
def test_compile_leaves_no_ast_or_ir_to_the_collector(entry: Callable[[str], object]) -> None:
    assert _left_to_collector(lambda: entry(PTX)) == Counter()


def test_a_rejected_input_leaves_no_ir_to_the_collector() -> None:
    """A kernel the module does not have fails ``emit_llvm``: the IR is disposed of all the same."""

    def rejected() -> None:
        with pytest.raises(compiler.Ptx2GcnError):
            compiler.compile_llvm(PTX, kernels=["no_such_kernel"])

    found = _left_to_collector(rejected)
    assert not {"Op", "Block", "Use", "OpResult", "BlockArg"} & set(found)


def test_dispose_empties_every_function() -> None:
    module = compiler.to_ir(PTX, "k.ptx")
    ops = [op for fn in module.functions for op in fn.ops()]
    blocks = [block for fn in module.functions for block in fn.blocks]
    assert len(blocks) > 1 and any(block.args for block in blocks)
    kept = [(op.name, dict(op.attrs), op.loc) for op in ops]
    dispose(module)
    assert [fn.blocks for fn in module.functions] == [[]]
    assert all(not block.ops and not block.args and block.parent is None for block in blocks)
    assert all((op.operands, op.results, op.successors, op.parent) == ([], [], [], None) for op in ops)
    assert [(op.name, op.attrs, op.loc) for op in ops] == kept


def test_to_ir_returns_a_whole_module() -> None:
    """``to_ir``'s caller keeps the IR: nothing of it is disposed of."""
    module = compiler.to_ir(PTX, "k.ptx")
    verify(module)
    assert sum(1 for _ in module.functions[0].ops()) > 5


def test_detach_forgets_uses_results_and_block() -> None:
    const = Op("const", (), (I32,), {"value": 3})
    add = Op("add", (const.result, const.result), (I32,), {"type": "u32"})
    block = core.Block("b")
    block.append(const)
    block.append(add)
    block.ops.remove(add)
    add.detach()
    assert not const.result.uses
    assert (add.operands, add.results, add.successors, add.parent) == ([], [], [], None)
    assert add.name == "add" and add.attrs == {"type": "u32"}


def test_erase_detaches() -> None:
    const = Op("const", (), (I32,), {"value": 3})
    neg = Op("neg", (const.result,), (I32,), {"type": "s32"})
    block = core.Block("b")
    block.append(const)
    block.append(neg)
    neg.erase()
    assert block.ops == [const] and not const.result.uses
    assert (neg.operands, neg.results, neg.parent) == ([], [], None)
