"""``.texref``/``.samplerref`` initializers (PTX ISA 5.3 "Texture Sampler and Surface Types"): the
``{ field = value }`` state is held by the IR global (``sampler {...}`` in the text form), checked
by the verifier, and round-trips; a wrong field is a located error."""

from __future__ import annotations

import pytest

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.ir.parser import parse_module
from ptx2gcn.ir.printer import print_module
from ptx2gcn.ir.verify import verify
from ptx2gcn.translate.load import module_from_ptx

HEAD = ".version 8.0\n.target sm_80, texmode_independent\n.address_size 64\n"
KERNEL = ".visible .entry k(.param .u64 p)\n{\nret;\n}\n"


def test_fields_are_kept_in_order_and_round_trip() -> None:
    text = (HEAD + ".global .texref t = { filter_mode = linear, addr_mode_0 = clamp_to_edge, "
            "normalized_coords = 1 };\n"
            ".global .samplerref s = { addr_mode_1 = wrap, filter_mode = nearest };\n"
            ".global .texref plain;\n" + KERNEL)
    module = module_from_ptx(text, "s.ptx")
    t, s, plain = (module.global_(n) for n in ("t", "s", "plain"))
    assert t is not None and s is not None and plain is not None
    want = (("filter_mode", "linear"), ("addr_mode_0", "clamp_to_edge"), ("normalized_coords", 1))
    assert t.sampler == want
    assert s.sampler == (("addr_mode_1", "wrap"), ("filter_mode", "nearest")) and plain.sampler == ()
    printed = print_module(module)
    assert print_module(parse_module(printed, "s.ir")) == printed


@pytest.mark.parametrize(("init", "message"), [
    ("{ filter_mode = cubic }", "'cubic' is not a value of filter_mode"),
    ("{ colour = red }", "unknown or repeated sampler field 'colour'"),
    ("{ filter_mode = linear, filter_mode = nearest }", "unknown or repeated sampler field 'filter_mode'"),
])
def test_bad_fields_are_located(init: str, message: str) -> None:
    with pytest.raises(Ptx2GcnError) as caught:
        module_from_ptx(HEAD + f".global .samplerref s = {init};\n" + KERNEL, "s.ptx")
    (diagnostic,) = caught.value.diagnostics
    assert message in diagnostic.message and diagnostic.span is not None and diagnostic.span.line == 4


def test_verifier_rejects_fields_on_a_surface() -> None:
    text = ('module "t.ptx" version "8.0" target "sm_80" address_size 64\n'
            "global.global @s : surfref align 8 sampler {filter_mode = linear}\n")
    with pytest.raises(Ptx2GcnError, match="surfref variables take no sampler fields"):
        verify(parse_module(text, "t.ir"))
