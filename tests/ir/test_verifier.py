"""The verifier rejects each broken invariant, blaming the op on the line marked ``// error:``."""

from __future__ import annotations

import pytest

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.ir.core import Op
from ptx2gcn.ir.parser import parse_module
from ptx2gcn.ir.types import I32
from ptx2gcn.ir.verify import verify

HEAD = 'module "t.ptx" version "8.0" target "sm_90" address_size 64\n'
GLOBALS = "global.const @table : u32[4] align 4\nglobal.shared @buf : f32[8] align 4\n"
SIG = "kernel @k (kparam u64 %a size 8 align 8) {\n^entry(%a: ptr<kparam>):\n"

CASES = {
    "operand type": """
  %x = ld %a {type = u64} : i64
  %y = const {value = 1} : i32
  %z = add %x, %y {type = u32} : i32  // error: operand 0 is i64, expected i32
  ret""",
    "missing attribute": """
  %y = const {value = 1} : i32
  %z = add %y, %y : i32  // error: needs attribute 'type'
  ret""",
    "attribute value": """
  %y = const {value = 1} : i32
  %z = setp %y, %y {cmp = around, type = u32} : pred  // error: cmp = 'around'
  ret""",
    "terminator in the middle": """
  ret  // error: not at the end
  %y = const {value = 1} : i32
  ret""",
    "no terminator": """
  %y = const {value = 1} : i32  // error: does not end in a terminator""",
    "dominance": """
  %c = const {value = 1} : pred
  cbr %c -> ^l, ^r
^l:
  %v = const {value = 5} : i32
  br -> ^r
^r:
  %w = add %v, %v {type = u32} : i32  // error: does not dominate
  ret""",
    "successor arguments": """
  %v = const {value = 5} : i32
  br -> ^next  // error: passes (), the block takes (i32)
^next(%n: i32):
  ret""",
    "store to const space": """
  %p = addr_of {sym = table} : ptr<const>
  %v = const {value = 5} : i32
  st %p, %v {type = u32}  // error: read-only const space
  ret""",
    "store to kernel parameters": """
  %v = const {value = 5} : i64
  st %a, %v {type = u64}  // error: read-only kparam space
  ret""",
    "atomic on local memory": """
  %p = alloca {align = 4, size = 4} : ptr<local>
  %v = const {value = 5} : i32
  %o = atom %p, %v {op = add, type = u32} : i32  // error: atomics need
  ret""",
    "addr_of space": """
  %p = addr_of {sym = buf} : ptr<global>  // error: shared space
  ret""",
    "constant range": """
  %v = const {value = 256} : i8  // error: not a 8-bit pattern
  ret""",
    "vector load type": """
  %g = const {value = 0} : i64
  %p = inttoptr %g : ptr<global>
  %v = ld %p {type = f32, vec = 4} : f32  // error: loads <4 x f32>
  ret""",
    "same target twice": """
  %c = const {value = 1} : pred
  cbr %c -> ^x, ^x  // error: same block
^x:
  ret""",
    "collective result": """
  %c = const {value = 1} : pred
  %m = const {value = 4294967295} : i32
  %v = vote %c, %m {mode = ballot, sync} : pred  // error: produces (i32)
  ret""",
    "return values": """
  %v = const {value = 1} : i32
  ret %v  // error: the function returns ()""",
}


@pytest.mark.parametrize("body", CASES.values(), ids=CASES.keys())
def test_verifier_blames_marked_line(body: str) -> None:
    text = HEAD + GLOBALS + SIG + body.lstrip("\n") + "\n}\n"
    lines = text.splitlines()
    (blamed,) = [i + 1 for i, line in enumerate(lines) if "// error:" in line]
    expected = lines[blamed - 1].split("// error:")[1].strip()
    module = parse_module(text, "case.ir")
    with pytest.raises(Ptx2GcnError) as caught:
        verify(module)
    diagnostics = caught.value.diagnostics
    assert any(d.span is not None and d.span.line == blamed and expected in d.message
               for d in diagnostics), caught.value.render()


def test_use_lists_are_checked() -> None:
    module = parse_module(HEAD + SIG + "  %y = const {value = 1} : i32\n  ret\n}\n", "t.ir")
    fn = module.functions[0]
    const = fn.entry.ops[0]
    stray = Op("add", (const.result, const.result), (I32,), {"type": "u32"})  # never inserted
    assert stray.operands[0] in const.result.uses
    with pytest.raises(Ptx2GcnError, match="stale use"):
        verify(module)


def test_valid_module_passes() -> None:
    verify(parse_module(HEAD + GLOBALS + SIG + "  %p = addr_of {sym = buf} : ptr<shared>\n  ret\n}\n", "ok.ir"))


def test_phase_forbids_warp_collectives() -> None:
    text = HEAD + SIG + ("  %m = const {value = 4294967295} : i32\n"
                         "  %b = activemask : i32  // error: not allowed in phase wave64\n  ret\n}\n")
    module = parse_module(text, "phase.ir")
    verify(module)  # fine in phase ssa
    with pytest.raises(Ptx2GcnError, match="'activemask' is not allowed in phase wave64"):
        verify(module, "wave64")
    with pytest.raises(ValueError, match="unknown verifier phase"):
        verify(module, "nonsense")


def test_each_op_of_a_repeated_signature_is_judged() -> None:
    """The verifier judges each distinct signature once and reuses the verdict: every op with a bad
    signature is still reported at its own line (with every problem it has), and a good op between
    them is not."""
    body = ("  %x = ld %a {type = u64} : i64\n"
            "  %y = const {value = 1} : i32\n"
            "  %z = add %x, %y {type = u32} : i32\n"
            "  %w = add %y, %y {type = u32} : i32\n"
            "  %v = add %x, %y {type = u32} : i32\n"
            "  %u = add %y, %y {type = u64} : i32\n"
            "  ret\n}\n")
    text = HEAD + SIG + body
    first = len((HEAD + SIG).splitlines()) + 1  # the line of %x
    z, v, u = first + 2, first + 4, first + 5
    with pytest.raises(Ptx2GcnError) as caught:
        verify(parse_module(text, "repeat.ir"))
    found = sorted((d.span.line, d.message.split("'add' ")[1]) for d in caught.value.diagnostics
                   if d.span is not None)
    assert found == [(z, "operand 0 is i64, expected i32"), (v, "operand 0 is i64, expected i32"),
                     (u, "operand 0 is i32, expected i64"), (u, "operand 1 is i32, expected i64"),
                     (u, "result 0 is i32, expected i64")]


def test_unhashable_attribute_is_reported_not_raised() -> None:
    """A broken op whose attribute value is not hashable (a list) is reported like any bad value."""
    module = parse_module(HEAD + SIG + "  %y = const {value = 1} : i32\n  %z = add %y, %y {type = u32} : i32\n"
                          "  ret\n}\n", "t.ir")
    add = module.functions[0].entry.ops[1]
    add.attrs["type"] = ["u32"]  # type: ignore[assignment]  # what a buggy pass might leave
    with pytest.raises(Ptx2GcnError) as caught:
        verify(module)
    messages = [d.message for d in caught.value.diagnostics]
    assert any("attribute type = ['u32'] is not allowed" in m for m in messages), messages
    assert any("'add' operand 0 is i32, expected T" in m for m in messages), messages
