"""``redux.sync``: the IR op holds every form PTX defines (PTX ISA 9.7.13.11: add/min/max on .u32/.s32,
and/or/xor on .b32, and since PTX 8.6 min/max on .f32 with optional .abs and .NaN) and rejects the
type/operation pairs ptxas 13.0 rejects, at the instruction's line. Code generation refuses the f32
forms with a located ``unsupported`` (never an invalid-IR error)."""

from __future__ import annotations

import pytest

from ptx2gcn.compiler import compile as compile_ptx
from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
from ptx2gcn.ir.core import Op
from ptx2gcn.ir.parser import parse_module
from ptx2gcn.ir.printer import print_module
from ptx2gcn.ir.types import F32
from ptx2gcn.translate.load import module_from_ptx

HEAD = ".version 8.6\n.target sm_100a\n.address_size 64\n"


def kernel(line: str) -> str:
    return (f"{HEAD}.visible .entry k(.param .u64 p)\n{{\n"
            ".reg .b32 %r<4>; .reg .f32 %f<4>; .reg .b64 %rd<2>;\n"
            f"{line}\nret;\n}}\n")


def redux_op(line: str) -> Op:
    module = module_from_ptx(kernel(line), "t.ptx")
    assert print_module(parse_module(print_module(module))) == print_module(module)
    (op,) = [op for op in module.functions[0].ops() if op.name == "redux"]
    return op


@pytest.mark.parametrize(("spelling", "attrs"), [
    ("redux.sync.min.f32", {"op": "min", "type": "f32"}),
    ("redux.sync.max.abs.f32", {"op": "max", "type": "f32", "abs": True}),
    ("redux.sync.min.NaN.f32", {"op": "min", "type": "f32", "nan": True}),
    ("redux.sync.max.abs.NaN.f32", {"op": "max", "type": "f32", "abs": True, "nan": True}),
    ("redux.sync.min.NaN.abs.f32", {"op": "min", "type": "f32", "abs": True, "nan": True}),
])
def test_float_forms_build_with_the_float_type(spelling: str, attrs: dict[str, object]) -> None:
    op = redux_op(f"{spelling} %f1, %f2, 0xffffffff;")
    assert op.attrs == attrs
    assert op.operand(0).type == F32 and op.results[0].type == F32


@pytest.mark.parametrize("line", [
    "redux.sync.add.f32 %f1, %f2, -1;",
    "redux.sync.and.u32 %r1, %r2, -1;",
    "redux.sync.add.b32 %r1, %r2, -1;",
    "redux.sync.min.u64 %rd1, %rd1, -1;",
    "redux.sync.min.abs.s32 %r1, %r2, -1;",
    "redux.sync.max.NaN.u32 %r1, %r2, -1;",
])
def test_forms_ptxas_rejects_are_located_errors(line: str) -> None:
    with pytest.raises(Ptx2GcnError) as caught:
        redux_op(line)
    assert not isinstance(caught.value, UnsupportedError)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.span is not None and diagnostic.span.line == 7
    assert "invalid IR" not in diagnostic.message


def test_codegen_refuses_the_float_form_with_a_located_unsupported(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    path = tmp_path / "r.ptx"
    path.write_text(kernel("redux.sync.max.abs.NaN.f32 %f1, %f2, 0xffffffff;"))
    with pytest.raises(UnsupportedError) as caught:
        compile_ptx(str(path), arch="gfx942")
    rendered = caught.value.diagnostics[0].render()
    assert "redux" in rendered and f"{path}:7:" in rendered
