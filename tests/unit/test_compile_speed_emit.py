"""Start-up guard for the LLVM IR emitter (functional, no timing): the lowering modules most kernels
never use are imported only when a kernel needs them.

Importing the video, cluster, pack, printf and fp8 lowerings up
front cost every compilation about 10 ms of CPU (``python -X importtime``); the dispatch table
defers them (``ptx2gcn.emit.lowerings.DEFERRED``), and ``lower_control``/``lower_convert`` import
the printf and fp8 lowerings where they lower ``vprintf`` calls and fp8 conversions.
"""

from __future__ import annotations

import gc
from pathlib import Path

from llvmlite import ir

from ptx2gcn.compile_gc import paused_gc
from ptx2gcn.compiler import to_ir
from ptx2gcn.emit.lowerings import DEFERRED
from ptx2gcn.emit.module import emit_llvm
from tests.codegen.test_lowerings_deferred import PACK_PTX
from tests.unit.test_compile_speed_gc import PTX
from tests.unit.test_compile_speed_imports import _modules_after  # pyright: ignore[reportPrivateUsage]

ON_DEMAND = (*DEFERRED, "ptx2gcn.emit.lower_printf", "ptx2gcn.emit.lower_float_fp8")
"""Lowering modules that compiling a kernel which does not use them must not import."""

COMPILE = "import sys\nfrom ptx2gcn.compiler import compile\ncompile(sys.argv[1])"


def _compiled_modules(tmp_path: Path, ptx: str) -> list[str]:
    source = tmp_path / "k.ptx"
    source.write_text(ptx)
    modules = _modules_after(COMPILE, str(source))
    assert "ptx2gcn.link.linker" in modules  # it did compile
    return modules


def test_a_plain_kernel_imports_no_on_demand_lowering(tmp_path: Path) -> None:
    modules = _compiled_modules(tmp_path, PTX)
    assert "ptx2gcn.emit.lower_int" in modules
    assert [m for m in ON_DEMAND if m in modules] == []


def test_a_cvt_pack_imports_the_pack_lowering_only(tmp_path: Path) -> None:
    modules = _compiled_modules(tmp_path, PACK_PTX)
    assert [m for m in ON_DEMAND if m in modules] == ["ptx2gcn.emit.lower_pack"]


def test_the_llvmlite_module_is_freed_without_the_cyclic_collector() -> None:
    """``emit_llvm`` empties the printed module's reference cycles, so its instructions and blocks
    are gone when it returns even with the collector off (the collection after a large compile would
    otherwise spend ~0.25 s CPU on them)."""
    module = to_ir(PTX, "k.ptx")
    gc.collect()
    with paused_gc():
        text = emit_llvm(module)
        left = [o for o in gc.get_objects() if isinstance(o, (ir.Instruction, ir.Block))]
    assert "define amdgpu_kernel void @\"add_one\"" in text
    assert left == []


def test_the_llvmlite_check_sees_a_live_instruction() -> None:
    """The check above can fail: an instruction that is still referenced is found."""
    gc.collect()
    with paused_gc():
        function = ir.Function(ir.Module(), ir.FunctionType(ir.VoidType(), []), "f")
        ir.IRBuilder(function.append_basic_block()).ret_void()
        left = [o for o in gc.get_objects() if isinstance(o, (ir.Instruction, ir.Block))]
    assert len(left) == 2
