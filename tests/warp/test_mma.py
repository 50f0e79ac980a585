"""T21: mma.sync.aligned through the portable VALU lowering, on the emulator, against the reference
model (``ptx2gcn.reference.mma``): small-integer data bit exact (proves the fragment layouts),
random data within the model's error bound, integers and f64 bit exact. Four warps (two waves) get
different data; a second launch leaves one warp of each wave inactive (it skips the mma); every
mma runs after the lanes of its warp diverged and reconverged."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.conformance.matrix_kernel import REG_DECL as _REG_DECL
from ptx2gcn.conformance.matrix_kernel import fragment_operand as _operand
from ptx2gcn.conformance.matrix_kernel import fragment_words as _words
from ptx2gcn.conformance.matrix_kernel import join_words as _join
from ptx2gcn.conformance.matrix_kernel import matrix_data as _matrix
from ptx2gcn.conformance.matrix_kernel import mma_body
from ptx2gcn.conformance.matrix_kernel import split_words as _split
from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.reference.mma import (
    WARP,
    MmaForm,
    chain_expected,
    element_format,
    from_matrix,
    mma_disagreements,
    mma_form,
    to_matrix,
)
from ptx2gcn.reference.mma_layouts import Fragment
from tests.warp.conftest import SENTINEL
from tests.warp.matrix_harness import matrix_kernel, run_matrix

SPELLINGS = [
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32",
    "mma.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32",
    "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.u8.u8.s32",
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.s8.u8.s32",
    "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u4.s4.s32",
    "mma.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32",
    "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc",
    "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc",
    "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc",
    "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32",
    "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16",
    "mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e5m2.f16",
    "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16",
    "mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f16",
    "mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f32",
]

def _kernel(spelling: str) -> tuple[str, int, int]:
    decls, body, words_in, n_out = mma_body(spelling)
    n_in = words_in + 1  # the harness's skip word
    return matrix_kernel("\n".join(body), n_in, n_out, "\n".join(decls)), n_in, n_out


def _lanes(frag: Fragment, matrix: npt.NDArray[np.int64]) -> list[list[int]]:
    return from_matrix(frag, matrix.tolist())


def _warp_operands(form: MmaForm, small: bool, rng: np.random.Generator) -> tuple[list[list[int]], ...]:
    s, fc = form.shape, form.c_frag  # fragment matrices (Volta m8n8k4: the four products stacked)
    a = _lanes(s.a, _matrix(form.atype, (s.a.rows, s.a.cols), small, rng))
    b = _lanes(s.b, _matrix(form.btype, (s.b.rows, s.b.cols), small, rng))
    c = _lanes(fc, _matrix(form.ctype, (fc.rows, fc.cols), small, rng, accumulator=True))
    return a, b, c


@pytest.mark.parametrize("spelling", SPELLINGS, ids=[s.removeprefix("mma.sync.aligned.") for s in SPELLINGS])
def test_mma_matches_reference(spelling: str, rng: np.random.Generator) -> None:
    form = mma_form(spelling)
    ptx, n_in, n_out = _kernel(spelling)
    warps = 4
    operands = [_warp_operands(form, small=w % 2 == 0, rng=rng) for w in range(warps)]
    for skipped in ((), (0, 3)):
        inputs = np.zeros((warps * WARP, n_in), dtype=np.int64)
        for w, (a, b, c) in enumerate(operands):
            words = [x + y + z for x, y, z in zip(_split(a, form.shape.a), _split(b, form.shape.b),
                                                   _split(c, form.c_frag))]
            inputs[w * WARP:(w + 1) * WARP, :n_in - 1] = words
            inputs[w * WARP:(w + 1) * WARP, n_in - 1] = int(w in skipped)
        out = run_matrix(ptx, warps * WARP, inputs, n_out)
        for w, (a, b, c) in enumerate(operands):
            lanes = out[w * WARP:(w + 1) * WARP]
            if w in skipped:
                assert (lanes == SENTINEL).all(), f"warp {w} skipped the mma but wrote results"
                continue
            wrong = mma_disagreements(spelling, a, b, c, _join(lanes, form.d_frag))
            assert not wrong, f"warp {w} (skipping {skipped}): {len(wrong)} wrong, e.g. {wrong[:3]}"


_UNSUPPORTED = [
    ("sm_90", "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, "
     "{%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%f4,%f5,%f6,%f7}, %r8, 0x0;", "unsupported: mma.sp::ordered_metadata"),
    ("sm_120a", "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32 {%f0,%f1,%f2,%f3}, "
     "{%r0,%r1,%r2,%r3}, {%r4,%r5}, {%f4,%f5,%f6,%f7};", "unsupported: mma.kind::f8f6f4"),
    ("sm_100a", "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r2, %r3}, [%r1];",
     "unsupported: ldmatrix: .m16n16.b8"),
    ("sm_80", "mma.sync.aligned.m8n8k4.row.col.f32.bf16.bf16.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, {%r0,%r1}, "
     "{%r2,%r3}, {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7};", "unsupported: mma: .m8n8k4 .bf16"),
]
"""(target, line, message): forms ptxas accepts for the target (``matrix_acceptance.json`` or checked by
hand with ptxas 13) without a gfx942 lowering."""


@pytest.mark.parametrize(("target", "line", "message"), _UNSUPPORTED, ids=[m.split(": ")[1] for *_, m in _UNSUPPORTED])
def test_forms_without_lowering_are_located(target: str, line: str, message: str) -> None:
    ptx = (f".version 8.7\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n"
           ".reg .b32 %r<20>; .reg .f32 %f<8>; .reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\n" + line + "\nret;\n}\n")
    with pytest.raises(UnsupportedError) as info:
        compile(ptx)
    text = str(info.value)
    assert "<input>:8:" in text and message in text and "Traceback" not in text


CHAINS = [
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32",
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
]


def chain_kernel(spelling: str, steps: int) -> tuple[str, int]:
    """A kernel of ``steps`` mma feeding D back as C (inputs: every step's A, then B, then C; the skip
    word last), and its number of output words."""
    form = mma_form(spelling)
    s, fc = form.shape, form.c_frag
    wa, wb, wc = _words(s.a), _words(s.b), _words(fc)
    decls: list[str] = []
    moves: list[str] = []
    a_ops = [_operand(f"ra{i}", s.a, form.atype, i * wa, decls, moves) for i in range(steps)]
    b_ops = [_operand(f"rb{i}", s.b, form.btype, steps * wa + i * wb, decls, moves) for i in range(steps)]
    c_op = _operand("rc", fc, form.ctype, steps * (wa + wb), decls, moves)
    decls.append(f".reg {_REG_DECL.get(form.dtype, '.b32')} %rd<{fc.regs}>;")
    d_op = "{" + ", ".join(f"%rd{r}" for r in range(fc.regs)) + "}"
    body = [*moves, f"{spelling} {d_op}, {a_ops[0]}, {b_ops[0]}, {c_op};"]
    body += [f"{spelling} {d_op}, {a_ops[i]}, {b_ops[i]}, {d_op};" for i in range(1, steps)]
    if fc.reg_bits == 64:
        body += [f"mov.b64 {{%o{2 * r}, %o{2 * r + 1}}}, %rd{r};" for r in range(fc.regs)]
    else:
        body += [f"mov.b32 %o{r}, %rd{r};" for r in range(fc.regs)]
    n_in = steps * (wa + wb) + wc + 1
    return matrix_kernel("\n".join(body), n_in, wc, "\n".join(decls)), wc


@pytest.mark.parametrize("spelling", CHAINS, ids=[s.removeprefix("mma.sync.aligned.") for s in CHAINS])
def test_chained_mma_within_the_accumulated_bound(spelling: str, rng: np.random.Generator) -> None:
    """Three mma steps feeding D back as C (a kernel's K loop): the result against the chain model."""
    form = mma_form(spelling)
    s, fc = form.shape, form.c_frag
    steps = 3
    ptx, wc = chain_kernel(spelling, steps)
    for small in (True, False):
        mats = [(_matrix(form.atype, (s.a.rows, s.a.cols), small, rng), _matrix(form.btype, (s.b.rows, s.b.cols),
                                                                                 small, rng)) for _ in range(steps)]
        c = _matrix(form.ctype, (fc.rows, fc.cols), small, rng, accumulator=True)
        words = [sum((_split(_lanes(s.a, a), s.a)[lane] for a, _ in mats), []) +
                 sum((_split(_lanes(s.b, b), s.b)[lane] for _, b in mats), []) +
                 _split(_lanes(fc, c), fc)[lane] + [0] for lane in range(WARP)]
        out = run_matrix(ptx, WARP, words, wc)
        got = to_matrix(fc, _join(out, fc))
        expected = chain_expected(spelling, [(a.tolist(), b.tolist()) for a, b in mats], c.tolist())
        fmt = element_format(form.dtype)
        wrong = [(r, col) for r in range(fc.rows) for col in range(fc.cols)
                 if not expected[r][col].accepts(fmt, got[r][col])]
        assert not wrong, f"small={small}: {len(wrong)} wrong, e.g. {wrong[:3]}"


_OVERFLOWING = {
    # PTX type -> bits of (2^100, -inf, 1, 2^-100); bf16 and tf32 share f32's exponent range
    "bf16": (0x7180, 0xFF80, 0x3F80, 0x0D80),
    "tf32": (0x71800000, 0xFF800000, 0x3F800000, 0x0D800000),
}
WIDE = [s for s in SPELLINGS if any(f".{t}." in s for t in _OVERFLOWING)]


@pytest.mark.parametrize("spelling", WIDE, ids=[s.removeprefix("mma.sync.aligned.") for s in WIDE])
def test_finite_product_beyond_f32_then_an_infinite_term(spelling: str) -> None:
    """A row (2^100, -inf) times a column (2^100, 1): the exact products are 2^200 (finite) and -inf,
    so D is -inf (one infinite term, PTX ISA / the model); an f32 chain gave inf - inf = NaN. Also: a
    lone product 2^200 overflows to +inf, and 2^100 * 2^-100 + ... stays exact."""
    form = mma_form(spelling)
    s, fc = form.shape, form.c_frag
    big, minus_inf, one, tiny = _OVERFLOWING[form.atype]
    a = np.zeros((s.a.rows, s.a.cols), dtype=np.int64)
    b = np.zeros((s.b.rows, s.b.cols), dtype=np.int64)
    a[0, :2] = (big, minus_inf)
    b[:2, 0] = (big, one)
    a[1, 0] = big  # row 1 x column 1: the single product 2^200, beyond f32: +inf
    b[0, 1] = big
    a[2, :2] = (big, big)  # row 2 x column 2: 2^100 * 2^-100 twice, exactly 2
    b[:2, 2] = (tiny, tiny)
    c = np.zeros((fc.rows, fc.cols), dtype=np.int64)
    ptx, n_in, n_out = _kernel(spelling)
    regs = [_lanes(s.a, a), _lanes(s.b, b), _lanes(fc, c)]
    words = [x + y + z + [0] for x, y, z in zip(_split(regs[0], s.a), _split(regs[1], s.b), _split(regs[2], fc))]
    out = run_matrix(ptx, WARP, words, n_out)
    d = to_matrix(form.d_frag, _join(out, form.d_frag))
    assert (d[0][0], d[1][1], d[2][2]) == (0xFF800000, 0x7F800000, 0x40000000)
    assert not mma_disagreements(spelling, *regs, _join(out, form.d_frag))
