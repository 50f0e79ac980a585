"""Mutated inputs never crash: IR text and PTX either load or fail with a located Ptx2GcnError."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.ir.printer import print_module
from ptx2gcn.options import CompileOptions
from ptx2gcn.pipeline import run_passes
from ptx2gcn.translate.load import module_from_ir, module_from_ptx

ROOT = Path(__file__).resolve().parents[2]
SEEDS = [ROOT / "corpora" / "nvcc" / "sm_80" / name for name in ("reduction.ptx", "atomics.ptx")]
SEEDS = [p for p in SEEDS if p.exists()] or sorted((ROOT / "corpora").glob("**/vector*.ptx"))[:2]
PTX_TEXTS = [p.read_text() for p in SEEDS]
IR_TEXTS = [print_module(module_from_ptx(text, "seed.ptx")) for text in PTX_TEXTS]


@st.composite
def mutated(draw: st.DrawFn, texts: list[str]) -> str:
    text = draw(st.sampled_from(texts))
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["delete", "duplicate", "swap", "chop", "token"]))
        if action == "delete":
            del lines[i]
        elif action == "duplicate":
            lines.insert(i, lines[i])
        elif action == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif action == "chop":
            cut = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:cut] + "\n"
        else:
            words = lines[i].split(" ")
            k = draw(st.integers(0, len(words) - 1))
            words[k] = draw(st.sampled_from(["%x", "i64", "f32", "0", "-1", "{", "}", "ptr<shared>", "@g",
                                            "^bb0", "->", ",", "pred", "%0", "u32", ".b64", "[", "]"]))
            lines[i] = " ".join(words)
    return "".join(lines)


def _survives(load: object, text: str) -> None:
    try:
        module = load(text, "mutant")  # type: ignore[operator]
        run_passes(module, CompileOptions(verify_each=True))
    except Ptx2GcnError as error:
        assert error.diagnostics and error.render().strip(), "an error without a message"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(IR_TEXTS))
def test_mutated_ir_never_crashes(text: str) -> None:
    _survives(module_from_ir, text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(PTX_TEXTS))
def test_mutated_ptx_never_crashes(text: str) -> None:
    _survives(module_from_ptx, text)


HEAD = 'module "t.ptx" version "8.0" target "sm_90" address_size 64\nglobal.global @g : u32 align 4\n'
SIG = "kernel @k (kparam u64 %a size 8 align 8) {\n^entry(%a: ptr<kparam>):\n"
ADVERSARIAL = [
 "  %x = ld %a {type = zzz} : i64\n  ret",
 "  %x = ld %a {type = u64, vec = x} : i64\n  ret",
 "  %x = ld %a {type = u64, vec = 3} : <3 x i64>\n  ret",
 "  %x = special_reg {reg = 5} : i32\n  ret",
 "  %x = const {value = foo} : i32\n  ret",
 "  %x = const : i32\n  ret",
 "  %x = alloca : ptr<local>\n  ret",
 "  %x = add %a, %a {type = u64} : i64\n  ret",
 "  %x = mul %a, %a {type = f32, mode = wide} : i64\n  ret",
 "  %x = addr_of {sym = nothing} : ptr<global>\n  ret",
 "  %x = addr_of : ptr<global>\n  ret",
 "  call {callee = k}\n  ret",
 "  call %a\n  ret",
 "  %x = unpack %a : i32, i32\n  ret",
 "  %x = pack : i32\n  ret",
 "  %x = bitcast %a : i64\n  ret",
 "  %x = selp %a, %a : ptr<kparam>\n  ret",
 "  %x = cvt %a {dtype = f32, stype = u64} : f32\n  ret",
 "  %x = setp %a, %a {cmp = lt, type = pred} : pred\n  ret",
 "  %x = atom %a {op = cas, type = u32} : i32\n  ret",
 "  st %a\n  ret",
 "  br -> ^entry\n  ret",
 "  cbr -> ^a, ^a\n^a:\n  ret",
 "  ret -> ^b\n^b:\n  ret",
 "  %x, %y = shfl %a, %a, %a, %a {mode = up} : i32, pred\n  ret",
 "  %x = vote %a, %a {mode = any} : pred\n  ret",
 "  %x = match %a, %a {mode = all, type = b32} : i32\n  ret",
 "  %x = ptradd %a : ptr<kparam>\n  ret",
 "  %x = cvta %a {space = generic} : i64\n  ret",
 "  %x = const {value = 1} : <2 x i32>\n  ret",
 "  %x = const {value = -1} : i32\n  ret",
]


@pytest.mark.parametrize("body", ADVERSARIAL, ids=[b.strip().splitlines()[0] for b in ADVERSARIAL])
def test_malformed_ops_are_diagnosed(body: str) -> None:
    with pytest.raises(Ptx2GcnError) as caught:
        module_from_ir(HEAD + SIG + body + "\n}\n", "adv.ir")
    assert caught.value.span is not None and caught.value.span.line >= 4
