"""CUDA's DPX intrinsics (``__viaddmax_s16x2`` ... ``__vibmax_s32``) compiled by nvcc, then by ptx2gcn for
gfx942 and run on the emulator, vs a per-lane Python model of the CUDA Math API text.

For sm_90 nvcc emits the PTX 8.0 packed forms for them (``add.s16x2``, ``max.s16x2.relu``,
``min.u16x2``, ...), so this checks the packed 16x2 lowerings on NVIDIA's own code; for sm_80 it
emulates them with 32-bit integer code. Needs nvcc: skipped without it, a failure under
``PTX2GCN_REQUIRE_NVCC=1`` (CI).

Model (CUDA Math API, "SIMD Intrinsics", DPX): ``_s16x2``/``_u16x2`` work per signed/unsigned half-word,
``_s32``/``_u32`` on the word; ``viaddmax(a, b, c) = max(a + b, c)`` with a wrapping add,
``viaddmin`` likewise with min, ``vimax3``/``vimin3`` of three values, ``_relu`` then clamps negative
results to 0; ``vibmax(a, b, &p...)`` is max with ``p = (a >= b)`` per lane, ``vibmin`` min with
``p = (a <= b)``.
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

def _wrap(x: int, w: int, signed: bool) -> int:
    x &= (1 << w) - 1
    return x - (1 << w) if signed and x >> (w - 1) else x


def _addmax(pick: Callable[[int, int], int], relu: bool) -> Callable[[int, int, int, int, bool], int]:
    def lane(a: int, b: int, c: int, w: int, signed: bool) -> int:
        r = pick(_wrap(a + b, w, signed), c)
        return max(r, 0) if relu else r
    return lane


def _three(pick: Callable[[int, int], int], relu: bool) -> Callable[[int, int, int, int, bool], int]:
    def lane(a: int, b: int, c: int, w: int, signed: bool) -> int:
        r = pick(pick(a, b), c)
        return max(r, 0) if relu else r
    return lane


def _two_relu(pick: Callable[[int, int], int]) -> Callable[[int, int, int, int, bool], int]:
    return lambda a, b, c, w, signed: max(pick(a, b), 0)


# (the intrinsic call, its lane type, the model of one lane: (a, b, c, width, signed) -> value)
ROWS: list[tuple[str, str, Callable[[int, int, int, int, bool], int]]] = [
    ("__viaddmax_s16x2(x, y, z)", "s16", _addmax(max, False)),
    ("__viaddmax_s16x2_relu(x, y, z)", "s16", _addmax(max, True)),
    ("__viaddmax_u16x2(x, y, z)", "u16", _addmax(max, False)),
    ("__viaddmin_s16x2(x, y, z)", "s16", _addmax(min, False)),
    ("__viaddmin_s16x2_relu(x, y, z)", "s16", _addmax(min, True)),
    ("__viaddmin_u16x2(x, y, z)", "u16", _addmax(min, False)),
    ("__vimax3_s16x2(x, y, z)", "s16", _three(max, False)),
    ("__vimax3_s16x2_relu(x, y, z)", "s16", _three(max, True)),
    ("__vimax3_u16x2(x, y, z)", "u16", _three(max, False)),
    ("__vimin3_s16x2(x, y, z)", "s16", _three(min, False)),
    ("__vimin3_s16x2_relu(x, y, z)", "s16", _three(min, True)),
    ("__vimin3_u16x2(x, y, z)", "u16", _three(min, False)),
    ("__vimax_s16x2_relu(x, y)", "s16", _two_relu(max)),
    ("__vimin_s16x2_relu(x, y)", "s16", _two_relu(min)),
    ("(unsigned)__viaddmax_s32((int)x, (int)y, (int)z)", "s32", _addmax(max, False)),
    ("(unsigned)__viaddmin_s32_relu((int)x, (int)y, (int)z)", "s32", _addmax(min, True)),
    ("__viaddmax_u32(x, y, z)", "u32", _addmax(max, False)),
    ("(unsigned)__vimax3_s32_relu((int)x, (int)y, (int)z)", "s32", _three(max, True)),
    ("__vimin3_u32(x, y, z)", "u32", _three(min, False)),
]
# The predicate forms: the result XOR the predicates placed in otherwise-kept bits (see _source).
PREDICATED = [("__vibmax_s16x2", "s16", max, lambda x, y: x >= y), ("__vibmin_u16x2", "u16", min,
                                                                    lambda x, y: x <= y)]


def model_row(kind: str, lane: Callable[[int, int, int, int, bool], int], a: int, b: int, c: int) -> int:
    w, signed = int(kind[1:]), kind[0] == "s"
    result = 0
    for i in range(32 // w):
        x, y, z = (_wrap(v >> (w * i), w, signed) for v in (a, b, c))
        result |= (lane(x, y, z, w, signed) & ((1 << w) - 1)) << (w * i)
    return result


def model_predicated(kind: str, pick: Callable[[int, int], int], test: Callable[[int, int], bool],
                     a: int, b: int) -> int:
    signed = kind[0] == "s"
    value = model_row(kind, lambda x, y, z, w, s: pick(x, y), a, b, 0)
    hi = test(_wrap(a >> 16, 16, signed), _wrap(b >> 16, 16, signed))
    lo = test(_wrap(a, 16, signed), _wrap(b, 16, signed))
    return value ^ (0x10000 if hi else 0) ^ (1 if lo else 0)


def model_vibmax_s32(a: int, b: int) -> int:
    x, y = _wrap(a, 32, True), _wrap(b, 32, True)
    return (max(x, y) & M32) ^ (0x80000000 if x >= y else 0)


def _source() -> str:
    lines = ['extern "C" __global__ void k(unsigned *o, const unsigned *a, const unsigned *b,',
             "                           const unsigned *c, unsigned n) {",
             "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;", "  if (i >= n) return;",
             "  unsigned x = a[i], y = b[i], z = c[i];", "  unsigned row = 0;"]
    lines += [f"  o[row++ * n + i] = {call};" for call, _, _ in ROWS]
    lines.append("  bool p1 = false, p2 = false;")
    for name, _, _, _ in PREDICATED:
        lines += [f"  unsigned m_{name} = {name}(x, y, &p1, &p2);",
                  f"  o[row++ * n + i] = m_{name} ^ (p1 ? 0x10000u : 0u) ^ (p2 ? 1u : 0u);"]
    lines += ["  unsigned m = (unsigned)__vibmax_s32((int)x, (int)y, &p1);",
              "  o[row++ * n + i] = m ^ (p1 ? 0x80000000u : 0u);", "}"]
    return "\n".join(lines) + "\n"


def _inputs() -> tuple[list[int], list[int], list[int]]:
    halves = [0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0x4000, 0xC000, 0x00FF]
    words = [lo | hi << 16 for lo in halves for hi in halves[::2]]
    triples = [(x, y, words[(i * 7 + j) % len(words)])
               for i, x in enumerate(words) for j, y in enumerate(words[::3])]
    return [t[0] for t in triples], [t[1] for t in triples], [t[2] for t in triples]


@pytest.fixture(scope="module")
def nvcc_ptx(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], str]:
    if NVCC is None:
        if os.environ.get("PTX2GCN_REQUIRE_NVCC"):
            pytest.fail("nvcc not found (CUDA toolkit)")
        pytest.skip("nvcc (CUDA toolkit) not installed")
    folder = tmp_path_factory.mktemp("dpx")
    (folder / "dpx.cu").write_text(_source())

    def ptx(arch: str) -> str:
        out = folder / f"dpx_{arch}.ptx"
        subprocess.run([NVCC, f"-arch={arch}", "-ptx", str(folder / "dpx.cu"), "-o", str(out)], check=True,
                       capture_output=True)
        return out.read_text()
    return ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_cuda_dpx_intrinsics(nvcc_ptx: Callable[[str], str], arch: str) -> None:
    text = nvcc_ptx(arch)
    if arch == "sm_90":  # the packed forms this test is about
        assert "max.s16x2.relu" in text and "add.s16x2" in text and "min.u16x2" in text
    a, b, c = _inputs()
    n = len(a)
    count = len(ROWS) + len(PREDICATED) + 1
    blobs = [np.array(v, np.uint32).tobytes() for v in (a, b, c)]
    (raw,) = run_compiled(compile(text).data, "k", [4 * n * count], blobs, n)
    got = np.frombuffer(raw, np.uint32).reshape(count, n)
    expected_rows = [[model_row(kind, lane, x, y, z) for x, y, z in zip(a, b, c)] for _, kind, lane in ROWS]
    expected_rows += [[model_predicated(kind, pick, test, x, y) for x, y in zip(a, b)]
                      for _, kind, pick, test in PREDICATED]
    expected_rows.append([model_vibmax_s32(x, y) for x, y in zip(a, b)])
    names = [call for call, _, _ in ROWS] + [p[0] for p in PREDICATED] + ["__vibmax_s32"]
    wrong = []
    for name, row, expected in zip(names, got, expected_rows):
        bad = [i for i in range(n) if int(row[i]) != expected[i]]
        if bad:
            i = bad[0]
            wrong.append(f"{name} with x={a[i]:#x} y={b[i]:#x} z={c[i]:#x}: {int(row[i]):#x}, "
                         f"expected {expected[i]:#x} ({len(bad)} lanes)")
    assert not wrong, "\n".join(wrong)
