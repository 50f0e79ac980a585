"""``ldmatrix`` loading MFMA operands (pass ``ldmatrix-mfma-layout``, ``ptx2gcn.emit.mfma_operands``) in a
Triton-style K loop, on the emulator against numpy (small integers: every path bit exact).

Per warp, shared memory holds each step's A (16x16, row-major) and B (16x16, row-major: two n-tiles);
each step loads A with ``ldmatrix.x4`` and B with ``ldmatrix.x4.trans`` (or ``.x2.trans`` for one
n-tile) as Triton does, and runs one mma per n-tile into stacked accumulators. Variants: A's
registers also stored to memory (another use: that ldmatrix keeps the PTX layout), and an mma that
only warp 0 executes (no whole-wave verdict: nothing converted). Each runs under ``--mma auto`` and
``--mma exact``."""

from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pytest
from llvmlite import ir

from ptx2gcn.compiler import compile, to_ir
from ptx2gcn.emit import lower_mma_mfma
from ptx2gcn.emit.llvm_types import I32
from ptx2gcn.emit.lower_mma_mfma import Registers
from ptx2gcn.ir.printer import print_module
from ptx2gcn.reference.mma import WARP, mma_form, to_matrix
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

SPELLINGS = {"f16": "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
             "bf16": "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"}
STEPS = 3
STEP_BYTES = 1024  # A and B, 16x16 f16 each
TILE_WORDS = STEPS * STEP_BYTES // 4 // WARP  # words each lane copies to shared memory


def _kernel(spelling: str, tiles: int, escape: bool, mixed: bool) -> str:
    num = "x4" if tiles == 2 else "x2"
    b_regs = ["{%b0, %b1}", "{%b2, %b3}"][:tiles]
    acc = [f"{{%d{4 * t}, %d{4 * t + 1}, %d{4 * t + 2}, %d{4 * t + 3}}}" for t in range(tiles)]
    mmas = "\n".join(f"\t{spelling} {acc[t]}, {{%a0, %a1, %a2, %a3}}, {b_regs[t]}, {acc[t]};" for t in range(tiles))
    if mixed:  # warp 0 adds its first n-tile product once more
        mmas += f"\n\tsetp.lt.u32 %p2, %r2, 32;\n\t@!%p2 bra SKIP;\n\t{spelling} {acc[0]}, {{%a0, %a1, %a2, %a3}}, " \
                f"{b_regs[0]}, {acc[0]};\nSKIP:"
    store_a = "\n".join(f"\tst.global.b32 [%rd9+{4 * (8 + j)}], %a{j};" for j in range(4)) if escape else ""
    zero = "\n".join(f"\tmov.f32 %d{i}, 0f00000000;" for i in range(4 * tiles))
    stores = "\n".join(f"\tst.global.f32 [%rd9+{4 * i}], %d{i};" for i in range(4 * tiles))
    copy = "\n".join(f"\tld.global.b32 %r20, [%rd5+{4 * WARP * i}];\n\tst.shared.b32 [%r11+{4 * WARP * i}], %r20;"
                     for i in range(TILE_WORDS))
    return f"""
.version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 out, .param .u64 in, .param .u32 n) .reqntid 64
{{
\t.reg .b32 %r<24>;
\t.reg .b32 %a<4>;
\t.reg .b32 %b<4>;
\t.reg .f32 %d<8>;
\t.reg .b64 %rd<12>;
\t.reg .pred %p<4>;
\t.shared .align 16 .b8 smem[{2 * STEPS * STEP_BYTES}];
\tld.param.u64 %rd1, [out];
\tld.param.u64 %rd2, [in];
\tld.param.u32 %r1, [n];
\tmov.u32 %r2, %tid.x;
\tmov.u32 %r3, %ctaid.x;
\tshr.u32 %r4, %r2, 5;
\tand.b32 %r5, %r2, 31;
\tmad.lo.u32 %r6, %r3, 2, %r4;
\tmul.wide.u32 %rd3, %r6, {STEPS * STEP_BYTES};
\tadd.u64 %rd4, %rd2, %rd3;
\tmul.wide.u32 %rd6, %r5, 4;
\tadd.u64 %rd5, %rd4, %rd6;
\tmov.u32 %r10, smem;
\tmad.lo.u32 %r12, %r4, {STEPS * STEP_BYTES}, %r10;
\tmad.lo.u32 %r11, %r5, 4, %r12;
{copy}
\tbar.sync 0;
\tmad.lo.u32 %r7, %r3, 64, %r2;
\tmul.wide.u32 %rd7, %r7, 48;
\tadd.u64 %rd9, %rd1, %rd7;
\tshr.u32 %r13, %r5, 3;
\tand.b32 %r14, %r5, 7;
\tand.b32 %r15, %r13, 1;
\tmad.lo.u32 %r16, %r15, 8, %r14;
\tshr.u32 %r17, %r13, 1;
\tshl.b32 %r18, %r16, 5;
\tmad.lo.u32 %r19, %r17, 16, %r18;
\tadd.u32 %r12, %r12, %r19;
{zero}
\tmov.u32 %r8, 0;
\tsetp.eq.u32 %p1, %r1, 0;
\t@%p1 bra DONE;
LOOP:
\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {{%a0, %a1, %a2, %a3}}, [%r12];
\tadd.u32 %r21, %r12, 512;
\tldmatrix.sync.aligned.m8n8.{num}.trans.shared.b16 {{{", ".join(f"%b{i}" for i in range(2 * tiles))}}}, [%r21];
{mmas}
{store_a}
\tadd.u32 %r12, %r12, {STEP_BYTES};
\tadd.u32 %r8, %r8, 1;
\tsetp.lt.u32 %p3, %r8, %r1;
\t@%p3 bra LOOP;
DONE:
{stores}
\tret;
}}
"""


VARIANTS = [("f16", 2, False, False), ("f16", 1, False, False), ("f16", 2, True, False), ("f16", 2, False, True),
            ("bf16", 2, False, False), ("bf16", 1, True, False)]


@pytest.mark.parametrize(("atype", "tiles", "escape", "mixed"), VARIANTS,
                         ids=[f"{a}-tiles{t}{'-escape' * e}{'-mixed' * m}" for a, t, e, m in VARIANTS])
def test_ldmatrix_into_mfma_operands(atype: str, tiles: int, escape: bool, mixed: bool,
                                     rng: np.random.Generator) -> None:
    _run(atype, tiles, escape, mixed, rng)


@pytest.mark.parametrize("atype", ["f16", "bf16"])
def test_exact_branch_converts_operands_and_accumulators(atype: str, monkeypatch: pytest.MonkeyPatch,
                                                         rng: np.random.Generator) -> None:
    """The exact branch ``gated`` keeps for guarded forms, forced for every mma: with ``aop``/``bop``/``acc``
    it converts A and B out of the MFMA operand layout (``mfma_operands.a_to_ptx``/``b_to_ptx``) and C/D
    out of and back into the stacked layout around the exact code; results must not change."""
    def slow_only(cx: object, fast: object, slow: Callable[[], Registers], ready: object = None,
                  reg_type: ir.IntType = I32) -> Registers:
        return [[cx.coerce(v, reg_type) for v in problem] for problem in slow()]  # type: ignore[attr-defined]

    monkeypatch.setattr(lower_mma_mfma, "gated", slow_only)
    _run(atype, 2, False, False, rng, modes=("auto",), mfmas=False)


def _bits(values: npt.NDArray[np.int64], atype: str) -> npt.NDArray[np.uint16]:
    """Small integers as f16 or bf16 bits."""
    if atype == "f16":
        return values.astype(np.float16).view(np.uint16)
    return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _run(atype: str, tiles: int, escape: bool, mixed: bool, rng: np.random.Generator,
         modes: tuple[str, ...] = ("auto", "exact"), mfmas: bool = True) -> None:
    spelling = SPELLINGS[atype]
    ptx = _kernel(spelling, tiles, escape, mixed)
    ir_text = print_module(to_ir(ptx, "k.ptx"))
    assert ("layout = mfma_a" in ir_text) is not (escape or mixed)  # A has another use / a non-whole mma
    assert ("layout = mfma_b" in ir_text) is not mixed
    waves = 2
    warps = 2 * waves
    a = rng.integers(-4, 5, (warps, STEPS, 16, 16))
    b = rng.integers(-4, 5, (warps, STEPS, 16, 16))
    data = np.concatenate([_bits(a, atype), _bits(b, atype)], axis=2)  # per warp and step: A rows, then B rows
    fc = mma_form(spelling).c_frag
    for mma in modes:
        program = load(compile(ptx, mma=mma).data, "k.hsaco")
        for n in (0, STEPS):
            memory = DeviceMemory()
            out = memory.alloc(48 * warps * WARP)
            memory.write(out, bytes(48 * warps * WARP))
            inp = memory.alloc(data.nbytes)
            memory.write(inp, data.tobytes())
            stats = launch(program, "k", grid=(waves, 1, 1), block=(64, 1, 1),
                           kernarg=struct.pack("<QQI", out, inp, n), memory=memory)
            if not mixed:
                assert stats.mfma_instructions == (waves * n * 2 * tiles if mma == "auto" and mfmas else 0)
            got = np.frombuffer(memory.read(out, 48 * warps * WARP), dtype=np.uint32).reshape(warps * WARP, 12)
            for w in range(warps):
                lanes = got[w * WARP:(w + 1) * WARP]
                product = sum((a[w, i].astype(np.float64) @ b[w, i].astype(np.float64) for i in range(n)),
                              np.zeros((16, 16)))
                for t in range(tiles):
                    expected = product[:, 8 * t:8 * t + 8]
                    if mixed and w % 2 == 0 and t == 0:
                        expected = 2 * expected
                    d = np.array(to_matrix(fc, lanes[:, 4 * t:4 * t + 4].tolist()), dtype=np.uint32).view(np.float32)
                    assert np.array_equal(d, expected.astype(np.float32)), f"{mma} n={n} warp {w} tile {t}"
