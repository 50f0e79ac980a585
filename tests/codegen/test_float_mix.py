"""f32 arithmetic next to f16 conversions rounds as PTX says: no mixed-precision fusion.

LLVM's AMDGPU patterns fold ``fptrunc(fmul f32)`` into ``v_fma_mixlo_f16 a, b, 0`` (one rounding
instead of PTX's two, and a −0 product becomes +0) and ``fmul(fpext h, x)`` into
``v_fma_mix_f32 h, x, 0`` (−0 becomes +0); ``ptx2gcn.emit.target.TARGET_FEATURES`` turns the mix
instructions off. Expected values come from numpy (f32 product rounded to f32, then to f16), and each
double-rounding input is checked to be one where a single rounding would give another answer.
"""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.compiler import compile_assembly
from tests.codegen.conftest import op_kernel

# (a, b) f32 bit patterns whose product rounded to f32 and then to f16 differs from the product
# rounded once to f16, plus zero products of either sign.
PRODUCTS = np.array([[0x3FEE97E4, 0x3FF5A3C5], [0x3FEFE1DC, 0x3FFE754A], [0x3FA071B0, 0x3FB4BF92],
                     [0x00000000, 0x80000001], [0x80000000, 0x3F800000], [0x00000000, 0x00000000],
                     [0x3F800000, 0x3F800000], [0x7F800000, 0x00000000], [0x477FE000, 0x3F800000]],
                    dtype=np.uint32)
HALVES = np.array([0x0000, 0x8000, 0x3C00, 0xBC00, 0x0001, 0x8001, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x3555],
                  dtype=np.uint16)


def _f32(bits: np.ndarray) -> np.ndarray:
    return bits.astype(np.uint32).view(np.float32)


def _assembly_has_no_mix(ptx: str) -> None:
    asm = compile_assembly(ptx)
    lines = [line.strip() for line in asm.splitlines() if "_mix" in line and line.strip().startswith("v_")]
    assert not lines, f"mixed-precision instructions selected: {lines}"


def test_mul_then_cvt_f16_rounds_twice(run_op) -> None:
    body = ".reg .f32 %t;\nmul.rn.f32 %t, %a0, %a1;\ncvt.rn.f16.f32 %d, %t"
    a, b = PRODUCTS[:, 0], PRODUCTS[:, 1]
    _assembly_has_no_mix(op_kernel(body, ["f32", "f32"], "f16"))
    got = run_op(body, ["f32", "f32"], "f16", a, b)
    with np.errstate(all="ignore"):
        product = _f32(a) * _f32(b)  # numpy: f32 multiply, correctly rounded
        expected = product.astype(np.float16).view(np.uint16)
        once = (_f32(a).astype(np.float64) * _f32(b)).astype(np.float16).view(np.uint16)
    assert (once[:3] != expected[:3]).all(), "the first inputs must tell one rounding from two"
    assert expected[3] == 0x8000 and expected[4] == 0x8000, "zero products keep their sign"
    nan = np.isnan(expected.view(np.float16)) & np.isnan(got.view(np.float16))
    assert ((got == expected) | nan).all(), [f"{x:#06x}" for x in got]


@pytest.mark.parametrize(("instruction", "model"), [
    ("mul.rn.f32 %d, %t, %a1", lambda h, x: h * x),
    ("mul.f32 %d, %a1, %t", lambda h, x: x * h),
    ("add.f32 %d, %t, %a1", lambda h, x: h + x),
    ("sub.f32 %d, %t, %a1", lambda h, x: h - x),
    ("fma.rn.f32 %d, %t, %a1, %a1", lambda h, x: np.float32(np.float64(h) * x + x)),
    ("div.rn.f32 %d, %t, 0f40000000", lambda h, x: h / np.float32(2.0)),
])
def test_cvt_f32_f16_feeding_f32_arithmetic(run_op, instruction: str, model) -> None:
    body = f".reg .f32 %t;\ncvt.f32.f16 %t, %a0;\n{instruction}"
    xs = np.array([0x3F800000, 0xBF800000, 0x00000000, 0x80000000, 0x40490FDB, 0x00000001], np.uint32)
    h = np.repeat(HALVES, len(xs))
    x = np.tile(xs, len(HALVES))
    _assembly_has_no_mix(op_kernel(body, ["f16", "f32"], "f32"))
    got = run_op(body, ["f16", "f32"], "f32", h, x)
    with np.errstate(all="ignore"):
        expected = np.array([model(np.float32(hv), xv) for hv, xv in
                             zip(h.view(np.float16).astype(np.float32), _f32(x), strict=True)], np.float32)
    bits = expected.view(np.uint32)
    nan = np.isnan(expected) & np.isnan(got.view(np.float32))
    bad = np.flatnonzero((got != bits) & ~nan)
    assert not bad.size, [(f"{h[i]:#06x}", f"{x[i]:#010x}", f"{got[i]:#010x}", f"{bits[i]:#010x}")
                          for i in bad]


def test_sin_of_widened_negative_zero_is_negative_zero(run_op) -> None:
    # LLVM's f32 sin lowering multiplies by 1/(2π) first: with the mix instructions that product of
    # a widened −0 (and a +0 addend) was +0.
    body = ".reg .f32 %t;\ncvt.f32.f16 %t, %a0;\nsin.approx.f32 %d, %t"
    _assembly_has_no_mix(op_kernel(body, ["f16"], "f32"))
    got = run_op(body, ["f16"], "f32", np.array([0x8000, 0x0000], np.uint16))
    assert [int(v) for v in got] == [0x80000000, 0x00000000]


@pytest.mark.parametrize("op", ["fma.rn.f32 %t, %t, %t1, %t2", "add.f32 %t, %t1, %t2",
                                "sub.f32 %t, %t1, %t2"])
def test_f16_sources_f32_op_then_cvt_f16_rounds_twice(run_op, op: str) -> None:
    # f16 operands widened, one f32 operation, rounded to f16: PTX rounds to f32 first; a fused
    # v_fma_mixlo_f16 would round once. The first lanes are ones where that differs (for fma).
    body = (".reg .f32 %t, %t1, %t2;\ncvt.f32.f16 %t, %a0;\ncvt.f32.f16 %t1, %a1;\ncvt.f32.f16 %t2, %a2;\n"
            f"{op};\ncvt.rn.f16.f32 %d, %t")
    rng = np.random.default_rng(16)
    hard = np.array([[0x386F, 0x3971, 0xC5AB], [0x307F, 0x3881, 0x41E9], [0x351D, 0x3135, 0x386E]], np.uint16)
    signs = (rng.integers(0, 2, (600, 3)) << 15).astype(np.uint16)
    lanes = rng.integers(0x3000, 0x4800, (600, 3)).astype(np.uint16) ^ signs
    a, b, c = (np.concatenate([hard[:, i], lanes[:, i]]) for i in range(3))
    _assembly_has_no_mix(op_kernel(body, ["f16"] * 3, "f16"))
    got = run_op(body, ["f16"] * 3, "f16", a, b, c)
    x, y, z = (v.view(np.float16).astype(np.float64) for v in (a, b, c))
    exact = {"fma": x * y + z, "add": y + z, "sub": y - z}[op.split(".")[0]]  # exact in f64 here
    expected = exact.astype(np.float32).astype(np.float16).view(np.uint16)
    bad = np.flatnonzero(got != expected)
    assert not bad.size, [(f"{a[i]:#06x}", f"{b[i]:#06x}", f"{c[i]:#06x}", f"got {got[i]:#06x}",
                           f"want {expected[i]:#06x}") for i in bad[:8]]
    if op.startswith("fma"):
        once = exact[:3].astype(np.float16).view(np.uint16)
        assert (once != expected[:3]).all(), "the first lanes must tell one rounding from two"
