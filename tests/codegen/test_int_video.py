"""PTX video instructions (PTX ISA 9.7.18) compiled for gfx942 and run on the emulator vs a Python model.

The model below is written from the ISA pseudocode (partSelectSignExtend, optSaturate, optSecOp,
optMerge; extractAndSignExt_2/_4, extractMaskBits) in exact Python integers, not from the lowering.
Many forms go into one kernel (one compile), each writing its own output row. Byte/half selectors
and destination masks are set on the IR op directly (``with_attrs``): the front end does not parse
``%r1.b0``-style operand selectors yet, the IR op carries them as attributes.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.emit.module import emit_llvm
from ptx2gcn.emit.target import emit_object, optimise
from ptx2gcn.ir import opcodes as isa
from ptx2gcn.ir.verify import verify
from ptx2gcn.link.linker import link_hsaco
from ptx2gcn.options import CompileOptions
from ptx2gcn.pipeline import run_passes
from ptx2gcn.reference import run as reference
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory
from ptx2gcn.translate.load import module_from_ptx
from tests.codegen.conftest import run_compiled

M32 = 0xFFFFFFFF
EDGES = [0, 1, 2, 31, 32, 33, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000,
         0xFFFFFFFF, 0xFFFFFFFE, 0x80FF7F01, 0x7F0180FF, 0x12345678, 0xFEDCBA98]


# ---- the model (PTX ISA 9.7.18) -----------------------------------------------------------------

def _sext(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _part(x: int, signed: bool, sel: str) -> int:
    """partSelectSignExtend."""
    if not sel:
        width, index = 32, 0
    else:
        width, index = (8 if sel[0] == "b" else 16), int(sel[1])
    field_value = (x >> (width * index)) & ((1 << width) - 1)
    return _sext(field_value, width) if signed else field_value


def _clamp(x: int, bits: int, signed: bool) -> int:
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return max(low, min(high, x))


_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}


@dataclass(frozen=True)
class Form:
    """A video instruction form: the PTX spelling (without selectors) plus IR selector attributes."""

    inst: str
    types: tuple[str, ...]
    mods: tuple[str, ...] = ()
    """In PTX order after the types: sat, shift mode, comparison, secondary op, po."""
    sel: dict[str, str] = field(default_factory=lambda: {})
    """Attributes set on the IR op that the front end cannot spell yet: dsel/asel/bsel (PTX: operand
    selectors), vmad's scale (``.shr7``/``.shr15``) and negations (``neg_a`` ... = "1": ``-a``)."""

    @property
    def ptx(self) -> str:
        return ".".join((self.inst, *self.types, *self.mods))

    def has(self, mod: str) -> bool:
        return mod in self.mods

    @property
    def takes_c(self) -> bool:
        """Whether PTX spells a third source: SIMD forms and vmad always, scalar ones with a
        secondary operation or a merge (destination selector)."""
        simple = self.inst in ("vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vset")
        return not simple or "dsel" in self.sel or any(m in ("add", "min", "max") for m in self.mods)


def _primary(base: str, ta: int, tb: int, form: Form) -> int:
    if base == "vadd":
        return ta + tb
    if base == "vsub":
        return ta - tb
    if base == "vabsdiff":
        return abs(ta - tb)
    if base == "vmin":
        return min(ta, tb)
    if base == "vmax":
        return max(ta, tb)
    if base == "vavrg":
        return (ta + tb + 1) >> 1 if ta + tb >= 0 else (ta + tb) >> 1
    cmp = next(m for m in form.mods if m in _COMPARE)
    return 1 if _COMPARE[cmp](ta, tb) else 0


def scalar_model(form: Form, a: int, b: int, c: int) -> int:
    base = form.inst
    if base == "vmad":
        return vmad_model(form, a, b, c)
    if base == "vset":
        dsigned, (asigned, bsigned) = False, (t == "s32" for t in form.types)
    else:
        dsigned, asigned, bsigned = (t == "s32" for t in form.types)
    dsel, asel, bsel = (form.sel.get(k, "") for k in ("dsel", "asel", "bsel"))
    ta = _part(a, asigned, asel)
    if base in ("vshl", "vshr"):
        tb = _part(b, False, bsel)
        tb = min(tb, 32) if form.has("clamp") else tb & 0x1F
        tmp = ta << tb if base == "vshl" else ta >> tb
    else:
        tmp = _primary(base, ta, _part(b, bsigned, bsel), form)
    if form.has("sat"):
        tmp = _clamp(tmp, 8 if dsel[:1] == "b" else 16 if dsel[:1] == "h" else 32, dsigned)
    if dsel:
        width, index = (8 if dsel[0] == "b" else 16), int(dsel[1])
        mask = ((1 << width) - 1) << (width * index)
        return (((tmp << (width * index)) & mask) | (c & ~mask)) & M32
    cc = _sext(c, 32) if dsigned else c
    if form.has("add"):
        tmp = tmp + cc
    elif form.has("min"):
        tmp = min(tmp, cc)
    elif form.has("max"):
        tmp = max(tmp, cc)
    return tmp & M32


def vmad_model(form: Form, a: int, b: int, c: int) -> int:
    """vmad's pseudocode (9.7.18.1.3): 128-bit product, one's complement plus lsb for a negation."""
    _, atype, btype = form.types
    neg_a, neg_b, neg_c = (form.sel.get(f"neg_{x}") == "1" for x in "abc")
    signed_final = "s32" in (atype, btype) or (neg_a != neg_b) or neg_c
    ta = _part(a, atype == "s32", form.sel.get("asel", ""))
    tb = _part(b, btype == "s32", form.sel.get("bsel", ""))
    tmp, lsb = ta * tb, 0
    if form.has("po"):
        lsb = 1
    elif neg_a != neg_b:
        tmp, lsb = ~tmp, 1
    elif neg_c:
        c, lsb = ~c & M32, 1
    tmp = tmp + (_sext(c, 32) if signed_final else c) + lsb
    amount = {"shr7": 7, "shr15": 15}.get(form.sel.get("scale", ""), 0)
    if amount:
        tmp = _sext(tmp >> amount, 64) if signed_final else (tmp >> amount) & ((1 << 64) - 1)
    if form.has("sat"):
        tmp = _clamp(tmp, 32, signed_final)
    return tmp & M32


def simd_model(form: Form, a: int, b: int, c: int) -> int:
    lanes = int(form.inst[-1])
    base = form.inst[:-1]
    width = 32 // lanes
    if base == "vset":
        dsigned, (asigned, bsigned) = False, (t == "s32" for t in form.types)
    else:
        dsigned, asigned, bsigned = (t == "s32" for t in form.types)
    pair = a | (b << 32)
    kind = "h" if lanes == 2 else "b"
    asel = form.sel.get("asel", "h10" if lanes == 2 else "b3210")[1:][::-1]
    bsel = form.sel.get("bsel", "h32" if lanes == 2 else "b7654")[1:][::-1]
    mask = {int(x) for x in form.sel.get("dsel", kind + "3210"[-lanes:])[1:]}

    def element(index: int, signed: bool) -> int:
        value = (pair >> (width * index)) & ((1 << width) - 1)
        return _sext(value, width) if signed else value

    t = []
    for i in range(lanes):
        value = _primary(base, element(int(asel[i]), asigned), element(int(bsel[i]), bsigned), form)
        t.append(_clamp(value, width, dsigned) if form.has("sat") else value)
    if form.has("add"):
        return (c + sum(t[i] for i in range(lanes) if i in mask)) & M32
    d = 0
    for i in range(lanes):
        source = t[i] if i in mask else c >> (width * i)
        d |= (source & ((1 << width) - 1)) << (width * i)
    return d


def model(form: Form, a: int, b: int, c: int) -> int:
    return (simd_model if form.inst[-1] in "24" else scalar_model)(form, a, b, c)


# ---- running many forms in one kernel -------------------------------------------------------------

def _kernel(forms: Sequence[Form]) -> str:
    """k(out, a, b, c, n): out[j * n + i] = form_j(a[i], b[i], c[i])."""
    lines = [".version 8.0", ".target sm_80", ".address_size 64",
             ".visible .entry k(.param .u64 out, .param .u64 pa, .param .u64 pb, .param .u64 pc,",
             ".param .u32 n)",
             "{", ".reg .b32 %r<16>;", ".reg .b64 %rd<16>;", ".reg .pred %p1;",
             "mov.u32 %r1, %ctaid.x;", "mov.u32 %r2, %ntid.x;", "mov.u32 %r3, %tid.x;",
             "mad.lo.s32 %r1, %r1, %r2, %r3;", "ld.param.u32 %r4, [n];", "setp.ge.u32 %p1, %r1, %r4;",
             "@%p1 bra DONE;", "mul.wide.u32 %rd1, %r1, 4;", "mul.wide.u32 %rd2, %r4, 4;"]
    for name, reg in (("pa", 5), ("pb", 6), ("pc", 7)):
        lines += [f"ld.param.u64 %rd3, [{name}];", "add.u64 %rd3, %rd3, %rd1;",
                  f"ld.global.u32 %r{reg}, [%rd3];"]
    lines += ["ld.param.u64 %rd4, [out];", "add.u64 %rd4, %rd4, %rd1;"]
    for form in forms:
        operands = "%r5, %r6, %r7" if form.takes_c else "%r5, %r6"
        lines += [f"{form.ptx} %r8, {operands};", "st.global.u32 [%rd4], %r8;", "add.u64 %rd4, %rd4, %rd2;"]
    lines += ["DONE:", "ret;", "}"]
    return "\n".join(lines) + "\n"


def with_attrs(ptx: str, forms: Sequence[Form]) -> bytes:
    """Compile ``ptx`` after setting each form's selector attributes on its ``video`` op (in order)."""
    module = module_from_ptx(ptx)
    videos = [op for fn in module.functions for op in fn.ops() if op.name == "video"]
    assert len(videos) == len(forms)
    for op, form in zip(videos, forms):
        op.attrs.update({k: (True if k.startswith("neg_") else v) for k, v in form.sel.items()})
    verify(module)
    run_passes(module, CompileOptions())
    options = CompileOptions("gfx942", 3)
    obj = emit_object(optimise(emit_llvm(module), options), options)
    return link_hsaco([obj], ["video.ptx"])


def run_forms(forms: Sequence[Form], a: Sequence[int], b: Sequence[int], c: Sequence[int]) -> np.ndarray:
    ptx = _kernel(forms)
    data = with_attrs(ptx, forms) if any(f.sel for f in forms) else compile(ptx).data
    n = len(a)
    blobs = [np.array(x, np.uint32).tobytes() for x in (a, b, c)]
    (raw,) = run_compiled(data, "k", [4 * n * len(forms)], blobs, n)
    return np.frombuffer(raw, np.uint32).reshape(len(forms), n)


def check(forms: Sequence[Form], a: Sequence[int], b: Sequence[int], c: Sequence[int]) -> None:
    got = run_forms(forms, a, b, c)
    for row, form in zip(got, forms):
        expected = [model(form, x, y, z) for x, y, z in zip(a, b, c)]
        bad = [i for i, (g, e) in enumerate(zip(row, expected)) if int(g) != e]
        assert not bad, (f"{form.ptx} {form.sel}: {len(bad)} lanes differ, first a={a[bad[0]]:#x} "
                         f"b={b[bad[0]]:#x} c={c[bad[0]]:#x}: got {int(row[bad[0]]):#x}, "
                         f"expected {expected[bad[0]]:#x}")


def _inputs(count: int = 1500, seed: int = 7) -> tuple[list[int], list[int], list[int]]:
    """Edge values crossed (a x b, c cycling), then random words."""
    rng = random.Random(seed)
    a, b = (list(x) for x in zip(*itertools.product(EDGES, EDGES)))
    c = [EDGES[i % len(EDGES)] ^ (i * 0x9E3779B9 & M32) if i % 3 else EDGES[i % len(EDGES)]
         for i in range(len(a))]
    while len(a) < count:
        a.append(rng.getrandbits(32))
        b.append(rng.getrandbits(32))
        c.append(rng.getrandbits(32))
    return a, b, c


TYPES3 = [("u32", "u32", "u32"), ("s32", "s32", "s32"), ("s32", "u32", "s32"), ("u32", "s32", "u32")]


# ---- tests --------------------------------------------------------------------------------------

@pytest.mark.parametrize("base", ["vadd", "vsub", "vabsdiff", "vmin", "vmax"])
def test_scalar_arith(base: str) -> None:
    forms = [Form(base, types, mods) for types in TYPES3
             for mods in [(), ("sat",), ("add",), ("sat", "min"), ("max",)]]
    check(forms, *_inputs())


@pytest.mark.parametrize("base", ["vshl", "vshr"])
def test_scalar_shift(base: str) -> None:
    a = [x for x in EDGES for _ in range(12)]
    b = [0, 1, 7, 8, 16, 31, 32, 33, 40, 255, 0x101, 0xFFFFFFFF] * len(EDGES)
    c = [EDGES[i % len(EDGES)] for i in range(len(a))]
    forms = [Form(base, (d, at, "u32"), mods) for d, at in [("u32", "u32"), ("s32", "s32"), ("u32", "s32"),
                                                            ("s32", "u32")]
             for mods in [("clamp",), ("wrap",), ("sat", "clamp"), ("wrap", "add"), ("sat", "wrap", "min")]]
    check(forms, a, b, c)


def test_scalar_vset() -> None:
    forms = [Form("vset", types, (cmp, *sec)) for types in [("u32", "u32"), ("s32", "s32"), ("u32", "s32")]
             for cmp in _COMPARE for sec in [(), ("add",)]]
    forms += [Form("vset", ("s32", "u32"), ("lt", "max")), Form("vset", ("s32", "s32"), ("ge", "min"))]
    check(forms, *_inputs(600))


def test_vmad() -> None:
    forms = [Form("vmad", types, mods) for types in TYPES3 for mods in [(), ("sat",), ("po",), ("po", "sat")]]
    check(forms, *_inputs(900))


@pytest.mark.parametrize("lanes", ["2", "4"])
def test_simd(lanes: str) -> None:
    forms = [Form(base + lanes, types, mods) for base in ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax")
             for types in TYPES3[:3] for mods in [(), ("sat",), ("add",)]]
    forms += [Form(f"vset{lanes}", types, (cmp, *sec)) for types in [("u32", "u32"), ("s32", "u32")]
              for cmp in ("eq", "lt", "ge") for sec in [(), ("add",)]]
    check(forms, *_inputs(1200))


def test_nvcc_simd_intrinsic_forms() -> None:
    """The forms nvcc emits for cuda's __v* intrinsics (CUDA 13, sm_75..sm_90): __vabsdiffu4 /
    __vsadu4 / __vsadu2 and their relatives."""
    forms = [Form("vabsdiff4", ("u32",) * 3), Form("vabsdiff4", ("u32",) * 3, ("add",)),
             Form("vabsdiff2", ("u32",) * 3, ("add",))]
    check(forms, *_inputs())


def test_scalar_selectors() -> None:
    """Byte/half selectors on a and b, and merging into c with a destination selector."""
    forms = [Form("vadd", ("s32", "s32", "u32"), ("sat",), {"asel": "b1", "bsel": "h1"}),
             Form("vsub", ("u32", "s32", "s32"), ("sat",), {"dsel": "b2", "asel": "h0", "bsel": "b3"}),
             Form("vabsdiff", ("s32", "s32", "s32"), ("sat",), {"dsel": "h1", "asel": "b0", "bsel": "b2"}),
             Form("vmax", ("u32", "u32", "u32"), (), {"dsel": "b0", "asel": "h1"}),
             Form("vmin", ("s32", "u32", "s32"), ("add",), {"bsel": "b3"}),
             Form("vshr", ("s32", "s32", "u32"), ("wrap",), {"asel": "h1", "bsel": "b0"}),
             Form("vshl", ("u32", "u32", "u32"), ("sat", "clamp"), {"dsel": "h0", "bsel": "b1"}),
             Form("vset", ("s32", "s32"), ("gt",), {"dsel": "b3", "asel": "b2", "bsel": "b1"}),
             Form("vmad", ("s32", "u32", "s32"), ("sat",), {"asel": "h1", "bsel": "b2"})]
    check(forms, *_inputs(900))


def test_simd_selectors_and_masks() -> None:
    forms = [Form("vadd2", ("s32", "s32", "s32"), ("sat",), {"dsel": "h1", "asel": "h32", "bsel": "h01"}),
             Form("vmax2", ("u32", "u32", "u32"), (), {"dsel": "h0", "asel": "h22", "bsel": "h10"}),
             Form("vavrg2", ("s32", "s32", "s32"), ("add",), {"dsel": "h1"}),
             Form("vadd4", ("u32",) * 3, ("sat",), {"dsel": "b20", "asel": "b7654", "bsel": "b0123"}),
             Form("vabsdiff4", ("u32", "s32", "u32"), ("add",), {"dsel": "b31", "asel": "b0000"}),
             Form("vsub4", ("s32", "u32", "s32"), (), {"dsel": "b321", "bsel": "b7531"}),
             Form("vset4", ("s32", "u32"), ("ne",), {"dsel": "b10", "asel": "b4567"})]
    check(forms, *_inputs(900))


@pytest.mark.parametrize("form,message", [
    (Form("vadd4", ("u32",) * 3, ("sat", "add")), ".sat cannot be used with the secondary accumulate"),
    (Form("vadd", ("u32",) * 3, ("add",), {"dsel": "b1"}), "excludes a secondary operation"),
    (Form("vadd2", ("u32",) * 3, (), {"asel": "h4"}), "is not a selector for a"),
    (Form("vadd4", ("u32",) * 3, (), {"dsel": "b01"}), "is not a destination mask"),
    (Form("vadd", ("u32",) * 3, (), {"bsel": "b4"}), "is not a selector for b"),
])
def test_invalid_forms_are_located_errors(form: Form, message: str) -> None:
    with pytest.raises(Ptx2GcnError) as caught:
        with_attrs(_kernel([form]), [form])
    text = caught.value.render()
    assert message in text, text
    line = next(i for i, text in enumerate(_kernel([form]).splitlines(), 1) if text.startswith(form.ptx))
    assert text.startswith(f"<input>:{line}:"), text


def test_zluda_vshr_clamp_corpus_kernel() -> None:
    """corpora/zluda's vshr_clamp (vshr.u32.u32.u32.clamp.add) runs: hand-computed results."""
    path = Path(__file__).resolve().parents[2] / "corpora/zluda/ptx__src__test__spirv_run__vshr_clamp.ptx"
    program = load(compile(path).data, "vshr_clamp.hsaco")
    memory = DeviceMemory()
    source, result = memory.alloc(12), memory.alloc(8)
    memory.write(source, struct.pack("<3I", 0xFFFFFFF0, 4, 7))
    launch(program, "vshr_clamp", grid=(1, 1, 1), block=(1, 1, 1),
           kernarg=struct.pack("<2Q", source, result), memory=memory)
    # (0xFFFFFFF0 >> 4) + 7, then the shift by 32 (clamped to 32) leaves 0: 0 + 7.
    assert struct.unpack("<2I", memory.read(result, 8)) == (0x0FFFFFFF + 7, 7)


def _form_from_reference_spelling(spelling: str) -> Form:
    """``vsub.s32.u32.s32.sat.dsel=b2.asel=h0`` (ptx2gcn.reference's operand-modifier spelling)."""
    words = spelling.split(".")
    types = tuple(w for w in words[1:] if w in ("u32", "s32"))
    mods = tuple(w for w in words[1:] if w not in ("u32", "s32") and "=" not in w)
    sel = {("dsel" if k == "mask" else k): v for k, v in (w.split("=") for w in words if "=" in w)}
    return Form(words[0], types, mods, sel)


# The selector forms of the conformance table (ptx2gcn.conformance.forms) that the front end cannot
# spell yet (operand selectors): checked against the reference model through the IR attributes.
REFERENCE_SELECTOR_FORMS = [
    "vadd.s32.u32.s32.asel=b1.bsel=h1", "vsub.s32.u32.s32.dsel=h1",
    "vabsdiff.s32.u32.s32.sat.dsel=b2.asel=h0",
    "vmax.s32.u32.s32.dsel=b0.bsel=b3", "vshl.s32.s32.u32.wrap.dsel=h0.asel=b3",
    "vshr.s32.s32.u32.wrap.dsel=h0.asel=b3", "vmad.u32.u32.u32.asel=h1.bsel=b2",
    "vset.u32.s32.ne.dsel=b1.asel=h1", "vadd2.s32.s32.u32.sat.mask=h0.asel=h32.bsel=h10",
    "vsub2.u32.u32.u32.add.mask=h0", "vset2.u32.s32.ne.mask=h0.asel=h32.bsel=h10",
    "vmin4.s32.s32.u32.sat.mask=b31.asel=b7531.bsel=b0246", "vabsdiff4.u32.u32.u32.add.mask=b31",
    "vset4.u32.s32.ne.mask=b31.asel=b7531.bsel=b0246",
]


def test_selector_forms_match_the_reference_model() -> None:
    forms = [_form_from_reference_spelling(s) for s in REFERENCE_SELECTOR_FORMS]
    a, b, c = _inputs(700, seed=11)
    got = run_forms(forms, a, b, c)
    arrays = [np.array(x, np.uint32) for x in (a, b, c)]
    for row, spelling in zip(got, REFERENCE_SELECTOR_FORMS):
        form = _form_from_reference_spelling(spelling)
        expected = reference(spelling, *(arrays if form.takes_c else arrays[:2]))
        ok = expected.outputs[0].matches(row)
        assert ok.all(), f"{spelling}: {int((~ok).sum())} lanes differ from ptx2gcn.reference"


VMAD_ATTRS = {"scale": frozenset({"shr7", "shr15"}), "neg_a": isa.FLAG, "neg_b": isa.FLAG, "neg_c": isa.FLAG}


def test_vmad_negation_and_scale(monkeypatch: pytest.MonkeyPatch) -> None:
    """vmad's operand negation and .shr7/.shr15 (the IR op gets the attributes the lowering reads;
    the video row of the op table is widened for the test where it lacks them)."""
    row = isa.OPS["video"]
    missing = {k: v for k, v in VMAD_ATTRS.items() if k not in row.attrs}
    if missing:
        monkeypatch.setitem(isa.OPS, "video", dataclasses.replace(row, attrs={**row.attrs, **missing}))
    cases = [(("s32", "u32", "u32"), (), {"neg_a": "1"}, "neg=a"),
             (("s32", "s32", "s32"), ("sat",), {"neg_b": "1"}, "sat.neg=b"),
             (("s32", "u32", "u32"), (), {"neg_c": "1"}, "neg=c"),
             (("s32", "s32", "s32"), ("sat",), {"neg_a": "1", "neg_b": "1"}, "sat.neg=a.neg=b"),
             (("u32", "u32", "u32"), (), {"scale": "shr7"}, "shr7"),
             (("s32", "s32", "s32"), ("po", "sat"), {"scale": "shr15"}, "po.sat.shr15"),
             (("s32", "s32", "u32"), ("sat",), {"scale": "shr7"}, "sat.shr7"),
             (("u32", "u32", "u32"), ("po",), {"scale": "shr15"}, "po.shr15")]
    forms = [Form("vmad", types, mods, sel) for types, mods, sel, _ in cases]
    a, b, c = _inputs(700, seed=5)
    check(forms, a, b, c)
    got = run_forms(forms, a, b, c)
    arrays = [np.array(x, np.uint32) for x in (a, b, c)]
    for row_bits, (types, _, _, spelled) in zip(got, cases):
        spelling = ".".join(("vmad", *types, spelled))
        ok = reference(spelling, *arrays).outputs[0].matches(row_bits)
        assert ok.all(), f"{spelling}: {int((~ok).sum())} lanes differ from ptx2gcn.reference"


@pytest.mark.parametrize("sel,message", [({"neg_a": "1"}, "may not be negated in .po mode"),
                                         ({"neg_c": "1", "neg_b": "1"}, "not both")])
def test_vmad_invalid_negations(monkeypatch: pytest.MonkeyPatch, sel: dict[str, str], message: str) -> None:
    row = isa.OPS["video"]
    missing = {k: v for k, v in VMAD_ATTRS.items() if k not in row.attrs}
    if missing:
        monkeypatch.setitem(isa.OPS, "video", dataclasses.replace(row, attrs={**row.attrs, **missing}))
    form = Form("vmad", ("s32",) * 3, ("po",) if "neg_a" in sel else (), sel)
    with pytest.raises(Ptx2GcnError, match=message):
        with_attrs(_kernel([form]), [form])
