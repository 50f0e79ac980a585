"""Accumulators kept in the stacked MFMA layout across a K loop (pass ``mma-mfma-layout``, lowering in
``ptx2gcn.emit.lower_mma_mfma``), on the emulator against the reference model's chain
(``chain_expected``; small-integer data, so bit exact).

The kernel (``.reqntid 64``: both warps of the wave reach the loop's mma together, ``wave = whole``)
runs ``n`` steps ``D = A_i B_i + D`` from a zero or a loaded accumulator and stores D after the loop;
variants store D inside the loop too (a use of the stacked value mid-loop) and add a second mma that
only warp 0 executes (a warp-dependent branch: that mma has no whole-wave verdict, so the web stays
in the PTX layout). ``n = 0`` takes the zero-trip edge. Each variant also runs under ``--mma exact``
(no stacked layout) with the same expectations, and the IR is checked for what the pass did."""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt
import pytest

from ptx2gcn.compiler import compile, to_ir
from ptx2gcn.conformance import matrix_kernel
from ptx2gcn.conformance.matrix_kernel import matrix_data
from ptx2gcn.conformance.matrix_table import OK, REJECTED, Unit, run_unit, units
from ptx2gcn.ir.printer import print_module
from ptx2gcn.reference.mma import WARP, chain_expected, element_format, from_matrix, mma_form, to_matrix
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

SPELLING = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
MAX_STEPS = 3


def _sizes(spelling: str) -> tuple[int, int, int, int]:
    """(A registers, B registers, input words per thread, output words per thread)."""
    shape = mma_form(spelling).shape
    step = shape.a.regs + shape.b.regs
    return shape.a.regs, shape.b.regs, 4 + MAX_STEPS * step, 4 + MAX_STEPS * 4


def _kernel(spelling: str, init: str, escape: bool, mixed: bool) -> str:
    """C (4 words), then each step's A and B registers per thread in; D after the loop, then D after
    each step (``escape``) out."""
    na, nb, in_words, out_words = _sizes(spelling)
    regs = "{%f0, %f1, %f2, %f3}"
    a_regs = ", ".join(f"%r{10 + i}" for i in range(na))
    b_regs = ", ".join(f"%r{10 + na + i}" for i in range(nb))
    if init == "zero":
        start = "\n".join(f"\tmov.f32 %f{i}, 0f00000000;" for i in range(4))
    else:
        start = "\n".join(f"\tld.global.f32 %f{i}, [%rd4+{4 * i}];" for i in range(4))
    mma = f"\t{spelling} {regs}, {{{a_regs}}}, {{{b_regs}}}, {regs};"
    mid = "\n".join(f"\tst.global.f32 [%rd8+{4 * i}], %f{i};" for i in range(4)) + "\n\tadd.u64 %rd8, %rd8, 16;"
    extra = f"\tsetp.lt.u32 %p2, %r2, 32;\n\t@!%p2 bra SKIP;\n{mma}\nSKIP:"
    loads = "\n".join(f"\tld.global.b32 %r{10 + i}, [%rd7+{4 * i}];" for i in range(na + nb))
    stores = "\n".join(f"\tst.global.f32 [%rd6+{4 * i}], %f{i};" for i in range(4))
    return f"""
.version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 out, .param .u64 in, .param .u32 n) .reqntid 64
{{
\t.reg .b32 %r<20>;
\t.reg .f32 %f<4>;
\t.reg .b64 %rd<10>;
\t.reg .pred %p<4>;
\tld.param.u64 %rd1, [out];
\tld.param.u64 %rd2, [in];
\tld.param.u32 %r1, [n];
\tmov.u32 %r2, %tid.x;
\tmov.u32 %r3, %ctaid.x;
\tmad.lo.u32 %r4, %r3, 64, %r2;
\tmul.wide.u32 %rd3, %r4, {4 * in_words};
\tadd.u64 %rd4, %rd2, %rd3;
\tmul.wide.u32 %rd5, %r4, {4 * out_words};
\tadd.u64 %rd6, %rd1, %rd5;
{start}
\tadd.u64 %rd7, %rd4, 16;
\tadd.u64 %rd8, %rd6, 16;
\tmov.u32 %r5, 0;
\tsetp.eq.u32 %p1, %r1, 0;
\t@%p1 bra DONE;
LOOP:
{loads}
{mma}
{mid if escape else ""}
{extra if mixed else ""}
\tadd.u64 %rd7, %rd7, {4 * (na + nb)};
\tadd.u32 %r5, %r5, 1;
\tsetp.lt.u32 %p3, %r5, %r1;
\t@%p3 bra LOOP;
DONE:
{stores}
\tret;
}}
"""


VARIANTS = [(SPELLING, "zero", False, False, False), (SPELLING, "loaded", False, False, False),
            (SPELLING, "loaded", True, False, False), (SPELLING, "zero", True, False, False),
            (SPELLING, "loaded", False, True, False)]
OTHERS = ["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
          "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
          "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32"]
VARIANTS += [(spelling, "loaded", True, False, False) for spelling in OTHERS]
VARIANTS += [(OTHERS[0], "zero", False, False, True)]
"""(spelling, initial accumulator, store D in the loop, warp 0 adds a second mma, a subnormal A element
in step 1: the guarded forms run that step on the exact path, converting from and to the stacked
layout)."""


def _ir(ptx: str) -> str:
    return print_module(to_ir(ptx, "k.ptx"))


@pytest.mark.parametrize(("spelling", "init", "escape", "mixed", "subnormal"), VARIANTS,
                         ids=[f"{v[0].split('.')[3]}.{v[0].split('.')[7]}-{v[1]}{'-escape' * v[2]}{'-mixed' * v[3]}"
                              f"{'-subnormal' * v[4]}" for v in VARIANTS])
def test_stacked_accumulators_in_a_loop(spelling: str, init: str, escape: bool, mixed: bool, subnormal: bool,
                                        rng: np.random.Generator) -> None:
    form = mma_form(spelling)
    fc = form.c_frag
    _, _, _, out_words = _sizes(spelling)
    ptx = _kernel(spelling, init, escape, mixed)
    ir_text = _ir(ptx)
    assert ("acc = mfma" in ir_text) is not mixed  # a web with a non-whole mma stays in the PTX layout
    assert ("mma_acc" in ir_text) is not mixed
    waves = 2
    warps = 2 * waves
    data, words = _inputs(spelling, warps, init == "zero", subnormal, rng)
    for mma in ("auto", "exact"):
        program = load(compile(ptx, mma=mma).data, "k.hsaco")
        for n in (0, MAX_STEPS):
            memory = DeviceMemory()
            out = memory.alloc(4 * out_words * warps * WARP)
            memory.write(out, bytes(4 * out_words * warps * WARP))
            inp = memory.alloc(words.nbytes)
            memory.write(inp, words.tobytes())
            stats = launch(program, "k", grid=(waves, 1, 1), block=(64, 1, 1),
                           kernarg=struct.pack("<QQI", out, inp, n), memory=memory)
            got = np.frombuffer(memory.read(out, 4 * out_words * warps * WARP), dtype=np.uint32)
            got = got.reshape(warps * WARP, out_words)
            per_step = 2 if mixed else 1  # warp 0 of each wave runs the step's mma twice (mixed)
            mfmas = waves * n * (2 if mma == "auto" and not mixed else 0)
            assert stats.mfma_instructions >= mfmas or subnormal
            for w, (steps, c) in enumerate(data):
                lanes = got[w * WARP:(w + 1) * WARP]
                ran = [(a.tolist(), b.tolist()) for a, b in steps[:n]
                       for _ in range(per_step if w % 2 == 0 else 1)]
                _check(to_matrix(fc, lanes[:, :4].tolist()), chain_expected(spelling, ran, c.tolist()),
                       f"{mma} n={n} warp {w}: D")
                if escape:
                    for i in range(n):
                        mid = to_matrix(fc, lanes[:, 4 + 4 * i:8 + 4 * i].tolist())
                        _check(mid, chain_expected(spelling, ran[:i + 1], c.tolist()),
                               f"{mma} n={n} warp {w}: D after step {i}")


Steps = list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]]


def _inputs(spelling: str, warps: int, zero: bool, subnormal: bool, rng: np.random.Generator
            ) -> tuple[list[tuple[Steps, npt.NDArray[np.int64]]], npt.NDArray[np.uint32]]:
    """Each warp's steps (A, B) and C (small integers), and the words each thread reads."""
    form = mma_form(spelling)
    s, fc = form.shape, form.c_frag
    na, nb, in_words, _ = _sizes(spelling)
    data = []
    words = np.zeros((warps * WARP, in_words), dtype=np.uint32)
    for w in range(warps):
        steps = [(matrix_data(form.atype, (s.a.rows, s.a.cols), True, rng),
                  matrix_data(form.btype, (s.b.rows, s.b.cols), True, rng)) for _ in range(MAX_STEPS)]
        if subnormal:
            steps[1][0][3][5] = 1  # the smallest subnormal
        c = matrix_data("f32", (fc.rows, fc.cols), True, rng, accumulator=True)
        if zero:
            c = np.zeros_like(c)
        data.append((steps, c))
        lanes = slice(w * WARP, (w + 1) * WARP)
        words[lanes, :4] = from_matrix(fc, c.tolist())
        for i, (a, b) in enumerate(steps):
            base = 4 + i * (na + nb)
            words[lanes, base:base + na] = from_matrix(s.a, a.tolist())
            words[lanes, base + na:base + na + nb] = from_matrix(s.b, b.tolist())
    return data, words


def _check(got: list[list[int]], expected: list, what: str) -> None:
    fmt = element_format("f32")
    wrong = [(r, c) for r, row in enumerate(expected) for c, e in enumerate(row) if not e.accepts(fmt, got[r][c])]
    assert not wrong, f"{what}: {len(wrong)} wrong, e.g. {wrong[:3]}"


_MMA_UNITS = [u for u in units() if u.name.startswith("mma.")]
_STACKABLE = {"m16n8k16.row.col.f32.f16.f16.f32", "m16n8k8.row.col.f32.f16.f16.f32",
              "m16n8k16.row.col.f32.bf16.bf16.f32", "m16n8k8.row.col.f32.bf16.bf16.f32",
              "m16n8k8.row.col.f32.tf32.tf32.f32", "m16n8k4.row.col.f32.tf32.tf32.f32"}


@pytest.mark.parametrize("unit", [pytest.param(u, id=u.name, marks=[] if u.name.removeprefix("mma.sync.aligned.")
                                               in _STACKABLE else [pytest.mark.slow]) for u in _MMA_UNITS])
def test_conformance_mma_units_on_whole_waves(unit: Unit, monkeypatch: pytest.MonkeyPatch) -> None:
    """The warp-matrix conformance units of ``mma`` (two warps, one wave) with ``.reqntid 64``: every mma
    gets the whole-wave verdict, the stackable forms a stacked accumulator with conversions at both ends
    (C loaded, D stored); the results must still match the model. Default suite: the stackable forms."""
    monkeypatch.setattr(matrix_kernel, "_HEAD", matrix_kernel._HEAD.replace(".param .u64 pin)\n",
                                                                            ".param .u64 pin) .reqntid 64\n"))
    assert ".reqntid 64" in matrix_kernel._HEAD
    outcome = run_unit(unit, 20261)
    assert outcome.kind in (OK, REJECTED), "\n".join(outcome.details)
