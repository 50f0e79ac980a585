"""The model's interface: spellings, operand conversion, refusals, comparisons, independence."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.reference import ReferenceInputError, evaluate, opcodes, run


def test_evaluate_and_run_agree() -> None:
    a = np.array([1, 2, 3], dtype=np.uint32)
    assert (evaluate("add", ("u32",), a, 5).value == run("add.u32", a, 5).value).all()
    assert (evaluate("add", (".u32",), a, 5).value == a + 5).all()


@pytest.mark.parametrize("spelling,inputs,message", [
    ("frobnicate.u32", (1,), "not modelled"),
    ("add.u32", (1,), "expected 2 source operands"),
    ("add.wide.u32", (1, 2), "modifier .wide is not modelled"),
    ("popc.f32", (1,), "type .f32 is not valid"),
    ("add.rn.rz.f32", (1, 2), "conflicting modifiers"),
    ("fma.f32", (1, 2, 3), "needs one of"),
    ("add.ftz.f64", (1, 2), ".ftz is not valid for .f64"),
    ("add.sat.f64", (1, 2), ".sat is not valid for .f64"),
    ("add..u32", (1, 2), "malformed"),
    ("sin.f32", (1,), "needs .approx"),
    ("cvt.f16.f32", (1,), "needs a rounding modifier"),
    ("cvt.rni.s32.s32", (1,), "no rounding"),
    ("cvt.rn.f64.f32", (1,), "rounding is illegal"),
])
def test_refusals_name_the_instruction(spelling: str, inputs: tuple[object, ...], message: str) -> None:
    with pytest.raises(ReferenceInputError, match=message):
        run(spelling, *inputs)


def test_operand_conversion_rules() -> None:
    assert int(run("add.u32", -1, 0).value) == 0xFFFFFFFF           # ints wrap to the width
    assert int(run("add.f32", np.float32(1), np.uint32(0x3F800000)).value) == 0x40000000
    with pytest.raises(ReferenceInputError, match="cannot be the bits"):
        run("add.f32", np.float64(1.0), np.float64(1.0))
    with pytest.raises(ReferenceInputError, match="do not broadcast"):
        run("add.u32", np.zeros(3, dtype=np.uint32), np.zeros(4, dtype=np.uint32))


def test_matches_respects_undefined_and_nan_lanes() -> None:
    res = run("div.u32", np.array([6, 6]), np.array([3, 0]))
    assert res.matches(np.array([2, 12345])).tolist() == [True, True]
    assert res.matches(np.array([3, 0])).tolist() == [False, True]
    nan = run("add.f32", np.float32(np.inf), np.float32(-np.inf))
    assert nan.matches(np.uint32(0x7FC00000)) and nan.matches(np.uint32(0xFFFFFFFF))
    assert not nan.matches(np.uint32(0x7F800000))
    half = run("add.rn.f16x2", np.uint32(0x7C00_3C00), np.uint32(0xFC00_3C00))  # hi: inf + -inf
    assert half.matches(np.uint32(0x7E01_4000)) and not half.matches(np.uint32(0x7E01_4001))


def test_reference_imports_nothing_from_the_compiler() -> None:
    code = ("import sys, ptx2gcn.reference\n"
            "bad = [m for m in sys.modules if m.startswith(('ptx2gcn.frontend', 'ptx2gcn.ir', "
            "'ptx2gcn.passes', 'ptx2gcn.emit', 'ptx2gcn.runtime', 'ptx2gcn.grammar'))]\n"
            "print(bad); sys.exit(1 if bad else 0)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_opcode_catalogue_and_error_type() -> None:
    names = opcodes()
    for expected in ("add", "cvt", "shfl", "prmt", "atom", "testp", "tanh", "elect"):
        assert expected in names
    with pytest.raises(Ptx2GcnError) as caught:
        run("frobnicate.u32", 1)
    assert caught.value.render().startswith("error: reference model: frobnicate.u32")


def test_signature_reports_operand_types() -> None:
    from ptx2gcn.reference import signature

    sig = signature("addc.cc.u32")
    assert [t.name for t in sig.sources] == ["u32", "u32", "pred"]
    assert [t.name for t in sig.destinations] == ["u32", "pred"]
    assert [t.name for t in signature("mul.wide.s16").destinations] == ["s32"]
    assert [t.name for t in signature("cvt.rn.f16x2.f32").sources] == ["f32", "f32"]
    assert [t.name for t in signature("shfl.sync.bfly.b32").destinations] == ["b32", "pred"]
    assert signature("activemask.b32").sources == ()
    with pytest.raises(ReferenceInputError):
        signature("add.wide.u32")


def test_explain_describes_each_kind_of_lane() -> None:
    import numpy as np

    assert run("add.u32", 1, 2).explain(()) == "d0.u32: 0x00000003"
    assert "unspecified" in run("div.u32", 1, 0).explain(())
    assert "any NaN" in run("add.f32", np.float32(np.inf), np.float32(-np.inf)).explain(())
    assert "a value in [" in run("sin.approx.f32", np.float32(1)).explain(())
    carry = run("add.cc.u32", np.uint32(0xFFFFFFFF), 1).explain(())
    assert carry.splitlines() == ["d0.u32: 0x00000000", "d1.pred: True"]


def test_disagreements_report_failing_lanes() -> None:
    import numpy as np

    from ptx2gcn.reference import disagreements

    a = np.array([1, 2, 3], dtype=np.uint32)
    assert disagreements("add.u32", [a, a], [a + a]) == []
    bad = disagreements("add.u32", [a, a], [np.array([2, 5, 6], dtype=np.uint32)])
    assert bad == ["add.u32 lane (1,): got 0x5; expected d0.u32: 0x00000004"]
    carry = disagreements("add.cc.u32", [np.uint32(0xFFFFFFFF), 1], [np.uint32(0), False])
    assert carry == ["add.cc.u32 lane (): got 0x0, False; expected d0.u32: 0x00000000; d1.pred: True"]


def test_fixed_lanes_are_those_with_one_right_answer() -> None:
    """``Output.fixed``: exact integer results are fixed; an ``.approx`` interval, a NaN of open
    payload (0 * inf in f32) and an undefined lane (div by zero) are not."""
    import numpy as np

    assert run("add.s32", np.array([1, 2], dtype=np.uint32), 3).outputs[0].fixed().tolist() == [True, True]
    assert not run("rcp.approx.f32", np.float32(3.0)).outputs[0].fixed().any()
    inf = np.array([np.inf], dtype=np.float32)
    assert run("mul.rn.f32", np.float32(0.0), inf).outputs[0].fixed().tolist() == [False]
    assert run("div.u32", np.uint32(1), np.uint32([0, 1])).outputs[0].fixed().tolist() == [False, True]
