"""CC.CF across add and subtract chains: the root cause of the wrong ``unsigned __int128`` ``/`` and ``%``.

nvcc's inlined 128-bit long division (corpus case ``wide_types/int128_ops``) subtracts with
``sub.cc``/``subc.cc`` and then reads the flag with ``addc.u32 r, 0, 0`` to learn whether the
partial remainder stayed non-negative. That only works because CC.CF is a *carry* flag in both
directions: a subtraction computes ``a + ~b + 1`` (``subc``: ``a + ~b + CF``) and CC.CF is the carry
out of that sum, i.e. NOT the borrow. The PTX ISA text words ``subc`` as ``d = a - (b + CC.CF)``
with "borrow-out written to CC.CF"; read literally, ``addc`` after ``sub.cc`` would add the borrow,
and nvcc's division would take its correction step exactly when it must not (q = 2 for x == y).

The witness is ptxas itself: it constant-folds these sequences, so comparing the cubin of a
sequence with the cubin of ``mov.u32 %r2, N`` tells the value ptxas computed
(``test_ptxas_treats_cc_as_a_carry_flag``). Observed with CUDA 13's ptxas:
``sub.cc 0 - 1; addc 0, 0`` → 0 (a borrow leaves CF = 0) and ``add.cc 0 + 1; subc 5, 0`` → 4
(no carry, CF = 0, makes ``subc`` subtract one more).

The fix (``ptx2gcn/translate/alu.py``, ``_carry_flag``): ``%cc`` holds the hardware carry flag;
the builder writes ``not(borrow_out)`` after a ``subc`` op (``sub.cc``, ``subc.cc``) and reads
``not(%cc)`` as its borrow-in (``subc``). The IR op ``subc`` and the reference model keep PTX's
single-instruction wording (borrow in, borrow out); the conformance harness
(``ptx2gcn/conformance/kernel.py``) reads a subtraction's carry-out back with ``subc.u32 r, 0, 0``.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.codegen.test_int_ops import EDGE32

PTXAS = shutil.which("ptxas") or next(
    (p for p in ("/usr/local/cuda/bin/ptxas",) if Path(p).exists()), None)
_KERNEL = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{{
.reg .b32 %r<8>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [out];
cvta.to.global.u64 %rd2, %rd1;
{body}
st.global.u32 [%rd2], %r2;
ret;
}}
"""


def _cubin_text(tmp: Path, name: str, body: str) -> bytes:
    ptx, cubin = tmp / f"{name}.ptx", tmp / f"{name}.cubin"
    ptx.write_text(_KERNEL.format(body=body))
    assert PTXAS is not None
    subprocess.run([PTXAS, "-arch=sm_80", "-O3", str(ptx), "-o", str(cubin)], check=True)
    # The whole cubin: identical sequences give identical files (no timestamps in cubins).
    return cubin.read_bytes()


def _folded_value(tmp: Path, body: str) -> int | None:
    """The constant ptxas folded ``body``'s ``%r2`` to, or None when it did not fold it."""
    target = _cubin_text(tmp, "probe", body)
    for value in range(9):
        if _cubin_text(tmp, f"mov{value}", f"mov.u32 %r2, {value};") == target:
            return value
    return None


@pytest.mark.parametrize("body,value", [
    # A borrowing subtraction leaves CF = 0 (carry convention): addc adds nothing.
    ("mov.u32 %r1, 0; mov.u32 %r3, 1; sub.cc.u32 %r4, %r1, %r3; addc.u32 %r2, 0, 0;", 0),
    # An addition without carry leaves CF = 0, and subc then subtracts one more: 5 + ~0 + 0 = 4.
    ("mov.u32 %r1, 0; mov.u32 %r3, 1; add.cc.u32 %r4, %r1, %r3; mov.u32 %r5, 5; subc.u32 %r2, %r5, 0;", 4),
    # Borrow, then subc: 5 + ~0 + 0 = 4 (both conventions agree on sub -> subc).
    ("mov.u32 %r1, 0; mov.u32 %r3, 1; sub.cc.u32 %r4, %r1, %r3; mov.u32 %r5, 5; subc.u32 %r2, %r5, 0;", 4),
])
def test_ptxas_treats_cc_as_a_carry_flag(tmp_path: Path, body: str, value: int) -> None:
    if PTXAS is None:
        if os.environ.get("PTX2GCN_REQUIRE_NVCC"):
            pytest.fail("ptxas not found (CUDA toolkit)")
        pytest.skip("ptxas (CUDA toolkit) not installed")
    assert _folded_value(tmp_path, body) == value


def _carry_model_sub_then_addc(a: int, b: int) -> int:
    """addc.u32 d, 0, 0 after sub.cc.u32 a, b: CF = carry out of a + ~b + 1 = (a >= b)."""
    return (a + (~b & 0xFFFFFFFF) + 1) >> 32


def _carry_model_add_then_subc(a: int, b: int, c: int) -> int:
    """subc.u32 d, c, 0 after add.cc.u32 a, b: d = c + ~0 + CF, CF = carry out of a + b."""
    cf = (a + b) >> 32
    return (c + 0xFFFFFFFF + cf) & 0xFFFFFFFF


def test_addc_after_sub_cc_reads_not_borrow(run_op) -> None:
    a, b = (np.array(x, np.uint64) for x in zip(*itertools.product(EDGE32, EDGE32)))
    got = run_op("sub.cc.u32 %tmp, %a0, %a1;\naddc.u32 %d, 0, 0", ["u32", "u32"], "u32", a, b)
    expected = np.array([_carry_model_sub_then_addc(int(x), int(y)) for x, y in zip(a, b)], np.uint32)
    assert np.array_equal(got, expected)


def test_subc_after_add_cc_reads_carry(run_op) -> None:
    values = EDGE32[:12]
    a, b, c = (np.array(x, np.uint64) for x in zip(*itertools.product(values, values, [0, 5, 0xFFFFFFFF])))
    got = run_op("add.cc.u32 %tmp, %a0, %a1;\nsubc.u32 %d, %a2, 0", ["u32"] * 3, "u32", a, b, c)
    expected = np.array([_carry_model_add_then_subc(int(x), int(y), int(z)) for x, y, z in zip(a, b, c)],
                        np.uint32)
    assert np.array_equal(got, expected)


def test_int128_division_step_sign_test(run_op) -> None:
    """The reduced step of nvcc's __int128 division: 64-bit x - y in two limbs, then ``addc r, 0, 0``
    gives 1 iff the difference is non-negative (x >= y); the correction runs when it is 0."""
    edges = [0, 1, 0xFFFFFFFF, 0x100000000, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF,
             0x4E522ED592931020]
    x, y = (np.array(v, np.uint64) for v in zip(*itertools.product(edges, edges)))
    body = ("mov.b64 {%r1, %r2}, %a0;\nmov.b64 {%r3, %r4}, %a1;\n"
            "sub.cc.u32 %r5, %r1, %r3;\nsubc.cc.u32 %r6, %r2, %r4;\naddc.u32 %d, 0, 0")
    got = run_op(body, ["u64", "u64"], "u32", x, y)
    expected = (x >= y).astype(np.uint32)
    assert np.array_equal(got, expected)


def test_carry_chain_across_blocks_and_braces(run_op) -> None:
    """CC.CF survives a divergent branch and a ``{ }`` scope between add.cc and addc (the other two
    suspects for the __int128 bug; both are fine): d = high word of a + b (+1 when a0 is odd)."""
    values = EDGE32[:12]
    a, b = (np.array(x, np.uint64) for x in zip(*itertools.product(values, values)))
    body = ("add.cc.u32 %r5, %a0, %a1;\n"
            "and.b32 %r6, %a0, 1;\n"
            "setp.eq.u32 %p2, %r6, 0;\n"
            "@%p2 bra SKIP;\n"
            "{ .reg .b32 %inner; mov.u32 %inner, 1; add.u32 %r5, %r5, %inner; }\n"
            "SKIP:\n"
            "{ addc.u32 %d, 0, 0; }\n"
            "add.u32 %d, %d, %r6")
    got = run_op(body, ["u32", "u32"], "u32", a, b)
    expected = np.array([((int(x) + int(y)) >> 32) + (int(x) & 1) for x, y in zip(a, b)], np.uint32)
    assert np.array_equal(got, expected)


_KEEP_SUM = ";\naddc.u32 %r5, 0, 0;\ncvt.u64.u32 %rd31, %r5;\nshl.b64 %rd31, %rd31, 63;\nxor.b64 %d, %rd30, %rd31"
"""Output ``sum ^ carry << 63``: the sum must stay live, or LLVM computes the carry alone (correctly)."""


@pytest.mark.parametrize("body", [
    "mad.lo.cc.u64 %rd30, %a0, %a1, 2" + _KEEP_SUM,
    "mul.lo.u64 %rd29, %a0, %a1;\nadd.cc.u64 %rd30, %rd29, 2" + _KEEP_SUM,
    "add.cc.u32 %tmp, 1, -1;\nmadc.lo.cc.u64 %rd30, %a0, %a1, 16" + _KEEP_SUM,
])
def test_64_bit_carry_out_of_a_product_plus_a_small_constant(run_op, body: str) -> None:
    """LLVM 22 computes uadd.with.overflow.i64(a * b, 2) on gfx942 with the product's high-word
    partial sum folded into the carry chain, so its carry-out was set whenever that partial sum
    wrapped (llvm/llvm-project#204362); found by tests/conformance/test_metamorphic.py. Expected:
    Python's integers."""
    rng = np.random.default_rng(204362)
    edges = [0, 1, 0xFFFFFFFF, 0x100000000, 0xFFFFFFFFFFFFFFFF, 0x8000000000000000]
    pairs = list(itertools.product(edges, edges)) + [tuple(rng.integers(0, 2**64, 2, dtype=np.uint64))
                                                     for _ in range(200)]
    a, b = (np.array([int(p[k]) for p in pairs], np.uint64) for k in (0, 1))
    addend, carry_in = (16, 1) if "madc" in body else (2, 0)
    got = run_op(body, ["u64", "u64"], "u64", a, b)
    total = [(int(x) * int(y) % 2**64) + addend + carry_in for x, y in zip(a, b)]
    expected = np.array([(s % 2**64) ^ ((s >> 64) << 63) for s in total], np.uint64)
    assert np.array_equal(got, expected), int((got != expected).sum())
