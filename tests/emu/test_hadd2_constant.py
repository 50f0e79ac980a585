"""Issue #13: ``__hadd2(x, __float2half2_rn(0.5f))`` compiled by nvcc, run on the emulator.

nvcc writes the constant half2 as a register built from ``0f3F000000``; LLVM folds it into
``v_pk_add_f16 v, v, 0.5 op_sel_hi:[1,0]``, whose 16-bit inline constant the emulator once read with
the f32 pattern (adding 0). ``data/hadd2_const.ptx`` is nvcc 13's output for ``data/hadd2_const.cu``
(``nvcc -ptx -arch=compute_80``); where nvcc is installed the test also compiles the source afresh.
Expected values come from the reference model (``mul.f16x2`` then ``add.f16x2`` with 0x38003800)
and, independently, from numpy's IEEE half arithmetic.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.compiler import compile as compile_ptx
from ptx2gcn.compiler import compile_assembly
from ptx2gcn.fuzz.device import launch_buffers
from ptx2gcn.reference import run
from tests.runtime.toolchain import require_nvcc

DATA = Path(__file__).resolve().parent / "data"
N = 256


def _halves() -> np.ndarray:
    rng = np.random.default_rng(13)
    values = rng.uniform(-6, 6, 2 * N).astype(np.float16)
    values[:8] = [0, -0.0, 0.5, -0.5, 1, -1, 65504, np.inf]  # exact and overflowing squares
    return values


def _ptx(source: str, tmp_path: Path) -> str:
    if source == "checked-in":
        return (DATA / "hadd2_const.ptx").read_text()
    out = tmp_path / "hadd2_const.ptx"
    subprocess.run([require_nvcc(), "-ptx", "-arch=compute_80", str(DATA / "hadd2_const.cu"), "-o", str(out)],
                   check=True, capture_output=True, timeout=300)
    return out.read_text()


@pytest.mark.parametrize("source", ["checked-in", "nvcc"])
def test_hadd2_with_a_constant_half2_matches_the_model(source: str, tmp_path: Path) -> None:
    ptx = _ptx(source, tmp_path)
    assembly = compile_assembly(ptx)
    assert "v_pk_add_f16" in assembly and "0.5 op_sel_hi:[1,0]" in assembly, (
        "the kernel no longer exercises a folded f16 inline constant:\n" + assembly
    )
    x = _halves()
    _, out = launch_buffers(compile_ptx(ptx).data, "hadd2_const", [x.tobytes(), bytes(4 * N)], [N], 4, 64)
    got = np.frombuffer(out, dtype=np.uint32)
    words = x.view(np.uint32)
    product = run("mul.f16x2", words, words)
    want = run("add.f16x2", product.value, np.full(N, 0x38003800, dtype=np.uint32))
    assert want.matches(got).all()
    with np.errstate(over="ignore"):  # 65504**2 overflows to inf, as in IEEE half arithmetic
        numpy_want = (x * x).astype(np.float16) + np.float16(0.5)
    np.testing.assert_array_equal(got.view(np.float16), numpy_want)
