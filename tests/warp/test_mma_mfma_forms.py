"""The MFMA fast path of the mma forms beyond m16n8k16 .f32.f16.f16.f32 (``ptx2gcn.emit.mfma_forms``,
``lower_mfma_forms``; issue #14): bf16, m16n8k8 f16/bf16, f16 accumulators, s8/u8 (with and without
``.satfinite``), tf32 and f64, on the emulator (CDNA3 MFMA numerics, hazard faults) against the
reference model (``ptx2gcn.reference.mma``): small-integer data and integer/f64 forms bit exact,
random float data within the model's bound. Whole waves take the MFMA path (the launch counts the
plan's MFMAs); a wave with one warp skipping the mma takes the exact path."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.compiler import compile_assembly
from ptx2gcn.emit.matrix_layouts import MMA
from ptx2gcn.emit.mfma_forms import ANY, F16, OPS, SLOWER_THAN_EXACT, Plan, Table, _operand_table, plan_for
from ptx2gcn.emit.mfma_forms import FORMS as FORMS_OF
from ptx2gcn.reference.mma import WARP, chain_expected, element_format, mma_disagreements, mma_form, to_matrix
from tests.warp.conftest import SENTINEL
from tests.warp.matrix_harness import run_matrix_stats
from tests.warp.test_mma import _join, _kernel, _lanes, _matrix, _split, _warp_operands, chain_kernel
from tests.warp.test_wmma import COMBOS as WMMA_COMBOS
from tests.warp.test_wmma import Combo
from tests.warp.test_wmma import _kernel as wmma_kernel

FORMS = [
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32",
    "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32",
    "mma.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32",
    "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.u8.u8.s32",
    "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.s8.s32",
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64",
]
_IDS = [s.removeprefix("mma.sync.aligned.") for s in FORMS]


def _plan(spelling: str, arch: str = "gfx942") -> Plan | None:
    form = mma_form(spelling)
    return plan_for(spelling.split(".")[3], form.atype, form.btype, arch)


@pytest.mark.parametrize("spelling", FORMS, ids=_IDS)
def test_mfma_form_matches_reference_and_falls_back(spelling: str, rng: np.random.Generator) -> None:
    form = mma_form(spelling)
    plan = _plan(spelling)
    assert plan is not None
    ptx, n_in, n_out = _kernel(spelling)
    warps = 4
    operands = [_warp_operands(form, small=w % 2 == 0, rng=rng) for w in range(warps)]
    for skipped in ((), (1,)):
        inputs = np.zeros((warps * WARP, n_in), dtype=np.int64)
        for w, (a, b, c) in enumerate(operands):
            inputs[w * WARP:(w + 1) * WARP, :n_in - 1] = [x + y + z for x, y, z in zip(
                _split(a, form.shape.a), _split(b, form.shape.b), _split(c, form.c_frag))]
            inputs[w * WARP:(w + 1) * WARP, n_in - 1] = int(w in skipped)
        out, stats = run_matrix_stats(ptx, warps * WARP, inputs, n_out, mma="mfma")
        full_waves = sum(1 for wave in (0, 1) if not {2 * wave, 2 * wave + 1} & set(skipped))
        assert stats.mfma_instructions == plan.mfmas * full_waves, f"skipping {skipped}"
        for w, (a, b, c) in enumerate(operands):
            lanes = out[w * WARP:(w + 1) * WARP]
            if w in skipped:
                assert (lanes == SENTINEL).all()
                continue
            wrong = mma_disagreements(spelling, a, b, c, _join(lanes, form.d_frag))
            assert not wrong, f"warp {w} (skipping {skipped}): {len(wrong)} wrong, e.g. {wrong[:3]}"


CHAINS = [
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32",
    "mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32",
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64",
]


@pytest.mark.parametrize("spelling", CHAINS, ids=[s.removeprefix("mma.sync.aligned.") for s in CHAINS])
def test_chained_mfma_forms(spelling: str, rng: np.random.Generator) -> None:
    """Three MFMA-path mma steps, D fed back as C (a K loop), two warps: small integers and random data
    against the chain model (integers and f64 bit exact, floats within the accumulated bound)."""
    form = mma_form(spelling)
    plan = _plan(spelling)
    assert plan is not None
    s, fc = form.shape, form.c_frag
    steps = 3
    ptx, wc = chain_kernel(spelling, steps)
    cases = []
    words = []
    for small in (True, False):
        mats = [(_matrix(form.atype, (s.a.rows, s.a.cols), small, rng),
                 _matrix(form.btype, (s.b.rows, s.b.cols), small, rng)) for _ in range(steps)]
        c = _matrix(form.ctype, (fc.rows, fc.cols), small, rng, accumulator=True)
        cases.append((mats, c))
        words += [sum((_split(_lanes(s.a, a), s.a)[lane] for a, _ in mats), []) +
                  sum((_split(_lanes(s.b, b), s.b)[lane] for _, b in mats), []) +
                  _split(_lanes(fc, c), fc)[lane] + [0] for lane in range(WARP)]
    out, stats = run_matrix_stats(ptx, 2 * WARP, words, wc, mma="mfma")
    assert stats.mfma_instructions == plan.mfmas * steps
    for w, (mats, c) in enumerate(cases):
        got = to_matrix(fc, _join(out[w * WARP:(w + 1) * WARP], fc))
        expected = chain_expected(spelling, [(a.tolist(), b.tolist()) for a, b in mats], c.tolist())
        wrong = [(r, col) for r in range(fc.rows) for col in range(fc.cols)
                 if not expected[r][col].accepts(element_format(form.dtype), got[r][col])]
        assert not wrong, f"warp {w}: {len(wrong)} wrong, e.g. {wrong[:3]}"


_F16_BITS = {"inf": 0x7C00, "-inf": 0xFC00, "nan": 0x7E01, "tiny": 0x8001, "one": 0x3C00, "big": 0x7252}
_BF16_BITS = {"inf": 0x7F80, "-inf": 0xFF80, "nan": 0x7FC1, "tiny": 0x8001, "one": 0x3F80, "big": 0x7E52}
_F32_BITS = {"inf": 0x7F800000, "-inf": 0xFF800000, "nan": 0x7FC00001, "tiny": 0x80002000, "one": 0x3F800000,
             "big": 0x7E520000}
_SPECIALS = {"f16": _F16_BITS, "bf16": _BF16_BITS, "tf32": _F32_BITS}
SPECIAL_FORMS = [
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
]


@pytest.mark.parametrize("subnormal", [False, True], ids=["normal", "subnormal"])
@pytest.mark.parametrize("spelling", SPECIAL_FORMS, ids=[s.removeprefix("mma.sync.aligned.") for s in SPECIAL_FORMS])
def test_mfma_forms_special_values(spelling: str, subnormal: bool, rng: np.random.Generator) -> None:
    """Infinities and NaN in A and B (the K padding of k8/k4 forms must not turn an infinity into NaN,
    the other warp's data must not leak in): the model's rules (c), NaN canonical, on the MFMA path.
    With a subnormal A element times a large B element (``ptx2gcn fuzz`` found it: CDNA3 aligns to
    the subnormal's nominal exponent, beyond the model's bound) the wave takes the exact path
    (``lower_mfma_forms.operands_normal``) and is still right."""
    form = mma_form(spelling)
    bits = _SPECIALS[form.atype]
    s = form.shape
    ptx, n_in, n_out = _kernel(spelling)
    warp_data = []
    for w in range(2):
        a = _matrix(form.atype, (s.a.rows, s.a.cols), True, rng)
        b = _matrix(form.btype, (s.b.rows, s.b.cols), True, rng)
        if w == 0:
            a[0, :] = bits["one"]
            a[0, s.a.cols - 1] = bits["inf"]  # row 0: +inf times column sums, except NaN where b is 0
            a[3, 1] = bits["nan"]
            b[:, 2] = bits["one"]
            b[0, 4] = bits["-inf"]
            a[9, 0] = bits["one"]  # row 9, column 4: 1 * -inf
        if subnormal and w == 1:
            a[5, :] = bits["one"]
            a[5, s.a.cols - 1] = bits["tiny"]  # the smallest negative subnormal times "big": the fuzz case
            b[s.b.rows - 1, :] = bits["big"]
        warp_data.append((_lanes(s.a, a), _lanes(s.b, b),
                          _lanes(form.c_frag, _matrix(form.ctype, (16, 8), True, rng, accumulator=True))))
    inputs = [[*_split(a, s.a)[lane], *_split(b, s.b)[lane], *_split(c, form.c_frag)[lane], 0]
              for a, b, c in warp_data for lane in range(WARP)]
    assert len(inputs[0]) == n_in
    out, stats = run_matrix_stats(ptx, 2 * WARP, inputs, n_out, mma="mfma")
    assert stats.mfma_instructions == (0 if subnormal else 2)
    for w, (a, b, c) in enumerate(warp_data):
        wrong = mma_disagreements(spelling, a, b, c, _join(out[w * WARP:(w + 1) * WARP], form.d_frag))
        assert not wrong, f"warp {w}: {len(wrong)} wrong, e.g. {wrong[:3]}"
    canonical = 0x7FFF if form.dtype == "f16" else 0x7FFFFFFF
    assert any(int(word) & 0xFFFF == canonical or int(word) == canonical for word in out[:WARP].reshape(-1))


ARCHS = ("gfx90a", "gfx942", "gfx950")


_U8_U8 = FORMS.index("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32")  # slower than exact


@pytest.mark.parametrize("spelling", FORMS[::2] + [FORMS[_U8_U8]], ids=_IDS[::2] + [_IDS[_U8_U8]])
def test_mfma_opcode_per_target(spelling: str) -> None:
    """``--mma mfma`` emits the plan's MFMAs where ``mfma_forms.OPS`` has one for the target, and no
    MFMA at all elsewhere (exact path); ``--mma auto`` does the same on gfx942 except for the forms
    whose MFMA path is slower (``SLOWER_THAN_EXACT``); ``--mma exact`` never emits one."""
    ptx, _, _ = _kernel(spelling)
    for arch in ARCHS:
        plan = _plan(spelling, arch)
        asm = compile_assembly(ptx, arch=arch, mma="mfma")
        if plan is None:
            assert "v_mfma" not in asm, arch
        else:
            mnemonic = plan.op.asm if arch == "gfx942" else "v_mfma_"
            assert mnemonic in asm, (arch, plan.op.asm)
            assert asm.count("v_mfma_") == plan.mfmas, arch
    form = mma_form(spelling)
    slower = (spelling.split(".")[3], form.atype, form.btype) in SLOWER_THAN_EXACT
    assert ("v_mfma" in compile_assembly(ptx, mma="auto")) == (not slower)
    assert "v_mfma" not in compile_assembly(ptx, mma="exact")


def test_targets_of_each_type() -> None:
    """Which (type, target) pairs have an MFMA (module docstring of ``mfma_forms``: the numerics
    evidence), pinned."""
    assert sorted(OPS) == sorted([("f16", "gfx942"), ("bf16", "gfx942"), ("tf32", "gfx942"), ("f64", "gfx942"),
                                  ("i8", "gfx942"), ("i8", "gfx950"), ("i8", "gfx90a"), ("f64", "gfx90a")])


_WMMA = [combo for combo in WMMA_COMBOS if combo.atype != "f16"
         # m16n16k16 bf16 -> f32 has its own 4x4x4 layout (tests/warp/test_mfma_subnormal.py)
         and not (combo.shape == "m16n16k16" and combo.atype == "bf16" and combo.dtype == "f32")][::2]


@pytest.mark.parametrize("combo", _WMMA, ids=[f"{c.shape}.{c.atype}.{c.dtype}" for c in _WMMA])
def test_wmma_of_other_types_uses_mfma(combo: Combo) -> None:
    """``wmma.mma`` builds on the base mma (``lower_wmma``), so bf16/s8/u8/tf32/f64 wmma get these MFMAs:
    one plan per output tile. (``tests/warp/test_wmma.py`` runs the same kernels on whole waves under
    ``--mma auto``, i.e. through this path, against the reference model.)"""
    base = {"bf16": "m16n8k16", "s8": "m16n8k16", "u8": "m16n8k16", "tf32": "m16n8k8", "f64": "m8n8k4"}[combo.atype]
    asm = compile_assembly(wmma_kernel(combo), mma="mfma")
    plan = plan_for(base, combo.atype, combo.atype, "gfx942")
    assert plan is not None and plan.op.asm in asm


def _bpermutes(plan: Plan) -> int:
    """ds_bpermute_b32 per wave the plan's tables need (``wave_moves``: the most dwords one source lane
    must offer, none for an in-place table)."""
    seen: set[Table] = set()
    total = 0
    tables = [t for chain in plan.chains for step in chain.steps for t in step.a + step.b]
    for table in [*tables, *(plan.c or ()), *plan.d]:
        if table in seen:
            continue
        seen.add(table)
        offers: list[set[int]] = [set() for _ in range(64)]
        for src in table.lanes:
            if src is not None and src != ANY:
                offers[src[0]].add(src[1])
        in_place = all(src is None or src == ANY or src[0] == lane for lane, src in enumerate(table.lanes))
        total += 0 if in_place else max(len(offer) for offer in offers)
    return total


def test_plans_move_whole_dwords_with_few_bpermutes() -> None:
    """Every plan builds (``_operand_table`` checks that each MFMA operand dword is one PTX register
    dword of one lane); the data movement per wave is pinned (docs/tensor-cores.md's table)."""
    expected = {("m16n8k16", "bf16"): (2, 26), ("m16n8k8", "f16"): (2, 21), ("m16n8k8", "tf32"): (2, 26),
                ("m16n8k4", "tf32"): (2, 21), ("m16n8k32", "s8"): (2, 18), ("m16n8k16", "s8"): (2, 13),
                ("m16n8k32", "u8"): (8, 18), ("m8n8k4", "f64"): (1, 16), ("m16n8k4", "f64"): (2, 42),
                ("m16n8k16", "f64"): (8, 72)}
    for (shape, atype), (mfmas, bpermutes) in expected.items():
        plan = plan_for(shape, atype, atype, "gfx942")
        assert plan is not None and (plan.mfmas, _bpermutes(plan)) == (mfmas, bpermutes), (shape, atype)
    for (kind, arch) in OPS:
        for shape in FORMS_OF[kind]:
            types = ("s8", "u8") if kind == "i8" else (kind,)
            assert all(plan_for(shape, a, b, arch) is not None for a in types for b in types)


def test_a_layout_mistake_is_caught_when_the_table_is_built() -> None:
    """A K order under which an MFMA dword would need elements of two PTX registers is refused."""
    layouts = {"a": MMA[("m16n8k16", "f16")].a}
    with pytest.raises(AssertionError, match="not one PTX dword"):  # k pairs (0, 3): two lanes' registers
        _operand_table(F16, layouts, lambda i, kk: (0, "a", i, kk if kk % 2 == 0 else (kk + 2) % 16), 0)
    with pytest.raises(AssertionError, match="at bit 16"):  # k pairs (1, 0): one register, halves swapped
        _operand_table(F16, layouts, lambda i, kk: (0, "a", i, kk ^ 1), 0)
    good = _operand_table(F16, layouts, lambda i, kk: (0, "a", i % 8, 2 * (kk // 4) + kk % 2 + 8 * (kk % 4 // 2)), 0)
    assert good.source == "a" and None not in good.lanes
