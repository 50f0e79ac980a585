"""ptx2gcn's wmma fragment layout for m16n16k16 ``.f16`` A/B and ``.f32`` C/D: the operand layout of
``v_mfma_f32_4x4x4_16b_f16``, so that ``wmma.load``, ``wmma.mma`` and ``wmma.store`` move no data
between lanes on the MFMA path (docs/tensor-cores.md, "wmma").

Invariant: every fragment of a warp lives in that warp's own 32 lanes (a wmma fragment never holds
data of the other warp of the wave), so each warp's fragments mean the same whichever path (MFMA or
exact) runs and whoever else is in the wave. A 4x4x4_16b MFMA gives lanes 4b..4b+3 block b, so a
warp's lanes are blocks 0-7 (or 8-15) and never meet the other warp's. Lane ``l`` of the warp is
(b, x) = (l >> 2, l & 3), and block b = 2m + p. Blocks of the matrices are 4 x 4: row block R (rows
4R..4R+3), column block C.

* A (16 x 16, 8 registers of two f16): lane (b, x) holds row 4 R_b + x, with R_b = 2 (m >> 1) + p
  (four row blocks over eight lane groups: each row held twice); element e = column (k)
  (e + 8 kh) mod 16, kh = b >> 2: lanes 16-31 of the warp keep the K halves swapped.
* B (16 x 16): lane (b, x) holds column 4 C_b + x, C_b = 2 (m & 1) + p, element e = row (k)
  (e + 8 kh) mod 16. Lanes l and l ^ 16 hold the same column, with the K halves swapped: registers
  4-7 of one are registers 0-3 of the other (``mirrored``).
* C/D (16 x 16 f32, 8 registers): lane (b, x) holds the two 4 x 4 blocks (R_{2m+h}, C_b), h = 0, 1:
  element 4h + i = row 4 (2 (m >> 1) + h) + i, column 4 C_b + x.

MFMA path (``mfma_registers``): for h = 0, 1 and each register pair q = 0..3 (K block q, or q ^ 2 in
the lanes with kh = 1; a block and the block whose A it reads agree on kh), one MFMA with ``cbsz:1
abid:h`` (blocks 2m and 2m + 1 both multiply the A of block 2m + h: rows R_{2m+h}) and each block's
own B (columns C_b), A and B registers 2q and 2q + 1, accumulating into D block h: the pair of lane
groups 2m, 2m + 1 covers row blocks {R_2m, R_2m+1} x column blocks {C_2m, C_2m+1}, the four pairs
the whole 16 x 16. 8 MFMAs per warp pair and no data movement; both warps run at once, each in its
own half. EXEC must be full (the caller's gate, ``lower_mma_mfma.gated``); the caller makes NaN
results canonical where they leave the mma chain (``lower_mma_mfma.canonical``).
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.half_wave import lane64
from ptx2gcn.emit.llvm_types import FLOAT, I32
from ptx2gcn.emit.lower_mma_mfma import V4FLOAT, halves, vector
from ptx2gcn.emit.matrix_layouts import Layout
from ptx2gcn.emit.mfma_widen import f16_mfma


def _a_home(row: int, col: int) -> tuple[int, int]:
    r = row // 4
    return 4 * (4 * (r >> 1) + (r & 1)) + row % 4, (col - 8 * (r >> 1)) % 16


def _a_forward(lane: int, e: int) -> tuple[int, int]:
    b = lane >> 2
    return 4 * (2 * (b >> 2) + (b & 1)) + (lane & 3), (e + 8 * (b >> 2)) % 16


def _b_home(k: int, n: int) -> tuple[int, int]:
    # of the two holders, the one with k in registers 0-3 (same register in every lane: cheaper
    # gathers on the exact path)
    return n + 16 * (k >> 3), k & 7


def _b_forward(lane: int, e: int) -> tuple[int, int]:
    b = lane >> 2
    return (e + 8 * (b >> 2)) % 16, 4 * (2 * (b >> 1 & 1) + (b & 1)) + (lane & 3)


def _acc_home(row: int, col: int) -> tuple[int, int]:
    r, c = row // 4, col // 4
    b = 2 * (2 * (r >> 1) + (c >> 1)) + (c & 1)
    return 4 * b + col % 4, 4 * (r & 1) + row % 4


def _acc_forward(lane: int, e: int) -> tuple[int, int]:
    b, h, i = lane >> 2, e >> 2, e & 3
    return 4 * (2 * (b >> 2) + h) + i, 4 * (2 * (b >> 1 & 1) + (b & 1)) + (lane & 3)


def _kh(m: int) -> int:
    """bf16: the K half (0: k 0-7, 1: k 8-15) the 4 registers of lane group m = b >> 1 hold."""
    return (m & 1) ^ (m >> 1)


def _a16_home(row: int, k: int) -> tuple[int, int]:
    r = row // 4
    m = 2 * (r >> 1) + ((k >> 3) ^ (r >> 1))
    return 4 * (2 * m + (r & 1)) + row % 4, k % 8


def _a16_forward(lane: int, e: int) -> tuple[int, int]:
    b = lane >> 2
    return 4 * (2 * (b >> 2) + (b & 1)) + (lane & 3), e + 8 * _kh(b >> 1)


def _b16_home(k: int, n: int) -> tuple[int, int]:
    c = n // 4
    m = (c >> 1) + 2 * ((k >> 3) ^ (c >> 1))
    return 4 * (2 * m + (c & 1)) + n % 4, k % 8


def _b16_forward(lane: int, e: int) -> tuple[int, int]:
    b = lane >> 2
    return e + 8 * _kh(b >> 1), 4 * (2 * (b >> 1 & 1) + (b & 1)) + (lane & 3)


A = Layout(16, 16, 16, 8, 32, _a_home, _a_forward)
B = Layout(16, 16, 16, 8, 32, _b_home, _b_forward)
ACC = Layout(16, 16, 32, 8, 32, _acc_home, _acc_forward)
"""The m16n16k16 layouts (module docstring)."""
A_BF16 = Layout(16, 16, 16, 4, 32, _a16_home, _a16_forward)
B_BF16 = Layout(16, 16, 16, 4, 32, _b16_home, _b16_forward)
"""m16n16k16 ``.bf16`` A and B (PTX gives them 4 registers): the same rows and columns per lane as
``A``/``B``, but only the 8 elements of one K half, kh = ``_kh(m)``; the block that shares the row
(A: m ^ 1, lane ^ 8) or the column (B: m ^ 2, lane ^ 16) holds the other half, so ``mfma_registers``
fetches registers 4-7 with one ``ds_swizzle`` each. A block and the block whose A it reads share m,
hence kh: they agree on the K order, as in the f16 layout."""

MIRROR_LANES = 16
"""In ``B``, register r + 4 of lane l is register r of lane l ^ 16 (same column, the other K half):
``wmma.load`` loads registers 0-3 and fetches 4-7 with one ``ds_swizzle`` each (``mirrored``)."""


def mirrored(layout: Layout) -> bool:
    """Whether ``layout``'s upper half of registers mirrors the lower half of lane ^ MIRROR_LANES."""
    return layout is B


def mirror(cx: FnContext, word: ir.Value) -> ir.Value:
    """``word`` of lane ^ 16 in the warp (``ds_swizzle`` bit mode: and 0x1f, or 0, xor 16)."""
    return cx.call("llvm.amdgcn.ds.swizzle", I32, [cx.coerce(word, I32), cx.i32(MIRROR_LANES << 10 | 0x1F)],
                   ["convergent"])


def checked_a(cx: FnContext, a: list[ir.Value]) -> list[ir.Value]:
    """The registers of A fragment ``a`` whose elements a test over the whole wave must look at: lanes
    l and l ^ 8 (blocks b and b ^ 2) hold the same row with the same K order, so when every register
    is a ``wmma.load`` result (``FnContext.loaded_a``: in each of its registers both lanes loaded the
    same elements, whichever load it came from) lane l tests registers 0-3 and lane l ^ 8 registers
    4-7 (one select each); otherwise (a computed register) all eight."""
    if len(a) != 8 or not all(id(reg) in cx.loaded_a for reg in a):
        return a
    bld = cx.builder
    upper = bld.icmp_unsigned("!=", bld.and_(lane64(cx), cx.i32(8)), cx.i32(0))
    return [bld.select(upper, cx.coerce(a[r + 4], I32), cx.coerce(a[r], I32)) for r in range(4)]


def checked_b(b: list[ir.Value]) -> list[ir.Value]:
    """The registers of B fragment ``b`` whose elements a test over the whole wave must look at:
    register r + 4 is left out where it is ``mirror(b[r])`` (``wmma.load``'s swizzle, seen in the
    LLVM values), because lane ^ 16 holds the same elements in its register r."""
    def mirrors(word: ir.Value, source: ir.Value) -> bool:
        return (isinstance(word, ir.CallInstr) and getattr(word.callee, "name", "") == "llvm.amdgcn.ds.swizzle"
                and word.args[0] is source and isinstance(word.args[1], ir.Constant)
                and word.args[1].constant == MIRROR_LANES << 10 | 0x1F)
    half = len(b) // 2
    return b[:half] + [word for word, source in zip(b[half:], b[:half], strict=True) if not mirrors(word, source)]


_MFMA = "llvm.amdgcn.mfma.f32.4x4x4f16"
_MFMA_BF16 = "llvm.amdgcn.mfma.f32.4x4x4bf16.1k"
_V4I16 = ir.VectorType(ir.IntType(16), 4)


def _partner(cx: FnContext, word: ir.Value, lanes: int) -> ir.Value:
    """``word`` of lane ^ ``lanes`` in the warp (``ds_swizzle`` bit mode)."""
    return cx.call("llvm.amdgcn.ds.swizzle", I32, [cx.coerce(word, I32), cx.i32(lanes << 10 | 0x1F)],
                   ["convergent"])


def bf16_registers(cx: FnContext, a: list[ir.Value], b: list[ir.Value], c: list[ir.Value]) -> list[ir.Value]:
    """D's 8 f32 registers (NaN not yet canonical) from ``.bf16`` A and B in ``A_BF16``/``B_BF16``
    and C in ``ACC``: the f16 plan with ``v_mfma_f32_4x4x4_16b_bf16``, each operand's other K half
    fetched from its partner lane (8 ``ds_swizzle``). EXEC must be full."""
    bld = cx.builder
    full_a = [cx.coerce(w, I32) for w in a] + [_partner(cx, w, 8) for w in a]
    full_b = [cx.coerce(w, I32) for w in b] + [_partner(cx, w, MIRROR_LANES) for w in b]
    out: list[ir.Value] = []
    for h in (0, 1):
        acc = vector(cx, [bld.bitcast(cx.coerce(v, I32), FLOAT) for v in c[4 * h:4 * h + 4]], V4FLOAT)
        for q in range(4):
            operands = [bld.bitcast(vector(cx, w[2 * q:2 * q + 2], ir.VectorType(I32, 2)), _V4I16)
                        for w in (full_a, full_b)]
            acc = cx.call(_MFMA_BF16, V4FLOAT, [*operands, acc, cx.i32(1), cx.i32(h), cx.i32(0)], ["convergent"])
        out.extend(bld.extract_element(acc, cx.i32(i)) for i in range(4))
    return out


def mfma_registers(cx: FnContext, a: list[ir.Value], b: list[ir.Value], c: list[ir.Value], widen: bool = False
                   ) -> list[ir.Value]:
    """D's 8 f32 registers (as f32 values, NaN not yet canonical) from A, B, C in the layouts above;
    ``widen``: through ``v_mfma_f32_4x4x1_16b_f32`` (``mfma_widen``, for subnormal elements)."""
    bld = cx.builder
    accs = [vector(cx, [bld.bitcast(cx.coerce(v, I32), FLOAT) for v in c[4 * h:4 * h + 4]], V4FLOAT) for h in (0, 1)]
    for q in range(4):  # the two chains interleaved: no MFMA waits on the one just issued
        for h in (0, 1):
            accs[h] = f16_mfma(cx, _MFMA, halves(cx, a[2 * q:2 * q + 2]), halves(cx, b[2 * q:2 * q + 2]), accs[h],
                               cbsz=1, abid=h, widen=widen, last=q == 3)
    return [bld.extract_element(acc, cx.i32(i)) for acc in accs for i in range(4)]
