"""Warp-matrix statements of the fuzzer (``fuzz.matrix``, ``fuzz.matrix_eval``): generated programs
contain every kind at converged points only; the evaluator's data movement checked against numpy
written here; bounded mma results are judged by the model's acceptance (a tiny error passes, a
large one fails); and a deterministic batch of matrix-heavy programs matches the model on the
emulator (``-m slow``: a larger batch)."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from ptx2gcn.fuzz.eval import evaluate, expectation
from ptx2gcn.fuzz.gen import GenOptions, generate
from ptx2gcn.fuzz.known import KNOWN_RANDOM_DATA
from ptx2gcn.fuzz.oracle import judge
from ptx2gcn.fuzz.program import THREADS, WARP, Matrix, Operand, Program, Statement, all_registers, children
from ptx2gcn.fuzz.text import ptx_text

OPTIONS = GenOptions(statements=8, matrix=0.3, small_only=frozenset(KNOWN_RANDOM_DATA))


def _matrices(body: tuple[Statement, ...], depth: int = 0) -> list[tuple[Matrix, int]]:
    found: list[tuple[Matrix, int]] = []
    for st in body:
        if isinstance(st, Matrix):
            found.append((st, depth))
        for inner in children(st):
            found += _matrices(inner, depth + 1)
    return found


def test_generated_programs_contain_every_kind_at_top_level_only() -> None:
    kinds: collections.Counter[str] = collections.Counter()
    small = 0
    for seed in range(120):
        for st, depth in _matrices(generate(seed).body):
            assert depth == 0, f"seed {seed}: {st.spelling} nested at depth {depth}"
            kinds[st.kind] += 1
            small += st.small
    assert set(kinds) == {"mma", "ldmatrix", "stmatrix", "movmatrix", "wmma"}, kinds
    assert 0 < small < sum(kinds.values())


def _program(*body: Statement) -> Program:
    return Program(tuple(body), generate(5).inputs)


def test_ldmatrix_and_movmatrix_model_against_numpy() -> None:
    fill = tuple(Operand("i32", i) for i in range(4))
    ld = Matrix("ldmatrix", "ldmatrix.sync.aligned.m8n8.x1.shared.b16", (Operand("h32", 2),), (fill,))
    mov = Matrix("movmatrix", "movmatrix.sync.aligned.m8n8.trans.b16", (Operand("i32", 3),), ((Operand("h32", 2),),))
    prog = _program(ld, mov)
    before = prog.input_bits()
    values, poison = evaluate(prog)
    lanes = np.arange(THREADS)
    warp_base = lanes // WARP * WARP
    # x1, identity rows: lane l gets word (l % 4) of the row lane l // 4 stored
    source = warp_base + (lanes % WARP) // 4
    want = np.array([before[("i32", int(lane % 4))][src] for lane, src in zip(lanes, source)], dtype=np.uint64)
    assert (values[("h32", 2)] == want).all() and not poison[("h32", 2)].any()
    # movmatrix: element (r, c) = half (c % 2) of word of lane 4r + c // 2; result (r, c) = element (c, r)
    words = values[("h32", 2)]  # movmatrix runs after ldmatrix, on the loaded register

    def element(w: int, r: int, c: int) -> int:
        return int(words[w * WARP + 4 * r + c // 2]) >> (16 * (c % 2)) & 0xFFFF

    for w in range(THREADS // WARP):
        for lane in range(WARP):
            r, c0 = lane // 4, 2 * (lane % 4)
            expect = element(w, c0, r) | element(w, c0 + 1, r) << 16
            assert int(values[("i32", 3)][w * WARP + lane]) == expect


def _mma_f16(small: bool) -> Matrix:
    a = tuple(Operand("h32", i) for i in (0, 1, 2, 3))
    d = tuple(Operand("f32", i) for i in range(4))
    c = tuple(Operand("f32", i) for i in (3, 2, 1, 0))
    return Matrix("mma", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", d,
                  (a, (Operand("h32", 1), Operand("h32", 2)), c), small)


def test_bounded_results_are_checked_by_the_model() -> None:
    prog = _program(_mma_f16(small=False))
    expected = expectation(prog)
    assert expected.checks, "random f16 data gives bounded (checked) results"
    got = np.frombuffer(expected.data, dtype="<u8").copy()
    slot, check = next(iter(expected.checks.items()))
    exact = next(e for _, _, _, e in check)
    assert exact.exact is not None and exact.bound > 0
    from ptx2gcn.reference.floatformat import F32
    from ptx2gcn.reference.rounding import round_fraction

    got[slot] = round_fraction(F32, exact.exact, "rn")
    assert not expected.failed_checks(got)[slot]
    got[slot] = round_fraction(F32, exact.exact + 1000 * exact.bound + 1, "rn")
    assert expected.failed_checks(got)[slot]


def test_small_integer_mma_is_bit_exact_and_downstream_usable() -> None:
    prog = _program(_mma_f16(small=True))
    expected = expectation(prog)
    assert not expected.checks
    rows = [k for k, key in enumerate(all_registers()) if key[0] == "f32"]
    mask = expected.mask.reshape(len(all_registers()), THREADS)
    assert mask[rows].all(), "small-integer mma results are fixed bits"


def test_matrix_statement_text_is_aligned_and_scoped() -> None:
    prog = _program(_mma_f16(small=True))
    text = ptx_text(prog)
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}" in text
    assert "cvt.rn.f16x2.f32" in text


@pytest.mark.parametrize("seed", range(30))
def test_matrix_programs_match_the_model(seed: int) -> None:
    prog = generate(7000 + seed, OPTIONS)
    assert _matrices(prog.body) or seed % 7, "most programs of this batch hold a matrix statement"
    verdict = judge(prog)
    assert verdict.kind == "ok", verdict.details


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(30, 230))
def test_more_matrix_programs_match_the_model(seed: int) -> None:
    verdict = judge(generate(7000 + seed, OPTIONS))
    assert verdict.kind == "ok", verdict.details
