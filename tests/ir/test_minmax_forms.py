"""add/min/max forms beyond one scalar type: ``.xorsign.abs`` on float min/max, ``.relu``, and the
packed 16-bit integer types ``u16x2``/``s16x2`` (PTX 8.0, sm_90; ``sub`` has none).

Expected IR facts come from the PTX ISA (9.7.1.1/9.7.1.2 add/sub, 9.7.1.10/9.7.1.11 min/max,
9.7.3.10/9.7.3.11 float min/max): the packed forms read and write ``.b32`` registers, so the IR op
works on i32 values and its ``type`` attribute says "two 16-bit halves"; the float forms keep their
float type; ``.xorsign.abs`` is one attribute (``xorsign``). Rejected spellings are the ones ptxas
13.0 rejects (checked by hand with ``ptxas -arch=sm_90``; tests/frontend/test_ptxas_oracle.py
re-checks them wherever ptxas is installed).
"""

from __future__ import annotations

import pytest

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.ir.core import Op
from ptx2gcn.ir.parser import parse_module
from ptx2gcn.ir.printer import print_module
from ptx2gcn.ir.types import BF16, BF16X2, F16, F16X2, F32, I32, Type
from ptx2gcn.ir.verify import verify
from ptx2gcn.translate.load import module_from_ptx

REGS = (".reg .b32 %r<4>; .reg .f32 %f<4>; .reg .f64 %fd<4>; .reg .b16 %h<4>; .reg .f16x2 %x<4>; "
        ".reg .bf16x2 %y<4>;")


def build_ops(line: str, name: str) -> list[Op]:
    text = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
            f"{REGS}\n{line}\nret;\n}}\n")
    module = module_from_ptx(text, "t.ptx")
    again = parse_module(print_module(module), "t.ir")
    verify(again)
    assert print_module(again) == print_module(module), "IR text does not round-trip"
    return [op for op in module.functions[0].ops() if op.name == name]


FLOAT_FORMS: list[tuple[str, str, Type]] = [
    ("f32", "%f", F32), ("f16", "%h", F16), ("bf16", "%h", BF16), ("f16x2", "%x", F16X2),
    ("bf16x2", "%y", BF16X2),
]


@pytest.mark.parametrize("opcode", ["min", "max"])
@pytest.mark.parametrize(("ptx_type", "reg", "ir_type"), FLOAT_FORMS)
def test_xorsign_abs_is_an_attribute_on_the_float_op(opcode: str, ptx_type: str, reg: str,
                                                     ir_type: Type) -> None:
    (op,) = build_ops(f"{opcode}.NaN.xorsign.abs.{ptx_type} {reg}1, {reg}2, {reg}3;", opcode)
    assert op.attrs == {"type": ptx_type, "xorsign": True, "nan": True}
    assert [v.type for v in op.operand_values] == [ir_type, ir_type]
    assert op.results[0].type == ir_type


def test_xorsign_abs_modifier_order_does_not_matter() -> None:
    (op,) = build_ops("min.abs.xorsign.f32 %f1, %f2, %f3;", "min")
    assert op.attrs == {"type": "f32", "xorsign": True}


@pytest.mark.parametrize("opcode", ["add", "min", "max"])
@pytest.mark.parametrize("ptx_type", ["u16x2", "s16x2"])
def test_packed_integer_ops_work_on_i32_with_the_packed_type(opcode: str, ptx_type: str) -> None:
    (op,) = build_ops(f"{opcode}.{ptx_type} %r1, %r2, %r3;", opcode)
    assert op.attrs == {"type": ptx_type}
    assert [v.type for v in op.operand_values] == [I32, I32] and op.results[0].type == I32


@pytest.mark.parametrize("spelling", ["min.relu.s16x2", "max.relu.s16x2", "min.relu.s32", "max.relu.s32"])
def test_relu_forms(spelling: str) -> None:
    opcode, _, ptx_type = spelling.split(".")
    (op,) = build_ops(f"{spelling} %r1, %r2, %r3;", opcode)
    assert op.attrs == {"type": ptx_type, "relu": True}


REJECTED = {
    # spelling -> part of the message (ptxas 13.0's wording, in lower case where it differs)
    "min.xorsign.f32 %f1, %f2, %f3;": "'.xorsign' requires modifier '.abs'",
    "min.abs.f32 %f1, %f2, %f3;": "'.abs' requires modifier '.xorsign'",
    "max.xorsign.abs.s32 %r1, %r2, %r3;": "illegal modifier '.xorsign'",
    "min.ftz.f64 %fd1, %fd2, %fd3;": "illegal modifier '.ftz'",
    "min.NaN.s32 %r1, %r2, %r3;": "illegal modifier '.NaN'",
    "min.relu.u16x2 %r1, %r2, %r3;": "illegal modifier '.relu'",
    "max.relu.f32 %f1, %f2, %f3;": "illegal modifier '.relu'",
    "add.sat.s16x2 %r1, %r2, %r3;": "'.sat' does not apply to '.s16x2'",
    "add.cc.u16x2 %r1, %r2, %r3;": "'.cc' does not apply to '.u16x2'",
    "min.u16x2.s32 %r1, %r2, %r3;": "exactly one type modifier",
    "mul.lo.u16x2 %r1, %r2, %r3;": "exactly one type modifier",
    # PTX ISA 9.7.1.2: sub has no packed form (ptxas: "Unexpected instruction types specified for 'sub'")
    "sub.u16x2 %r1, %r2, %r3;": "unexpected instruction types specified for 'sub'",
    "sub.s16x2 %r1, %r2, %r3;": "unexpected instruction types specified for 'sub'",
}


@pytest.mark.parametrize("line", REJECTED)
def test_invalid_combinations_are_located_errors(line: str) -> None:
    with pytest.raises(Ptx2GcnError) as caught:
        build_ops(line, "min")
    (diagnostic,) = caught.value.diagnostics
    assert REJECTED[line] in diagnostic.message
    assert diagnostic.span is not None and (diagnostic.span.line, diagnostic.span.column) == (7, 1)
