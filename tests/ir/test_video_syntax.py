"""Video instruction operand syntax (PTX ISA 9.7.18): byte/half selectors on sources
(``a.b1``, ``a.h0``; SIMD ``a.h32``, ``a.b7531``), a destination selector or lane mask (``d.h1``,
``d.b31``), vmad's ``.shr7/.shr15`` scale and negated sources — parsed and carried by the ``video``
op as written (which selectors a form allows is the code generator's check). Spellings ptxas
13.0 accepts (checked by hand with ``ptxas -arch=sm_80``)."""

from __future__ import annotations

import pytest

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.ir.core import Op
from ptx2gcn.ir.parser import parse_module
from ptx2gcn.ir.printer import print_module
from ptx2gcn.translate.load import module_from_ptx


def video(line: str) -> Op:
    text = (".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<6>;\n"
            f"{line}\nret;\n}}\n")
    module = module_from_ptx(text, "v.ptx")
    assert print_module(parse_module(print_module(module))) == print_module(module)
    (op,) = [op for op in module.functions[0].ops() if op.name == "video"]
    return op


@pytest.mark.parametrize(("line", "attrs"), [
    ("vadd.s32.u32.s32 %r1.h1, %r2.b1, %r3.h1, %r4;", {"dsel": "h1", "asel": "b1", "bsel": "h1"}),
    ("vadd4.u32.u32.u32.add %r1.b31, %r2.b7531, %r3.b0246, %r4;",
     {"dsel": "b31", "asel": "b7531", "bsel": "b0246", "secondary": "add"}),
    ("vsub2.s32.s32.u32.sat %r1.h0, %r2.h32, %r3.h10, %r4;", {"dsel": "h0", "asel": "h32", "bsel": "h10",
                                                              "sat": True}),
    ("vmad.s32.s32.s32.shr7 %r1, -%r2.b1, %r3, %r4;", {"asel": "b1", "neg_a": True, "scale": "shr7"}),
    ("vmad.s32.s32.s32.sat %r1, %r2, %r3, -%r4;", {"neg_c": True, "sat": True}),
])
def test_selectors_masks_scale_and_negation(line: str, attrs: dict[str, object]) -> None:
    op = video(line)
    got = {k: v for k, v in op.attrs.items() if k not in ("inst", "types")}
    assert got == attrs


def test_negation_only_on_vmad_sources() -> None:
    with pytest.raises(Ptx2GcnError) as caught:
        video("vadd.s32.s32.s32 %r1, -%r2, %r3, %r4;")
    assert "only vmad" in caught.value.diagnostics[0].message
