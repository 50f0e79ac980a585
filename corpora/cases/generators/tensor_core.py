"""Launch cases for the warp-level matrix kernels of the corpus (``corpora/cases/tensor_core/``).

Models ZLUDA's ``ptx/src/test/spirv_run`` mma and ldmatrix tests (``corpora/zluda/*mma*``,
``*ldmatrix*``) with numpy, reading each PTX file as its source: every thread builds its fragment
registers from its ``%tid.x``, the warp runs ``mma.sync`` / ``ldmatrix``, every thread stores its
result registers. The fragment layouts are written here from the PTX ISA figures (9.7.14.5.8 "Matrix
Fragments for mma.m16n8k16 with floating point type", 9.7.14.5.10 "... mma.m16n8k32", 9.7.14.5.15
"ldmatrix") as numpy index tables; nothing imports ptx2gcn. The data keep every product and partial
sum an integer below 2^24, so the tensor-core accumulation order cannot matter: bit exact.
Invariant: like every generator of ``make_cases.py`` (which runs these), byte-identical output per run.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt
from casegen import Buffer, CaseSpec, Scalar

from generators.common import CORPUS

ZL = "zluda/ptx__src__test__spirv_run__"
LANES = np.arange(32)
G, T = LANES // 4, LANES % 4
"""groupID and threadID_in_group of each lane."""


def _case(kernel: str, threads: int, out_type: str, expect: npt.NDArray[np.generic], note: str) -> CaseSpec:
    return CaseSpec(ZL + kernel + ".ptx", kernel, (1, 1, 1), (threads, 1, 1),
                    [("output", Buffer(out_type, count=len(expect)))], {"output": expect}, note=note)


def _to_bf16(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """cvt.rn.bf16: round to nearest even on the f32 bits (finite inputs)."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + (bits >> 16 & 1)) >> 16 << 16
    return rounded.astype(np.uint32).view(np.float32)


def _pair(hi: npt.NDArray[np.float64], lo: npt.NDArray[np.float64]) -> list[npt.NDArray[np.float64]]:
    """The two elements (low half first) of ``cvt.rn.{f16,bf16}x2.f32 d, hi, lo``: PTX puts the
    conversion of the first source in the upper half."""
    return [lo, hi]


def _mma_16816(a: list[npt.NDArray[np.float64]], b: list[npt.NDArray[np.float64]],
               c: list[npt.NDArray[np.float64]]) -> list[npt.NDArray[np.float64]]:
    """m16n8k16 on one warp: a[i], b[i], c[i] are per-lane element arrays (32,), PTX Figures 79-81."""
    am, bm, cm = np.zeros((16, 16)), np.zeros((16, 8)), np.zeros((16, 8))
    for i in range(8):
        am[G + 8 * (i // 2 % 2), 2 * T + i % 2 + 8 * (i // 4)] = a[i]
    for i in range(4):
        bm[2 * T + i % 2 + 8 * (i // 2), G] = b[i]
    for i in range(4):
        cm[G + 8 * (i // 2), 2 * T + i % 2] = c[i]
    d = am @ bm + cm
    return [d[G + 8 * (i // 2), 2 * T + i % 2] for i in range(4)]


def _inputs(tid: npt.NDArray[np.int64], step: int, count: int) -> list[npt.NDArray[np.float64]]:
    return [(tid * step + j).astype(np.float64) for j in range(count)]


def _f16_mma(threads: int) -> CaseSpec:
    rows = []
    for w in range(threads // 32):
        i = _inputs(w * 32 + LANES, 8, 8)
        a = [x for k in range(0, 8, 2) for x in _pair(i[k], i[k + 1])]
        b = [x for k in range(0, 4, 2) for x in _pair(i[k], i[k + 1])]
        rows.append(np.stack(_mma_16816(a, b, i[:4]), axis=1))
    return _case("mma_m16n8k16_f32_f16_f16_f32", threads, "f32", np.concatenate(rows).astype(np.float32).reshape(-1),
                 "in_j = 8*tid + j: integers below 512, exact in f16; sums below 2^24: bit exact")


def _bf16_mma(threads: int, twice: bool) -> CaseSpec:
    rows = []
    for w in range(threads // 32):
        i = _inputs(w * 32 + LANES, 8, 8)
        h = [_to_bf16(x.astype(np.float32)).astype(np.float64) for x in i]
        a = [x for k in range(0, 8, 2) for x in _pair(h[k], h[k + 1])]
        b1 = [x for k in range(0, 4, 2) for x in _pair(h[k], h[k + 1])]
        out = _mma_16816(a, b1, i[:4])
        if twice:
            b2 = [x for k in range(4, 8, 2) for x in _pair(h[k], h[k + 1])]
            out += _mma_16816(a, b2, i[4:])
        rows.append(np.stack(out, axis=1))
    name = "mma_m16n8k16_f32_bf16_bf16_f32" + ("_2x" if twice else "")
    return _case(name, threads, "f32", np.concatenate(rows).astype(np.float32).reshape(-1),
                 "in_j = 8*tid + j rounded to bf16 (to even above 256); sums below 2^24: bit exact")


def _s8(word: npt.NDArray[np.int64], byte: int) -> npt.NDArray[np.int64]:
    value = word >> (8 * byte) & 0xFF
    return value - (value >= 128) * 256


def _mma_16832(a: list[npt.NDArray[np.int64]], b: list[npt.NDArray[np.int64]], c: list[npt.NDArray[np.int64]]
               ) -> list[npt.NDArray[np.int64]]:
    """m16n8k32 .s8 on one warp from packed registers (PTX Figures 88-90), d wrapped to 32 bits."""
    am = np.zeros((16, 32), dtype=np.int64)
    bm = np.zeros((32, 8), dtype=np.int64)
    cm = np.zeros((16, 8), dtype=np.int64)
    for i in range(16):
        am[G + 8 * (i // 4 % 2), 4 * T + i % 4 + 16 * (i // 8)] = _s8(a[i // 4], i % 4)
    for i in range(8):
        bm[4 * T + i % 4 + 16 * (i // 4), G] = _s8(b[i // 4], i % 4)
    for i in range(4):
        cm[G + 8 * (i // 2), 2 * T + i % 2] = c[i]
    d = (am @ bm + cm) & 0xFFFFFFFF
    return [d[G + 8 * (i // 2), 2 * T + i % 2] for i in range(4)]


def _pack_u8(values: list[npt.NDArray[np.int64]]) -> npt.NDArray[np.int64]:
    """The file's ``pack_u8``: ``x0 | x1 << 8 | x2 << 16 | x3 << 24`` of u16 values, unmasked."""
    return (values[0] | values[1] << 8 | values[2] << 16 | values[3] << 24) & 0xFFFFFFFF


def _s8_mma(threads: int, interleave: bool) -> CaseSpec:
    rows = []
    for w in range(threads // 32):
        i = [((w * 32 + LANES) * 16 + j) & 0xFFFF for j in range(16)]
        a = [_pack_u8(i[4 * r:4 * r + 4]) for r in range(4)]
        b = [_pack_u8(i[0:4]), _pack_u8(i[4:8] if interleave else i[0:4])]
        out = _mma_16832(a, b, i[:4])
        if interleave:
            out += _mma_16832(a[::-1], b[::-1], i[:4])
            out += _mma_16832(a, b[::-1], i[:4])
            out += _mma_16832(a[::-1], [b[0], b[0]], i[:4])
        rows.append(np.stack(out, axis=1))
    name = "mma_m16n8k32_s32_s8_s8_s32" + ("_interleave" if interleave else "")
    return _case(name, threads, "u32", np.concatenate(rows).astype(np.uint32).reshape(-1),
                 "s8 bytes of the unmasked pack of 16*tid + j; s32 result wraps (exact integers)")


VALUES_G_X2 = [
    340, 122, 527, 693, 958, 394, 668, 432, 646, 354, 761, 449, 252, 778, 218, 800,
    656, 493, 659, 787, 672, 203, 343, 845, 318, 286, 206, 253, 194, 489, 29, 323,
    7, 619, 998, 930, 773, 749, 172, 465, 937, 96, 88, 621, 909, 298, 283, 286,
    779, 290, 429, 930, 25, 687, 423, 200, 918, 10, 515, 248, 158, 911, 270, 459,
]
"""``values_g`` of ldmatrix.ptx (64 .u32)."""


def _ldmatrix_x2() -> CaseSpec:
    """32 threads copy values_g to shared; lane l's row address is values_s + 16*l; .x2 uses lanes
    0-15: matrix m row r = halves 8*(8m + r) .. +7; lane l gets row l/4, columns 2(l%4), +1."""
    halves = np.array(VALUES_G_X2, dtype=np.uint32).view(np.uint16).astype(np.int64)
    out = np.zeros((32, 2), dtype=np.int64)
    for m in range(2):
        matrix = halves[64 * m:64 * m + 64].reshape(8, 8)
        out[:, m] = matrix[G, 2 * T] | matrix[G, 2 * T + 1] << 16
    return _case("ldmatrix", 32, "u32", out.astype(np.uint32).reshape(-1),
                 "one warp; rows of 16 bytes at values_s + 16*lane")


def _values_g_trans() -> npt.NDArray[np.int64]:
    text = (CORPUS / (ZL + "ldmatrix_trans.ptx")).read_text(encoding="utf-8")
    body = text.split(".global .u16 values_g[256] = {", 1)[1].split("}", 1)[0]
    numbers = [int(tok) for line in body.splitlines() for tok in line.split("//")[0].replace(",", " ").split()]
    assert len(numbers) == 256
    return np.array(numbers, dtype=np.int64)


def _ldmatrix_trans(threads: int) -> CaseSpec:
    """Threads 0-31 copy 16 bytes each and run ``ldmatrix.x4.trans``; lane l gets column l/4 of rows
    2(l%4) and 2(l%4)+1 of matrix m and stores the two halves at bytes 8m and 8m+4 of its 32 bytes.
    Threads 32 and up branch to the end first: their bytes stay zero."""
    halves = _values_g_trans()
    out = np.zeros((threads, 16), dtype=np.int64)
    for m in range(4):
        matrix = halves[64 * m:64 * m + 64].reshape(8, 8)
        out[:32, 4 * m] = matrix[2 * T, G]
        out[:32, 4 * m + 2] = matrix[2 * T + 1, G]
    return _case("ldmatrix_trans", threads, "u16", out.astype(np.uint16).reshape(-1),
                 "warp 0 loads, warp 1 (the other half of the wave) skips to the end")


def zluda_matrix() -> Iterator[tuple[str, CaseSpec]]:
    yield "tensor_core/zluda_mma_m16n8k16_f32_f16_f16_f32", _f16_mma(64)
    yield "tensor_core/zluda_mma_m16n8k16_f32_bf16_bf16_f32", _bf16_mma(64, twice=False)
    yield "tensor_core/zluda_mma_m16n8k16_f32_bf16_bf16_f32_2x", _bf16_mma(64, twice=True)
    yield "tensor_core/zluda_mma_m16n8k32_s32_s8_s8_s32", _s8_mma(64, interleave=False)
    yield "tensor_core/zluda_mma_m16n8k32_s32_s8_s8_s32_interleave", _s8_mma(64, interleave=True)
    yield "tensor_core/zluda_ldmatrix", _ldmatrix_x2()
    yield "tensor_core/zluda_ldmatrix_trans", _ldmatrix_trans(64)


NV = "nvcc/sm_{arch}/tensor_core.ptx"
"""corpora/src/cuda/tensor_core.cu built by nvcc for sm_75/80/90; the models below follow that source."""


def _nv(arch: int, kernel: str, threads: int, args: list, expect: dict, note: str) -> CaseSpec:
    return CaseSpec(NV.format(arch=arch), kernel, (1, 1, 1), (threads, 1, 1), args, expect, note=note)


def _f16(x: npt.NDArray[np.int64]) -> npt.NDArray[np.float16]:
    return x.astype(np.float16).reshape(-1)


def _bf16_bits(x: npt.NDArray[np.int64]) -> npt.NDArray[np.uint16]:
    """Small integers as bf16 bit patterns (exact: the top 16 bits of their f32)."""
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _wmma_f16_f32(rng: np.random.Generator, arch: int) -> CaseSpec:
    """wmma 16x16x16 f16 -> f32 over K = lda in steps of 16, ReLU, stored row-major with ldc."""
    k, ldc = 48, 24
    a, b = rng.integers(-4, 5, (16, k)), rng.integers(-4, 5, (k, 16))
    c = np.zeros((16, ldc), dtype=np.float32)
    c[:, :16] = np.maximum(a @ b, 0)
    return _nv(arch, "wmma_f16_f32", 32, [
        ("a", Buffer("f16", _f16(a))), ("b", Buffer("f16", _f16(b.T))), ("c", Buffer("f32", count=16 * ldc)),
        ("lda", Scalar("s32", k)), ("ldb", Scalar("s32", k)), ("ldc", Scalar("s32", ldc)),
    ], {"c": c.reshape(-1)}, "A row-major 16 x 48, B column-major 48 x 16 (ld 48), C row-major ld 24 "
                             "(padding stays 0); small integers: exact")


def _wmma_s8_s32(rng: np.random.Generator, arch: int) -> CaseSpec:
    a, b = rng.integers(-128, 128, (16, 16)), rng.integers(-128, 128, (16, 16))
    return _nv(arch, "wmma_s8_s32", 32, [
        ("a", Buffer("s8", a.astype(np.int8).reshape(-1))), ("b", Buffer("s8", b.T.astype(np.int8).reshape(-1))),
        ("c", Buffer("s32", count=256)),
    ], {"c": (a @ b).astype(np.int32).reshape(-1)}, "full s8 range; the sums stay far from saturation")


def _wmma_bf16_tf32_f64(rng: np.random.Generator, arch: int) -> CaseSpec:
    """Three wmma blocks: bf16 (B row-major, C = 1.0), tf32 16x16x8 (A rounded by cvt.rna.tf32),
    f64 8x8x4; small integers, exact in every format and order."""
    a, b = rng.integers(-8, 9, (16, 16)), rng.integers(-8, 9, (16, 16))
    ta, tb = rng.integers(-8, 9, (16, 8)), rng.integers(-8, 9, (8, 16))
    da, db = rng.integers(-8, 9, (8, 4)), rng.integers(-8, 9, (4, 8))
    return _nv(arch, "wmma_bf16_tf32_f64", 32, [
        ("a", Buffer("u16", _bf16_bits(a).reshape(-1))), ("b", Buffer("u16", _bf16_bits(b).reshape(-1))),
        ("c", Buffer("f32", count=256)), ("ta", Buffer("f32", ta.astype(np.float32).reshape(-1))),
        ("tb", Buffer("f32", tb.T.astype(np.float32).reshape(-1))), ("tc", Buffer("f32", count=256)),
        ("da", Buffer("f64", da.astype(np.float64).reshape(-1))),
        ("db", Buffer("f64", db.astype(np.float64).reshape(-1))),
        ("dc", Buffer("f64", count=64)),
    ], {"c": (a @ b + 1).astype(np.float32).reshape(-1), "tc": (ta @ tb).astype(np.float32).reshape(-1),
        "dc": (da @ db).astype(np.float64).reshape(-1)}, "bf16 as raw u16; tb column-major (ld 8)")


def _mma_ldmatrix_f16(rng: np.random.Generator, arch: int) -> CaseSpec:
    """ldmatrix.x4 of A (16x16) and .x2.trans of B (16x8) from shared memory, one m16n8k16 (sm_75: two
    m16n8k8), D stored row-major; then ldmatrix.x1 of A's top-left 8x8 and movmatrix: lane l stores
    the transpose's row l/4, columns 2(l%4), 2(l%4)+1 = A[2(l%4)][l/4], A[2(l%4)+1][l/4] as one word."""
    a, b = rng.integers(-8, 9, (16, 16)), rng.integers(-8, 9, (16, 8))
    bits = a.astype(np.float16).view(np.uint16).astype(np.int64)
    moved = bits[2 * T, G] | bits[2 * T + 1, G] << 16
    out = np.concatenate([(a @ b).astype(np.float32).view(np.uint32).reshape(-1), moved.astype(np.uint32)])
    return _nv(arch, "mma_ldmatrix_f16", 32, [
        ("A", Buffer("f16", _f16(a))), ("B", Buffer("f16", _f16(b))), ("C", Buffer("u32", count=160)),
    ], {"C": out}, "C as raw u32 (its last 32 words are f16 pairs); small integers: exact")


def _pack_lanes(matrix: npt.NDArray[np.int64], where: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]],
                bits: int) -> npt.NDArray[np.int64]:
    """Per lane, one word from elements ``where[i]`` = (rows, cols) arrays over the 32 lanes."""
    word = np.zeros(32, dtype=np.int64)
    for i, (rows, cols) in enumerate(where):
        word |= (matrix[rows, cols] & ((1 << bits) - 1)) << (bits * i)
    return word


def _mma_bf16_s8(rng: np.random.Generator, arch: int) -> CaseSpec:
    """The same registers through mma m16n8k16 .bf16 (Figure 79/81 layouts) and m16n8k32 .s8
    .satfinite (Figures 88/89): A, B built as bf16 small integers, their bytes read as s8."""
    a, b = rng.integers(-8, 9, (16, 16)), rng.integers(-8, 9, (16, 8))
    ab, bb = _bf16_bits(a).astype(np.int64), _bf16_bits(b).astype(np.int64)
    a_regs = [_pack_lanes(ab, [(G + 8 * (r % 2), 2 * T + 8 * (r // 2)), (G + 8 * (r % 2), 2 * T + 1 + 8 * (r // 2))],
                          16) for r in range(4)]
    b_regs = [_pack_lanes(bb, [(2 * T + 8 * r, G), (2 * T + 1 + 8 * r, G)], 16) for r in range(2)]
    d = a @ b
    d_lanes = np.stack([d[G + 8 * (i // 2), 2 * T + i % 2] for i in range(4)], axis=1)
    e = np.clip(np.stack(_mma_16832(a_regs, b_regs, [np.zeros(32, dtype=np.int64)] * 4), axis=1)
                .astype(np.uint32).view(np.int32), -(2**31), 2**31 - 1)
    return _nv(arch, "mma_bf16_s8", 32, [
        ("a", Buffer("u32", np.stack(a_regs, axis=1).astype(np.uint32).reshape(-1))),
        ("b", Buffer("u32", np.stack(b_regs, axis=1).astype(np.uint32).reshape(-1))),
        ("c", Buffer("f32", count=128)), ("ci", Buffer("s32", count=128)),
    ], {"c": d_lanes.astype(np.float32).reshape(-1), "ci": e.astype(np.int32).reshape(-1)},
        "registers a[4*lane + j], b[2*lane + j]; the s8 sums stay far from saturation")


def _stmatrix_sm90(rng: np.random.Generator) -> CaseSpec:
    """stmatrix.x4: lane l's row address is s + 16*l (matrix l/8, row l%8); lane l's register m holds
    row l/4, columns 2(l%4), +1 of matrix m; then out = the 128 words of s."""
    regs = rng.integers(0, 2**32, (32, 4))
    halves = np.zeros(256, dtype=np.int64)
    for m in range(4):
        for i in range(2):
            halves[(8 * m + G) * 8 + 2 * T + i] = regs[:, m] >> (16 * i) & 0xFFFF
    out = (halves[0::2] | halves[1::2] << 16).astype(np.uint32)
    return _nv(90, "stmatrix_sm90", 32, [("in", Buffer("u32", regs.astype(np.uint32).reshape(-1))),
                                         ("out", Buffer("u32", count=128))], {"out": out}, "random register bits")


def nvcc_tensor_core() -> Iterator[tuple[str, CaseSpec]]:
    """Every kernel of tensor_core.cu but ``wmma_f16_f16_32x8``, which loads and stores its 32 x 8
    column-major accumulator with ldm = 8: below the 32 rows PTX requires as the minimum stride
    (wmma.load: "Specifying a value lower than the default value results in undefined behavior")."""
    rng = np.random.default_rng(300)
    for arch, suffix in ((80, ""), (75, "_sm75"), (90, "_sm90")):
        yield f"tensor_core/wmma_f16_f32{suffix}", _wmma_f16_f32(rng, arch)
        yield f"tensor_core/wmma_s8_s32{suffix}", _wmma_s8_s32(rng, arch)
        yield f"tensor_core/mma_ldmatrix_f16{suffix}", _mma_ldmatrix_f16(rng, arch)
        if arch >= 80:
            yield f"tensor_core/wmma_bf16_tf32_f64{suffix}", _wmma_bf16_tf32_f64(rng, arch)
            yield f"tensor_core/mma_bf16_s8{suffix}", _mma_bf16_s8(rng, arch)
    yield "tensor_core/stmatrix_sm90", _stmatrix_sm90(rng)


GENERATORS = [zluda_matrix, nvcc_tensor_core]
