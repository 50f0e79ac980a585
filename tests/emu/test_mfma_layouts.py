"""Every dense gfx942 MFMA executed once (assembled by llvm-mc-22) against an independent numpy model.

The model's register layouts are the per-instruction formulas AMD's Matrix Instruction Calculator
prints for CDNA3 (``--detail-instruction``: "A[i][k].block Lane", "... GPR", "C or D[i][j].block
GPR/Lane"), transcribed here one instruction family at a time; the emulator derives its layouts
from one general rule (``mfma_shapes``).  Data are small integers (i8: the full range, C random
32-bit), so every exact result is representable and no CDNA3 rounding can show: these tests pin
layouts, operand placement (AGPR/VGPR, inline-constant C) and the cbsz/abid/blgp/neg modifiers.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.decoder import decode
from ptx2gcn.runtime.emulator.errors import UnknownInstruction, WaveFault
from ptx2gcn.runtime.emulator.mfma_shapes import PASSES
from ptx2gcn.runtime.emulator.semantics import bind
from ptx2gcn.runtime.emulator.wave import Wave
from tests.emu.conftest import assemble

Run = Callable[[str, Wave], Wave]
Fn = Callable[..., object]

# (A lane(b, i, k), A element within the lane(k), D register(b, i, j), D lane(b, i, j)), from the
# calculator.  Element e of a lane is bits [w*e + w - 1 : w*e] of its register tuple (w = width).
D32: tuple[Fn, Fn] = (lambda b, i, j: 16 * b + 4 * (i // 8) + i % 4, lambda b, i, j: (32 * (i // 4)) % 64 + j)
D16: tuple[Fn, Fn] = (lambda b, i, j: 4 * b + i % 4, lambda b, i, j: 16 * (i // 4) + j)
D4: tuple[Fn, Fn] = (lambda b, i, j: i, lambda b, i, j: 4 * b + j)
LAYOUT: dict[str, tuple[Fn, Fn, Fn, Fn]] = {
    "v_mfma_f32_32x32x1_2b_f32": (lambda b, i, k: 32 * b + i, lambda k: 0, *D32),
    "v_mfma_f32_16x16x1_4b_f32": (lambda b, i, k: 16 * b + i, lambda k: 0, *D16),
    "v_mfma_f32_4x4x1_16b_f32": (lambda b, i, k: 4 * b + i, lambda k: 0, *D4),
    "v_mfma_f32_32x32x2_f32": (lambda b, i, k: 32 * k + i, lambda k: 0, *D32),
    "v_mfma_f32_16x16x4_f32": (lambda b, i, k: 16 * k + i, lambda k: 0, *D16),
    "v_mfma_f32_16x16x8_xf32": (lambda b, i, k: 16 * (k // 2) + i, lambda k: k % 2, *D16),
    "v_mfma_f32_32x32x4_xf32": (lambda b, i, k: 32 * (k // 2) + i, lambda k: k % 2, *D32),
    "v_mfma_f64_16x16x4_f64": (lambda b, i, k: 16 * k + i, lambda k: 0,
                               lambda b, i, j: i // 4, lambda b, i, j: 16 * (i % 4) + j),
    "v_mfma_f64_4x4x4_4b_f64": (lambda b, i, k: 4 * b + 16 * k + i, lambda k: 0,
                                lambda b, i, j: 0, lambda b, i, j: 16 * (i % 4) + 4 * b + j),
}
for _t in ("f16", "bf16", "i8"):
    LAYOUT[f"v_mfma_{'i32' if _t == 'i8' else 'f32'}_32x32x4_2b_{_t}"] = (lambda b, i, k: 32 * b + i, lambda k: k, *D32)
    LAYOUT[f"v_mfma_{'i32' if _t == 'i8' else 'f32'}_16x16x4_4b_{_t}"] = (lambda b, i, k: 16 * b + i, lambda k: k, *D16)
    LAYOUT[f"v_mfma_{'i32' if _t == 'i8' else 'f32'}_4x4x4_16b_{_t}"] = (lambda b, i, k: 4 * b + i, lambda k: k, *D4)
for _t in ("f16", "bf16"):
    LAYOUT[f"v_mfma_f32_32x32x8_{_t}"] = (lambda b, i, k: 32 * (k // 4) + i, lambda k: k % 4, *D32)
    LAYOUT[f"v_mfma_f32_16x16x16_{_t}"] = (lambda b, i, k: 16 * (k // 4) + i, lambda k: k % 4, *D16)
_EIGHT = ["v_mfma_i32_32x32x16_i8", *(f"v_mfma_f32_32x32x16_{a}_{b}" for a in ("fp8", "bf8") for b in ("fp8", "bf8"))]
_SIXTEEN = ["v_mfma_i32_16x16x32_i8", *(f"v_mfma_f32_16x16x32_{a}_{b}" for a in ("fp8", "bf8") for b in ("fp8", "bf8"))]
for _n in _EIGHT:
    LAYOUT[_n] = (lambda b, i, k: 32 * (k // 8) + i, lambda k: k % 8, *D32)
for _n in _SIXTEEN:
    LAYOUT[_n] = (lambda b, i, k: 16 * (k // 8) + i, lambda k: k % 8, *D16)


def dims(name: str) -> tuple[int, int, int, int, str, str, str]:
    """(M, K, blocks, A/B dwords, A kind, B kind, output kind) from the name."""
    parts = name.split("_")
    out = parts[2]
    m, _, k = (int(x) for x in parts[3].split("x"))
    blocks = int(parts[4][:-1]) if parts[4].endswith("b") else 1
    kinds = parts[5:] if blocks > 1 else parts[4:]
    kind_a, kind_b = kinds[0], kinds[-1]
    width = {"f32": 32, "xf32": 32, "f16": 16, "bf16": 16, "i8": 8, "fp8": 8, "bf8": 8, "f64": 64}[kind_a]
    per_lane = k * blocks * m // 64
    return m, k, blocks, max(1, per_lane * width // 32), kind_a, kind_b, out


def fnuz_code(value: float, exponent_bits: int, mantissa_bits: int) -> int:
    """The FNUZ fp8 code of an exactly representable value (sign-magnitude, bias 2^(E-1))."""
    bias = 1 << (exponent_bits - 1)
    for code in range(1, 128):
        e, m = code >> mantissa_bits, code & ((1 << mantissa_bits) - 1)
        magnitude = (1 + m / (1 << mantissa_bits)) * 2.0 ** (e - bias) if e else m * 2.0 ** (1 - bias - mantissa_bits)
        if magnitude == abs(value):
            return code | (0x80 if value < 0 else 0)
    assert value == 0
    return 0


def element_bits(kind: str, values: np.ndarray) -> np.ndarray:
    if kind == "f16":
        return values.astype(np.float16).view(np.uint16).astype(np.uint64)
    if kind == "bf16":
        return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint64)
    if kind in ("f32", "xf32"):
        return values.astype(np.float32).view(np.uint32).astype(np.uint64)
    if kind == "f64":
        return values.astype(np.float64).view(np.uint64)
    if kind == "i8":
        return values.astype(np.int8).view(np.uint8).astype(np.uint64)
    layout = (4, 3) if kind == "fp8" else (5, 2)
    return np.array([fnuz_code(v, *layout) for v in values.ravel().tolist()], dtype=np.uint64).reshape(values.shape)


def place_input(wave: Wave, row: int, dwords: int, kind: str, matrix: np.ndarray, lane_of: Fn, elem_of: Fn) -> None:
    """Write matrix[b, r, k] (r = i for A, j for B) into the per-lane register tuple at ``row``."""
    width = {"f32": 32, "xf32": 32, "f64": 64, "f16": 16, "bf16": 16}.get(kind, 8)
    lanes = [0] * 64
    bits = element_bits(kind, matrix)
    blocks, rows, depth = matrix.shape
    for b in range(blocks):
        for r in range(rows):
            for k in range(depth):
                lanes[lane_of(b, r, k)] |= int(bits[b, r, k]) << (width * elem_of(k))
    for lane, value in enumerate(lanes):
        for d in range(dwords):
            wave.v[row + d, lane] = value >> (32 * d) & 0xFFFFFFFF


def read_output(wave: Wave, row: int, out: str, shape3: tuple[int, int, int], reg_of: Fn, lane_of: Fn) -> np.ndarray:
    result = np.zeros(shape3, dtype=np.float64 if out != "i32" else np.int64)
    for b in range(shape3[0]):
        for i in range(shape3[1]):
            for j in range(shape3[2]):
                lane, reg = lane_of(b, i, j), reg_of(b, i, j)
                if out == "f64":
                    bits = int(wave.v[row + 2 * reg, lane]) | int(wave.v[row + 2 * reg + 1, lane]) << 32
                    result[b, i, j] = np.uint64(bits).view(np.float64)
                elif out == "i32":
                    result[b, i, j] = np.uint32(wave.v[row + reg, lane]).view(np.int32)
                else:
                    result[b, i, j] = np.uint32(wave.v[row + reg, lane]).view(np.float32)
    return result


def write_output(wave: Wave, row: int, out: str, values: np.ndarray, reg_of: Fn, lane_of: Fn) -> None:
    for (b, i, j), value in np.ndenumerate(values):
        lane, reg = lane_of(b, i, j), reg_of(b, i, j)
        if out == "f64":
            bits = int(np.float64(value).view(np.uint64))
            wave.v[row + 2 * reg, lane], wave.v[row + 2 * reg + 1, lane] = bits & 0xFFFFFFFF, bits >> 32
        elif out == "i32":
            wave.v[row + reg, lane] = int(value) & 0xFFFFFFFF
        else:
            wave.v[row + reg, lane] = int(np.float32(value).view(np.uint32))


def operand(prefix: str, row: int, count: int) -> str:
    first = row % 256
    return f"{prefix}{first}" if count == 1 else f"{prefix}[{first}:{first + count - 1}]"


def random_inputs(rng: np.random.Generator, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m, k, blocks, _, kind_a, _, out = dims(name)
    low, high = (-128, 128) if kind_a == "i8" else (-4, 5)
    a = rng.integers(low, high, (blocks, m, k))
    b = rng.integers(low, high, (blocks, k, m))  # B[b, k, j]
    c = rng.integers(-(1 << 31), 1 << 31, (blocks, m, m)) if out == "i32" else rng.integers(-3, 4, (blocks, m, m))
    return a, b, c


def run_mfma(run: Run, wave_with: Callable[..., Wave], name: str, a: np.ndarray, b: np.ndarray, c: np.ndarray | None,
             agpr: bool, modifiers: str = "", constant: str = "") -> np.ndarray:
    m, _, blocks, in_dwords, kind_a, kind_b, out = dims(name)
    a_lane, a_elem, d_reg, d_lane = LAYOUT[name]
    out_dwords = m * m * blocks // 64 * (2 if out == "f64" else 1)
    wave = wave_with()
    row_a, row_b = (256 + 200, 210) if agpr else (200, 256 + 210)
    row_c, row_d = (256, 256) if agpr else (32, 64)
    place_input(wave, row_a, in_dwords, kind_a, a, a_lane, a_elem)
    place_input(wave, row_b, in_dwords, kind_b, np.swapaxes(b, 1, 2), a_lane, a_elem)
    if c is not None:
        write_output(wave, row_c, out, c, d_reg, d_lane)
    cd = "a" if agpr else "v"
    c_text = constant or operand(cd, row_c, out_dwords)
    text = (f"{name} {operand(cd, row_d, out_dwords)}, {operand('a' if agpr else 'v', row_a, in_dwords)}, "
            f"{operand('v' if agpr else 'a', row_b, in_dwords)}, {c_text} {modifiers}")
    run(text, wave)
    return read_output(wave, row_d, out, (blocks, m, m), d_reg, d_lane)


def exact(a: np.ndarray, b: np.ndarray, c: np.ndarray, out: str) -> np.ndarray:
    if out == "i32":
        total = np.einsum("bik,bkj->bij", a.astype(object), b.astype(object)) + c.astype(object)
        return np.vectorize(lambda x: (x + (1 << 31)) % (1 << 32) - (1 << 31))(total).astype(np.int64)
    return np.einsum("bik,bkj->bij", a.astype(np.float64), b.astype(np.float64)) + c


def test_the_layout_table_covers_every_opcode() -> None:
    assert set(LAYOUT) == set(PASSES)


@pytest.mark.parametrize("agpr", [True, False], ids=["agpr", "vgpr"])
@pytest.mark.parametrize("name", sorted(PASSES))
def test_block_layout_and_exact_result(name: str, agpr: bool, one_instruction: Run,
                                       make_wave: Callable[..., Wave]) -> None:
    rng = np.random.default_rng(hash(name) % 1000)
    a, b, c = random_inputs(rng, name)
    got = run_mfma(one_instruction, make_wave, name, a, b, c, agpr)
    np.testing.assert_array_equal(got, exact(a, b, c, dims(name)[6]))


@pytest.mark.parametrize("name", ["v_mfma_f32_16x16x4_4b_f16", "v_mfma_i32_4x4x4_16b_i8", "v_mfma_f64_16x16x4_f64"])
def test_inline_constant_c(name: str, one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    a, b, _ = random_inputs(np.random.default_rng(3), name)
    constant = "-2" if dims(name)[6] == "i32" else "-2.0"  # integer constants are raw bits for floats
    got = run_mfma(one_instruction, make_wave, name, a, b, None, True, constant=constant)
    np.testing.assert_array_equal(got, exact(a, b, np.full(got.shape, -2), dims(name)[6]))


# CBSZ/ABID (CDNA3 ISA): every block of an aligned group of 2^CBSZ blocks uses A of block ABID of
# that group.  BLGP: the B operand of lane l is read from lane src(l).
BLGP_SOURCE: dict[int, Fn] = {
    1: lambda n: n % 32, 2: lambda n: 32 + n % 32, 3: lambda n: (n + 16) % 64,
    4: lambda n: n % 16, 5: lambda n: 16 + n % 16, 6: lambda n: 32 + n % 16, 7: lambda n: 48 + n % 16,
}


@pytest.mark.parametrize(("name", "cbsz", "abid"), [
    ("v_mfma_f32_4x4x1_16b_f32", 2, 1), ("v_mfma_f32_4x4x1_16b_f32", 4, 13), ("v_mfma_f32_16x16x4_4b_f16", 1, 1),
    ("v_mfma_i32_32x32x4_2b_i8", 1, 0), ("v_mfma_f32_4x4x4_16b_bf16", 3, 5)])
def test_cbsz_abid_broadcast_a_blocks(name: str, cbsz: int, abid: int, one_instruction: Run,
                                      make_wave: Callable[..., Wave]) -> None:
    a, b, c = random_inputs(np.random.default_rng(5), name)
    got = run_mfma(one_instruction, make_wave, name, a, b, c, False, f"cbsz:{cbsz} abid:{abid}")
    group = 1 << cbsz
    broadcast = np.stack([a[blk // group * group + abid] for blk in range(a.shape[0])])
    np.testing.assert_array_equal(got, exact(broadcast, b, c, dims(name)[6]))


@pytest.mark.parametrize("blgp", range(1, 8))
@pytest.mark.parametrize("name", ["v_mfma_f32_4x4x1_16b_f32", "v_mfma_f32_32x32x2_f32", "v_mfma_i32_16x16x4_4b_i8"])
def test_blgp_swizzles_b_lanes(name: str, blgp: int, one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    m, k, blocks, _, _, _, out = dims(name)
    a, b, c = random_inputs(np.random.default_rng(blgp), name)
    got = run_mfma(one_instruction, make_wave, name, a, b, c, True, f"blgp:{blgp}")
    lane_of, elem_of = LAYOUT[name][0], LAYOUT[name][1]
    per_lane = {}
    for blk in range(blocks):
        for j in range(m):
            for kk in range(k):
                per_lane[lane_of(blk, j, kk), elem_of(kk)] = b[blk, kk, j]
    swizzled = np.zeros_like(b)
    for blk in range(blocks):
        for j in range(m):
            for kk in range(k):
                swizzled[blk, kk, j] = per_lane[BLGP_SOURCE[blgp](lane_of(blk, j, kk)), elem_of(kk)]
    np.testing.assert_array_equal(got, exact(a, swizzled, c, out))


@pytest.mark.parametrize("neg", [1, 2, 4, 7])
@pytest.mark.parametrize("name", ["v_mfma_f64_16x16x4_f64", "v_mfma_f64_4x4x4_4b_f64"])
def test_f64_neg_modifier(name: str, neg: int, one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    a, b, c = random_inputs(np.random.default_rng(neg), name)
    flags = ",".join(str(neg >> bit & 1) for bit in range(3))
    got = run_mfma(one_instruction, make_wave, name, a, b, c, False, f"neg:[{flags}]")
    sa, sb, sc = (-1 if neg >> bit & 1 else 1 for bit in range(3))
    np.testing.assert_array_equal(got, exact(sa * a, sb * b, sc * c, "f64"))


def test_partial_exec_is_a_fault(one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    wave = make_wave()
    wave.set_exec((1 << 64) - 2)
    with pytest.raises(WaveFault, match="EXEC"):
        one_instruction("v_mfma_f32_4x4x1_16b_f32 a[0:3], v0, v1, a[0:3]", wave)


def test_d_partially_overlapping_c_is_a_fault(llvm_tool: Callable[[str], str], make_wave: Callable[..., Wave]) -> None:
    # llvm-mc refuses to assemble it ("source 2 operand must not partially overlap with dst"), so
    # the C field (dword 1, bits 26:18) of an accepted encoding is patched from v0 to v4.
    code = bytearray(assemble(llvm_tool("llvm-mc-22"), "v_mfma_f32_32x32x8_f16 v[0:15], v[40:41], v[42:43], v[0:15]"))
    word = int.from_bytes(code[4:8], "little")
    code[4:8] = ((word & ~(0x1FF << 18)) | (256 + 4) << 18).to_bytes(4, "little")
    with pytest.raises(WaveFault, match="partially overlaps"):
        bind(decode(bytes(code), 0), 0)(make_wave())


def test_modifier_outside_the_isa_table_is_rejected(one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    with pytest.raises(UnknownInstruction, match="blgp is not defined"):
        one_instruction("v_mfma_f32_16x16x16_f16 v[0:3], v[40:41], v[42:43], v[0:3] blgp:1", make_wave())
