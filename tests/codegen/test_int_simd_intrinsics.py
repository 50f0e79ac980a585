"""Every CUDA SIMD-within-a-word intrinsic (``__vadd2`` ... ``__vsubus4``) compiled by nvcc, then by
ptx2gcn for gfx942 and run on the emulator, vs a per-lane Python model of the CUDA Math API text.

nvcc implements these with video instructions (``vabsdiff4``, ``vabsdiff2.add``), ``prmt``, ``lop3``
and plain integer arithmetic, so this checks those lowerings on NVIDIA's own instruction sequences.
Needs nvcc (CUDA toolkit): skipped without it, a failure under ``PTX2GCN_REQUIRE_NVCC=1`` (CI).

Model (CUDA Math API, "SIMD Intrinsics"): ``2``/``4`` = per half-word / per byte; ``s``/``u`` =
signed/unsigned lanes; ``ss``/``us`` = signed/unsigned saturation; ``__vcmp*`` give an all-ones lane
for true, ``__vset*`` give 1; ``__vsad*`` sum the lanes' absolute differences; ``__vhaddu*`` is the
truncated unsigned average, ``__vavgu*`` the rounded one ((a + b + 1) >> 1); ``__vavgs*`` is the
signed rounded average, rounding halves away from zero as the PTX ``vavrg`` it was defined by.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.compiler import compile
from tests.codegen.conftest import run_compiled

NVCC = shutil.which("nvcc") or next((p for p in ("/usr/local/cuda/bin/nvcc",) if Path(p).exists()), None)
M32 = 0xFFFFFFFF

Lane = Callable[[int, int, int], int]
"""(a lane, b lane, lane width) -> result lane (any integer; wrapped to the width when packed)."""


def _signed(x: int, w: int) -> int:
    return x - (1 << w) if x >> (w - 1) else x


def _sat_s(x: int, w: int) -> int:
    return max(-(1 << (w - 1)), min((1 << (w - 1)) - 1, x))


def _sat_u(x: int, w: int) -> int:
    return max(0, min((1 << w) - 1, x))


def _avg_away(total: int) -> int:
    return (total + 1) >> 1 if total >= 0 else total >> 1


_CMP: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}

UNARY: dict[str, Lane] = {
    "vabs": lambda x, _, w: abs(_signed(x, w)),
    "vabsss": lambda x, _, w: _sat_s(abs(_signed(x, w)), w),
    "vneg": lambda x, _, w: -x,
    "vnegss": lambda x, _, w: _sat_s(-_signed(x, w), w),
}
BINARY: dict[str, Lane] = {
    "vabsdiffs": lambda x, y, w: abs(_signed(x, w) - _signed(y, w)),
    "vabsdiffu": lambda x, y, w: abs(x - y),
    "vadd": lambda x, y, w: x + y,
    "vaddss": lambda x, y, w: _sat_s(_signed(x, w) + _signed(y, w), w),
    "vaddus": lambda x, y, w: _sat_u(x + y, w),
    "vavgs": lambda x, y, w: _avg_away(_signed(x, w) + _signed(y, w)),
    "vavgu": lambda x, y, w: (x + y + 1) >> 1,
    "vhaddu": lambda x, y, w: (x + y) >> 1,
    "vmaxs": lambda x, y, w: max(_signed(x, w), _signed(y, w)),
    "vmaxu": lambda x, y, w: max(x, y),
    "vmins": lambda x, y, w: min(_signed(x, w), _signed(y, w)),
    "vminu": lambda x, y, w: min(x, y),
    "vsub": lambda x, y, w: x - y,
    "vsubss": lambda x, y, w: _sat_s(_signed(x, w) - _signed(y, w), w),
    "vsubus": lambda x, y, w: _sat_u(x - y, w),
}
for _cmp, _test in _CMP.items():
    for _sign in (("", "s", "u") if _cmp in ("eq", "ne") else ("s", "u")):
        if _cmp in ("eq", "ne") and _sign:
            continue

        def _lane(x: int, y: int, w: int, test: Callable[[int, int], bool] = _test, sign: str = _sign) -> int:
            xs, ys = (_signed(x, w), _signed(y, w)) if sign == "s" else (x, y)
            return 1 if test(xs, ys) else 0

        BINARY[f"vset{_cmp}{_sign}"] = _lane
        BINARY[f"vcmp{_cmp}{_sign}"] = (lambda x, y, w, lane=_lane: -lane(x, y, w))  # all ones when true
SAD = {"vsads": True, "vsadu": False}


def _lanes(x: int, w: int) -> list[int]:
    return [(x >> (w * i)) & ((1 << w) - 1) for i in range(32 // w)]


def model(name: str, width: int, a: int, b: int) -> int:
    if name in SAD:
        return sum(abs((_signed(x, width) - _signed(y, width)) if SAD[name] else x - y)
                   for x, y in zip(_lanes(a, width), _lanes(b, width))) & M32
    lane = UNARY.get(name) or BINARY[name]
    result = 0
    for i, (x, y) in enumerate(zip(_lanes(a, width), _lanes(b, width))):
        result |= (lane(x, y, width) & ((1 << width) - 1)) << (width * i)
    return result


INTRINSICS = [(name, lanes) for name in (*UNARY, *BINARY, *SAD) for lanes in (2, 4)]


def _source() -> str:
    lines = ['extern "C" __global__ void k(unsigned *o, const unsigned *a, const unsigned *b, unsigned n) {',
             "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;", "  if (i >= n) return;",
             "  unsigned x = a[i], y = b[i];"]
    for row, (name, lanes) in enumerate(INTRINSICS):
        args = "x" if name in UNARY else "x, y"
        lines.append(f"  o[{row}u * n + i] = __{name}{lanes}({args});")
    return "\n".join(lines + ["}"]) + "\n"


def _inputs() -> tuple[list[int], list[int]]:
    bytes_ = [0x00, 0x01, 0x02, 0x7E, 0x7F, 0x80, 0x81, 0xFE, 0xFF, 0x40, 0xC0]
    words = [bytes_[i % 11] | bytes_[(i // 11) % 11] << 8 | bytes_[(i * 7) % 11] << 16
             | bytes_[(i * 3) % 11] << 24 for i in range(121)]
    words += [0, M32, 0x80008000, 0x7FFF7FFF, 0x00010001, 0xFFFF0001, 0x12345678, 0xFEDCBA98]
    pairs = [(x, y) for x in words for y in words[::5]]
    return [p[0] for p in pairs], [p[1] for p in pairs]


@pytest.fixture(scope="module")
def nvcc_ptx(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], str]:
    if NVCC is None:
        if os.environ.get("PTX2GCN_REQUIRE_NVCC"):
            pytest.fail("nvcc not found (CUDA toolkit)")
        pytest.skip("nvcc (CUDA toolkit) not installed")
    folder = tmp_path_factory.mktemp("simd")
    (folder / "simd.cu").write_text(_source())

    def ptx(arch: str) -> str:
        out = folder / f"simd_{arch}.ptx"
        subprocess.run([NVCC, f"-arch={arch}", "-ptx", str(folder / "simd.cu"), "-o", str(out)], check=True,
                       capture_output=True)
        return out.read_text()
    return ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_cuda_simd_intrinsics(nvcc_ptx: Callable[[str], str], arch: str) -> None:
    text = nvcc_ptx(arch)
    assert "vabsdiff4" in text  # nvcc still uses video instructions for these (else this test lost its point)
    a, b = _inputs()
    n = len(a)
    (raw,) = run_compiled(compile(text).data, "k", [4 * n * len(INTRINSICS)],
                          [np.array(a, np.uint32).tobytes(), np.array(b, np.uint32).tobytes()], n)
    got = np.frombuffer(raw, np.uint32).reshape(len(INTRINSICS), n)
    wrong = []
    for row, (name, lanes) in zip(got, INTRINSICS):
        expected = [model(name, 32 // lanes, x, y) for x, y in zip(a, b)]
        bad = [i for i in range(n) if int(row[i]) != expected[i]]
        if bad:
            i = bad[0]
            wrong.append(f"__{name}{lanes}({a[i]:#x}, {b[i]:#x}) = {int(row[i]):#x}, "
                         f"expected {expected[i]:#x} ({len(bad)} lanes)")
    assert not wrong, "\n".join(wrong)
