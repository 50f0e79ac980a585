"""T23: wmma.load / wmma.mma / wmma.store on the emulator, memory in -> memory out: the fragment layout
is ptx2gcn's own (PTX leaves it open), so the check is D = A*B + C in memory against the reference
model's per-element verdict (small integers bit exact, random data within the mma bound, integers and
f64 exact). Two warps of one wave work on different matrices with padded strides and every layout;
a second launch lets one of them skip; the lanes diverge and reconverge before the wmma sequence."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt
import pytest

from ptx2gcn.reference.floatformat import BF16
from ptx2gcn.reference.mma import element_format, matrix_expected
from ptx2gcn.reference.rounding import round_fraction
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory
from tests.warp.conftest import compiled

SENTINEL = 0xA5


@dataclass(frozen=True)
class Combo:
    shape: str
    atype: str
    ctype: str
    dtype: str
    alayout: str = "row"
    blayout: str = "col"
    clayout: str = "row"
    dlayout: str = "row"
    pad: int = 0
    satfinite: bool = False

    @property
    def mnk(self) -> tuple[int, int, int]:
        m, rest = self.shape[1:].split("n")
        n, k = rest.split("k")
        return int(m), int(n), int(k)

    @property
    def base_spelling(self) -> str:
        base = {"tf32": "m16n8k8", "f64": "m8n8k4"}.get(self.atype, "m16n8k16")
        sat = ".satfinite" if self.satfinite else ""
        return f"mma.sync.aligned.{base}.row.col{sat}.{self.dtype}.{self.atype}.{self.atype}.{self.ctype}"


COMBOS = [
    Combo("m16n16k16", "f16", "f32", "f32"),
    Combo("m16n16k16", "f16", "f16", "f16", "col", "row", "col", "row", pad=8),
    Combo("m16n16k16", "f16", "f16", "f32", dlayout="col"),
    Combo("m32n8k16", "f16", "f16", "f16", "col", "row", "col", "col"),
    Combo("m8n32k16", "f16", "f32", "f32", pad=16),
    Combo("m16n16k16", "bf16", "f32", "f32", "row", "row"),
    Combo("m8n32k16", "bf16", "f32", "f32", "col", "col", "col", "row"),
    Combo("m32n8k16", "bf16", "f32", "f32"),
    Combo("m16n16k16", "s8", "s32", "s32", satfinite=True),
    Combo("m32n8k16", "u8", "s32", "s32", "col", "row", pad=4),
    Combo("m8n32k16", "s8", "s32", "s32"),
    Combo("m16n16k8", "tf32", "f32", "f32"),
    Combo("m16n16k8", "tf32", "f32", "f32", "col", "row", "col", "col", pad=3),
    Combo("m8n8k4", "f64", "f64", "f64", "row", "row"),
    Combo("m8n8k4", "f64", "f64", "f64", "col", "col", "col", "col", pad=1),
]

_FRAGMENT_REGS = {
    ("f16", "a"): 8, ("f16", "b"): 8, ("f16", "c"): 4, ("f32", "c"): 8, ("s32", "c"): 8, ("f64", "c"): 2,
    ("f64", "a"): 1, ("f64", "b"): 1, ("tf32", "a"): 4, ("tf32", "b"): 4,
}
"""Registers PTX declares per fragment (9.7.14.4 "Matrix Fragments for WMMA")."""
_BY_SHAPE = {  # bf16 / s8 / u8 A and B: the count depends on the shape
    ("bf16", "m16n16k16"): (4, 4), ("bf16", "m8n32k16"): (2, 8), ("bf16", "m32n8k16"): (8, 2),
    ("i8", "m16n16k16"): (2, 2), ("i8", "m8n32k16"): (1, 4), ("i8", "m32n8k16"): (4, 1),
}
_BITS = {"f16": 16, "bf16": 16, "s8": 8, "u8": 8, "tf32": 32, "f32": 32, "s32": 32, "f64": 64}
_REG = {"f32": ".f32", "f64": ".f64", "s32": ".s32"}


def _regs(combo: Combo, which: str, ptx_type: str) -> int:
    kind = "i8" if ptx_type in ("s8", "u8") else ptx_type
    if (kind, combo.shape) in _BY_SHAPE:
        return _BY_SHAPE[(kind, combo.shape)]["ab".index(which)]
    return _FRAGMENT_REGS[(ptx_type, "c" if which in "cd" else which)]


def _dims(combo: Combo, which: str) -> tuple[int, int]:
    m, n, k = combo.mnk
    return {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[which]


def _stride(combo: Combo, which: str) -> int:
    rows, cols = _dims(combo, which)
    layout = {"a": combo.alayout, "b": combo.blayout, "c": combo.clayout, "d": combo.dlayout}[which]
    return (cols if layout == "row" else rows) + combo.pad


def _bytes(combo: Combo, which: str, ptx_type: str) -> int:
    rows, cols = _dims(combo, which)
    layout = {"a": combo.alayout, "b": combo.blayout, "c": combo.clayout, "d": combo.dlayout}[which]
    return (rows if layout == "row" else cols) * _stride(combo, which) * _BITS[ptx_type] // 8


def _kernel(combo: Combo) -> str:
    types = {"a": combo.atype, "b": combo.atype, "c": combo.ctype, "d": combo.dtype}
    lines = [".version 8.0", ".target sm_90", ".address_size 64",
             ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u64 ps)",
             "{", ".reg .b32 %t<8>; .reg .pred %p<4>; .reg .b64 %q<12>;"]
    names: dict[str, str] = {}
    for which, ptx_type in types.items():
        count = _regs(combo, which, ptx_type)
        decl = _REG.get(ptx_type, ".b32") if which in "cd" else (".f64" if ptx_type == "f64" else ".b32")
        lines.append(f".reg {decl} %{which}<{count}>;")
        names[which] = "{" + ", ".join(f"%{which}{i}" for i in range(count)) + "}"
    lines += ["mov.u32 %t0, %tid.x;", "shr.u32 %t1, %t0, 5;", "and.b32 %t2, %t0, 1;", "setp.eq.u32 %p1, %t2, 1;",
              "@%p1 bra ODD;", "add.u32 %t3, %t0, 3;", "bra.uni JOIN;", "ODD:", "mul.lo.u32 %t3, %t0, 5;", "JOIN:",
              "ld.param.u64 %q0, [ps];", "mul.wide.u32 %q1, %t1, 4;", "add.u64 %q0, %q0, %q1;",
              "ld.global.u32 %t4, [%q0];", "setp.ne.u32 %p2, %t4, 0;", "@%p2 bra DONE;"]
    for i, which in enumerate("abcd"):
        lines += [f"ld.param.u64 %q{2 + i}, [p{which}];",
                  f"mul.wide.u32 %q1, %t1, {_bytes(combo, which, types[which])};",
                  f"add.u64 %q{2 + i}, %q{2 + i}, %q1;"]
    m = combo
    lines += [
        f"wmma.load.a.sync.aligned.{m.alayout}.{m.shape}.global.{m.atype} {names['a']}, [%q2], {_stride(m, 'a')};",
        f"wmma.load.b.sync.aligned.{m.blayout}.{m.shape}.global.{m.atype} {names['b']}, [%q3], {_stride(m, 'b')};",
        f"wmma.load.c.sync.aligned.{m.clayout}.{m.shape}.global.{m.ctype} {names['c']}, [%q4], {_stride(m, 'c')};",
    ]
    if m.atype == "f16":
        mma_types = f"{m.dtype}.{m.ctype}"
    else:
        mma_types = f"{m.dtype}.{m.atype}.{m.atype}.{m.ctype}"
    suffix = (".satfinite" if m.satfinite else "") + (".rn" if m.atype == "f64" else "")
    lines += [f"wmma.mma.sync.aligned.{m.alayout}.{m.blayout}.{m.shape}.{mma_types}{suffix} {names['d']}, "
              f"{names['a']}, {names['b']}, {names['c']};",
              f"wmma.store.d.sync.aligned.{m.dlayout}.{m.shape}.global.{m.dtype} [%q5], {names['d']}, "
              f"{_stride(m, 'd')};",
              "DONE:", "ret;", "}"]
    return "\n".join(lines) + "\n"


def _values(ptx_type: str, shape: tuple[int, int], small: bool, rng: np.random.Generator,
            accumulator: bool) -> npt.NDArray[np.int64]:
    """Raw element bits."""
    if ptx_type in ("s8", "u8"):
        return rng.integers(0, 256, shape)
    if ptx_type == "s32":
        return rng.choice([-(2**31) + 9, 2**31 - 9, 77, -5], shape) & 0xFFFFFFFF if not small else \
            rng.integers(-500, 500, shape) & 0xFFFFFFFF
    span = 64 if accumulator else 8
    values = rng.integers(-span, span + 1, shape).astype(np.float64) if small else rng.standard_normal(shape)
    if ptx_type == "f16":
        return values.astype(np.float16).view(np.uint16).astype(np.int64)
    if ptx_type == "bf16":
        return np.array([[round_fraction(BF16, Fraction(float(v)), "rn") for v in row] for row in values])
    if ptx_type in ("tf32", "f32"):
        return values.astype(np.float32).view(np.uint32).astype(np.int64)
    return values.view(np.uint64).astype(object)  # raw bits as Python ints (no sign)


def _store(matrix: npt.NDArray[np.int64], layout: str, stride: int, ptx_type: str) -> bytes:
    """``matrix`` in memory with ``layout`` and ``stride``; padding elements hold SENTINEL bytes."""
    rows, cols = matrix.shape
    major = rows if layout == "row" else cols
    bits = _BITS[ptx_type]
    dtype = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    flat = np.frombuffer(bytes([SENTINEL]) * (major * stride * bits // 8), dtype=dtype).copy()
    for r in range(rows):
        for c in range(cols):
            flat[r * stride + c if layout == "row" else c * stride + r] = int(matrix[r, c]) & ((1 << bits) - 1)
    return flat.tobytes()


def _load(data: bytes, rows: int, cols: int, layout: str, stride: int, ptx_type: str) -> npt.NDArray[np.int64]:
    bits = _BITS[ptx_type]
    flat = np.frombuffer(data, dtype={8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits])
    out = np.zeros((rows, cols), dtype=object)
    for r in range(rows):
        for c in range(cols):
            out[r, c] = int(flat[r * stride + c if layout == "row" else c * stride + r])
    return out


def _padding(data: bytes, rows: int, cols: int, layout: str, stride: int, ptx_type: str) -> set[int]:
    """The byte values of the elements of ``data`` outside the matrix (the stride's padding)."""
    size = _BITS[ptx_type] // 8
    inside = {r * stride + c if layout == "row" else c * stride + r for r in range(rows) for c in range(cols)}
    outside = [i for i in range(len(data) // size) if i not in inside]
    return {b for i in outside for b in data[i * size:(i + 1) * size]} or {SENTINEL}


def _run(combo: Combo, operands: list[dict[str, npt.NDArray[np.int64]]], skipped: tuple[int, ...]
         ) -> list[bytes]:
    memory = DeviceMemory()
    types = {"a": combo.atype, "b": combo.atype, "c": combo.ctype, "d": combo.dtype}
    layouts = {"a": combo.alayout, "b": combo.blayout, "c": combo.clayout, "d": combo.dlayout}
    addresses = []
    for which in "abcd":
        blob = b"".join(_store(w[which], layouts[which], _stride(combo, which), types[which]) for w in operands)
        address = memory.alloc(len(blob))
        memory.write(address, blob)
        addresses.append(address)
    skip = memory.alloc(8)
    memory.write(skip, struct.pack("<II", *(int(w in skipped) for w in range(2))))
    program = load(compiled(_kernel(combo)), "wmma.hsaco")
    launch(program, "k", grid=(1, 1, 1), block=(64, 1, 1), kernarg=struct.pack("<5Q", *addresses, skip),
           memory=memory, step_budget=5_000_000)
    size = _bytes(combo, "d", combo.dtype)
    return [memory.read(addresses[3] + w * size, size) for w in range(2)]


@pytest.mark.parametrize("combo", COMBOS, ids=[f"{c.shape}.{c.atype}.{c.ctype}.{c.dtype}.{c.alayout}.{c.blayout}."
                                               f"{c.clayout}.{c.dlayout}.pad{c.pad}" for c in COMBOS])
def test_wmma_matches_reference(combo: Combo, rng: np.random.Generator) -> None:
    types = {"a": combo.atype, "b": combo.atype, "c": combo.ctype, "d": combo.dtype}
    operands = [{which: _values(types[which], _dims(combo, which), small=w == 0, rng=rng, accumulator=which == "c")
                 for which in "abcd"} for w in range(2)]
    fmt = element_format(combo.dtype)
    for skipped in ((), (1,)):
        results = _run(combo, operands, skipped)
        for w, data in enumerate(results):
            m, n, _ = combo.mnk
            stride = _stride(combo, "d")
            if w in skipped:
                assert data == _store(operands[w]["d"], combo.dlayout, stride, combo.dtype), "skipped warp wrote D"
                continue
            got = _load(data, m, n, combo.dlayout, stride, combo.dtype)
            expected = matrix_expected(combo.base_spelling, operands[w]["a"].tolist(), operands[w]["b"].tolist(),
                                       operands[w]["c"].tolist())
            wrong = [(r, c) for r in range(m) for c in range(n) if not expected[r][c].accepts(fmt, int(got[r, c]))]
            assert not wrong, f"warp {w}: {len(wrong)} wrong, e.g. {wrong[:3]}"
            assert _padding(data, m, n, combo.dlayout, stride, combo.dtype) == {SENTINEL}, \
                "wmma.store wrote outside the matrix"


_B1_KERNEL = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
.reg .b32 %a0; .reg .b32 %b0; .reg .s32 %c<2>; .reg .s32 %d<2>; .reg .b64 %q<6>; .reg .b32 %t<2>;
mov.u32 %t0, %tid.x; shr.u32 %t1, %t0, 5; mul.wide.u32 %q5, %t1, 256;
ld.param.u64 %q0, [pa]; ld.param.u64 %q1, [pb]; ld.param.u64 %q2, [pc]; ld.param.u64 %q3, [pd];
mul.wide.u32 %q4, %t1, 128; add.u64 %q0, %q0, %q4; add.u64 %q1, %q1, %q4;
add.u64 %q2, %q2, %q5; add.u64 %q3, %q3, %q5;
wmma.load.a.sync.aligned.row.m8n8k128.global.b1 {{%a0}}, [%q0], 128;
wmma.load.b.sync.aligned.col.m8n8k128.global.b1 {{%b0}}, [%q1], 128;
wmma.load.c.sync.aligned.{clayout}.m8n8k128.global.s32 {{%c0, %c1}}, [%q2], 8;
wmma.mma.{op}.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {{%d0, %d1}}, {{%a0}}, {{%b0}}, {{%c0, %c1}};
wmma.store.d.sync.aligned.{dlayout}.m8n8k128.global.s32 [%q3], {{%d0, %d1}}, 8;
ret;
}}
"""


@pytest.mark.parametrize(("op", "clayout", "dlayout"), [("xor", "row", "row"), ("and", "col", "row"),
                                                        ("xor", "row", "col")])
def test_wmma_b1_matches_reference(op: str, clayout: str, dlayout: str, rng: np.random.Generator) -> None:
    """.b1 m8n8k128 (A .row, B .col, the only layouts PTX has): bits packed low to high, two warps with
    their own data; D = popc(A row AND/XOR B column) + C against the model's m8n8k128 mma."""
    a = rng.integers(0, 2, (2, 8, 128))
    b = rng.integers(0, 2, (2, 128, 8))
    c = rng.integers(-1000, 1000, (2, 8, 8))
    memory = DeviceMemory()
    blobs = [np.packbits(a, axis=2, bitorder="little").tobytes(),
             np.packbits(b.transpose(0, 2, 1), axis=2, bitorder="little").tobytes(),
             (c if clayout == "row" else c.transpose(0, 2, 1)).astype(np.int32).tobytes(), bytes(512)]
    addresses = []
    for blob in blobs:
        addresses.append(memory.alloc(len(blob)))
        memory.write(addresses[-1], blob)
    program = load(compiled(_B1_KERNEL.format(op=op, clayout=clayout, dlayout=dlayout)), "wmma_b1.hsaco")
    launch(program, "k", grid=(1, 1, 1), block=(64, 1, 1), kernarg=struct.pack("<4Q", *addresses), memory=memory,
           step_budget=5_000_000)
    spelling = f"mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.{op}.popc"
    for w in range(2):
        got = np.frombuffer(memory.read(addresses[3] + 256 * w, 256), dtype=np.uint32).reshape(8, 8)
        got = got if dlayout == "row" else got.T
        expected = matrix_expected(spelling, a[w].tolist(), b[w].tolist(), (c[w] & 0xFFFFFFFF).tolist())
        wrong = [(r, col) for r in range(8) for col in range(8) if not expected[r][col].accepts(None, int(got[r, col]))]
        assert not wrong, f"warp {w}: {len(wrong)} wrong, e.g. {wrong[:3]}"
