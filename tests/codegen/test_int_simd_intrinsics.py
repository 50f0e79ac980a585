"""CUDA's integer SIMD intrinsics compiled by nvcc, then by ptx2gcn for gfx942 and run on the
emulator, vs per-lane Python models of the CUDA Math API text ("SIMD Intrinsics").

SIMD within a word (``__vadd2`` ... ``__vsubus4``): nvcc implements these with video instructions
(``vabsdiff4``, ``vabsdiff2.add``), ``prmt``, ``lop3`` and plain integer arithmetic, so this checks
those lowerings on NVIDIA's own instruction sequences. Model: ``2``/``4`` = per half-word / per byte;
``s``/``u`` = signed/unsigned lanes; ``ss``/``us`` = signed/unsigned saturation; ``__vcmp*`` give an
all-ones lane for true, ``__vset*`` give 1; ``__vsad*`` sum the lanes' absolute differences;
``__vhaddu*`` is the truncated unsigned average, ``__vavgu*`` the rounded one ((a + b + 1) >> 1);
``__vavgs*`` is the signed rounded average, rounding halves away from zero as the PTX ``vavrg`` it was
defined by.

DPX (``__viaddmax_s16x2`` ... ``__vibmax_s32``): for sm_90 nvcc emits the PTX 8.0 packed forms
(``add.s16x2``, ``max.s16x2.relu``, ``min.u16x2``, ...), so this checks the packed 16x2 lowerings on
NVIDIA's own code; for sm_80 it emulates them with 32-bit integer code. Model: ``_s16x2``/``_u16x2``
work per signed/unsigned half-word, ``_s32``/``_u32`` on the word; ``viaddmax(a, b, c) = max(a + b, c)``
with a wrapping add, ``viaddmin`` likewise with min, ``vimax3``/``vimin3`` of three values, ``_relu``
then clamps negative results to 0; ``vibmax(a, b, &p...)`` is max with ``p = (a >= b)`` per lane,
``vibmin`` min with ``p = (a <= b)``.

Both kernels write one row of n results per intrinsic; each row is checked against its model. Needs
nvcc (CUDA toolkit): skipped without it, a failure under ``PTX2GCN_REQUIRE_NVCC=1`` (CI).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.compiler import compile
from tests.codegen.conftest import run_compiled
from tests.runtime.toolchain import nvcc_run

M32 = 0xFFFFFFFF


def _nvcc_ptx(folder: Path, name: str, source: str, arch: str) -> str:
    """nvcc's PTX for ``source`` (written to ``folder/name.cu``) for ``arch``."""
    cu, ptx = folder / f"{name}.cu", folder / f"{name}_{arch}.ptx"
    cu.write_text(source)
    nvcc_run(f"-arch={arch}", "-ptx", str(cu), "-o", str(ptx))
    return ptx.read_text()


def _run_rows(ptx: str, rows: int, inputs: Sequence[list[int]]) -> np.ndarray:
    """Compile and run kernel ``k(o, inputs..., n)``; its ``rows`` x n 32-bit results."""
    n = len(inputs[0])
    blobs = [np.array(values, np.uint32).tobytes() for values in inputs]
    (raw,) = run_compiled(compile(ptx).data, "k", [4 * n * rows], blobs, n)
    return np.frombuffer(raw, np.uint32).reshape(rows, n)


def _mismatches(names: Sequence[str], got: np.ndarray, expected_rows: Sequence[Sequence[int]],
                inputs: Sequence[list[int]]) -> list[str]:
    """One line per intrinsic whose row differs from its model: the first bad lane and how many."""
    wrong = []
    for name, row, expected in zip(names, got, expected_rows, strict=True):
        bad = [i for i, value in enumerate(row) if int(value) != expected[i]]
        if bad:
            i = bad[0]
            args = ", ".join(f"{values[i]:#x}" for values in inputs)
            wrong.append(f"{name} with ({args}): {int(row[i]):#x}, expected {expected[i]:#x} ({len(bad)} lanes)")
    return wrong


# ---- SIMD within a word ----

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


def simd_model(name: str, width: int, a: int, b: int) -> int:
    if name in SAD:
        return sum(abs((_signed(x, width) - _signed(y, width)) if SAD[name] else x - y)
                   for x, y in zip(_lanes(a, width), _lanes(b, width))) & M32
    lane = UNARY.get(name) or BINARY[name]
    result = 0
    for i, (x, y) in enumerate(zip(_lanes(a, width), _lanes(b, width))):
        result |= (lane(x, y, width) & ((1 << width) - 1)) << (width * i)
    return result


INTRINSICS = [(name, lanes) for name in (*UNARY, *BINARY, *SAD) for lanes in (2, 4)]


def _simd_source() -> str:
    lines = ['extern "C" __global__ void k(unsigned *o, const unsigned *a, const unsigned *b, unsigned n) {',
             "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;", "  if (i >= n) return;",
             "  unsigned x = a[i], y = b[i];"]
    for row, (name, lanes) in enumerate(INTRINSICS):
        args = "x" if name in UNARY else "x, y"
        lines.append(f"  o[{row}u * n + i] = __{name}{lanes}({args});")
    return "\n".join(lines + ["}"]) + "\n"


def _simd_inputs() -> tuple[list[int], list[int]]:
    bytes_ = [0x00, 0x01, 0x02, 0x7E, 0x7F, 0x80, 0x81, 0xFE, 0xFF, 0x40, 0xC0]
    words = [bytes_[i % 11] | bytes_[(i // 11) % 11] << 8 | bytes_[(i * 7) % 11] << 16
             | bytes_[(i * 3) % 11] << 24 for i in range(121)]
    words += [0, M32, 0x80008000, 0x7FFF7FFF, 0x00010001, 0xFFFF0001, 0x12345678, 0xFEDCBA98]
    pairs = [(x, y) for x in words for y in words[::5]]
    return [p[0] for p in pairs], [p[1] for p in pairs]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_cuda_simd_intrinsics(tmp_path: Path, arch: str) -> None:
    text = _nvcc_ptx(tmp_path, "simd", _simd_source(), arch)
    assert "vabsdiff4" in text  # nvcc still uses video instructions for these (else this test lost its point)
    a, b = _simd_inputs()
    got = _run_rows(text, len(INTRINSICS), (a, b))
    expected = [[simd_model(name, 32 // lanes, x, y) for x, y in zip(a, b)] for name, lanes in INTRINSICS]
    names = [f"__{name}{lanes}" for name, lanes in INTRINSICS]
    wrong = _mismatches(names, got, expected, (a, b))
    assert not wrong, "\n".join(wrong)


# ---- DPX ----

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
# The predicate forms: the result XOR the predicates placed in otherwise-kept bits (see _dpx_source).
PREDICATED = [("__vibmax_s16x2", "s16", max, lambda x, y: x >= y), ("__vibmin_u16x2", "u16", min,
                                                                    lambda x, y: x <= y)]


def dpx_model_row(kind: str, lane: Callable[[int, int, int, int, bool], int], a: int, b: int, c: int) -> int:
    w, signed = int(kind[1:]), kind[0] == "s"
    result = 0
    for i in range(32 // w):
        x, y, z = (_wrap(v >> (w * i), w, signed) for v in (a, b, c))
        result |= (lane(x, y, z, w, signed) & ((1 << w) - 1)) << (w * i)
    return result


def model_predicated(kind: str, pick: Callable[[int, int], int], test: Callable[[int, int], bool],
                     a: int, b: int) -> int:
    signed = kind[0] == "s"
    value = dpx_model_row(kind, lambda x, y, z, w, s: pick(x, y), a, b, 0)
    hi = test(_wrap(a >> 16, 16, signed), _wrap(b >> 16, 16, signed))
    lo = test(_wrap(a, 16, signed), _wrap(b, 16, signed))
    return value ^ (0x10000 if hi else 0) ^ (1 if lo else 0)


def model_vibmax_s32(a: int, b: int) -> int:
    x, y = _wrap(a, 32, True), _wrap(b, 32, True)
    return (max(x, y) & M32) ^ (0x80000000 if x >= y else 0)


def _dpx_source() -> str:
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


def _dpx_inputs() -> tuple[list[int], list[int], list[int]]:
    halves = [0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0x4000, 0xC000, 0x00FF]
    words = [lo | hi << 16 for lo in halves for hi in halves[::2]]
    triples = [(x, y, words[(i * 7 + j) % len(words)])
               for i, x in enumerate(words) for j, y in enumerate(words[::3])]
    return [t[0] for t in triples], [t[1] for t in triples], [t[2] for t in triples]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_cuda_dpx_intrinsics(tmp_path: Path, arch: str) -> None:
    text = _nvcc_ptx(tmp_path, "dpx", _dpx_source(), arch)
    if arch == "sm_90":  # the packed forms this test is about
        assert "max.s16x2.relu" in text and "add.s16x2" in text and "min.u16x2" in text
    a, b, c = _dpx_inputs()
    got = _run_rows(text, len(ROWS) + len(PREDICATED) + 1, (a, b, c))
    expected_rows = [[dpx_model_row(kind, lane, x, y, z) for x, y, z in zip(a, b, c)] for _, kind, lane in ROWS]
    expected_rows += [[model_predicated(kind, pick, test, x, y) for x, y in zip(a, b)]
                      for _, kind, pick, test in PREDICATED]
    expected_rows.append([model_vibmax_s32(x, y) for x, y in zip(a, b)])
    names = [call for call, _, _ in ROWS] + [p[0] for p in PREDICATED] + ["__vibmax_s32"]
    wrong = _mismatches(names, got, expected_rows, (a, b, c))
    assert not wrong, "\n".join(wrong)
