"""IR text: types spell uniquely, the printer is deterministic, malformed text gets located errors."""

from __future__ import annotations

import pytest

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.ir.parser import parse_module
from ptx2gcn.ir.printer import print_module
from ptx2gcn.ir.types import (
    BF16X2,
    F16,
    INTEGER_TYPES,
    AddrSpace,
    PtrType,
    VectorType,
    parse_type,
)

HEAD = 'module "t.ptx" version "8.0" target "sm_90" address_size 64\n'


@pytest.mark.parametrize("t", [*INTEGER_TYPES, F16, BF16X2, VectorType(F16, 4), PtrType(AddrSpace.SHARED),
                               *(PtrType(s) for s in AddrSpace)])
def test_types_round_trip(t: object) -> None:
    assert parse_type(str(t)) == t


def test_unknown_types() -> None:
    assert parse_type("i7") is None and parse_type("ptr<heap>") is None and parse_type("<5 x f32>") is None


ROUND_TRIP = HEAD + """global.global @tbl : u32[4] align 16 visible = [1, 2, 3, 4]
global.shared @dyn : b8[] align 16 extern

func @f (param b32 %x size 4 align 4) -> (reg b32 %r size 4 align 4) {
^entry(%x: ptr<param>):
  %v = ld %x {type = b32} : i32
  ret %v
}

kernel @k visible (kparam u64 %a size 8 align 8 ptr global align 16) maxntid 128, 1, 1 {
^entry(%a: ptr<kparam>):
  %one = const {value = 1} : i32
  %half = const {value = 15360} : f16  // 1.0
  %c = const {value = 1} : pred
  cbr %c -> ^$L__BB0_1(%one), ^bb0
^bb0:
  br -> ^$L__BB0_1(%one)
^$L__BB0_1(%n: i32):
  %h = bitcast %n : <2 x f16>
  %x, %y = unpack %h : f16, f16
  exit
}
"""


def test_round_trip_is_exact() -> None:
    module = parse_module(ROUND_TRIP, "rt.ir")
    text = print_module(module)
    assert text == ROUND_TRIP
    assert print_module(parse_module(text, "again.ir")) == text


def test_names_stay_unique_and_printing_is_idempotent() -> None:
    module = parse_module(HEAD + """kernel @k () {
^entry:
  %r1 = const {value = 1} : i32
  %0 = const {value = 2} : i32
  %r1.1 = add %r1, %0 {type = u32} : i32
  ret
}
""", "n.ir")
    fn = module.functions[0]
    for op in fn.entry.ops:
        for result in op.results:
            result.name = "r1"  # every value wants the same name
    once = print_module(module)
    assert once.count("%r1 =") == 1 and "%r1.1 =" in once and "%r1.2 =" in once
    assert print_module(parse_module(once, "again.ir")) == once


def test_locations_print_on_request() -> None:
    module = parse_module(HEAD + 'kernel @k () {\n^entry:\n  ret loc(7:3)\n}\n', "l.ir")
    op = module.functions[0].entry.ops[0]
    assert op.loc is not None and (op.loc.file, op.loc.line, op.loc.column) == ("t.ptx", 7, 3)
    assert "ret loc(7:3)" in print_module(module, with_locs=True)
    assert "loc(" not in print_module(module)


@pytest.mark.parametrize(("text", "line", "col", "message"), [
    ("", 1, 1, "empty IR"),
    ('module "t" version "1"\nkernel @k () {\n^entry:\n  %x = frob : i32\n  ret\n}\n', 4, 8, "unknown op 'frob'"),
    (HEAD + "kernel @k () {\n^entry:\n  %x = const {value = 1} : i33\n  ret\n}\n", 4, 28, "unknown type 'i33'"),
    (HEAD + "kernel @k () {\n^entry:\n  %x = add %y, %y {type = u32} : i32\n  ret\n}\n", 4, 12,
     "undefined value %y"),
    (HEAD + "kernel @k () {\n^entry:\n  br -> ^nowhere\n}\n", 4, 9, "undefined block ^nowhere"),
    (HEAD + "kernel @k () {\n^entry:\n  %x = const {value = 1} : i32\n  %x = const {value = 2} : i32\n"
     "  ret\n}\n", 5, 3, "defined twice"),
    (HEAD + "kernel @k () {\n^entry:\n  ret\n", 2, 1, "no closing '}'"),
    (HEAD + "kernel @k () {\n^entry:\n  %x = const {value = 1}\n  ret\n}\n", 4, 8, "names 1 results"),
    (HEAD + "kernel @k () {\n  ret\n}\n", 3, 3, "block label"),
    (HEAD + "kernel @k () {\n^entry:\n  ret ?\n}\n", 4, 7, "unexpected character"),
    (HEAD + "global.heap @x : u32 align 4\n", 2, 1, "unknown state space"),
])
def test_malformed_ir_is_located(text: str, line: int, col: int, message: str) -> None:
    with pytest.raises(Ptx2GcnError) as caught:
        parse_module(text, "bad.ir")
    rendered = caught.value.render()
    assert rendered.startswith(f"bad.ir:{line}:{col}: error:"), rendered
    assert message in rendered
