"""Every combination of opcode, modifier and type either evaluates or is refused with
``ReferenceInputError`` -- never another exception (the generator may ask anything)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ptx2gcn.reference import ReferenceInputError, Result, opcodes, run
from ptx2gcn.reference.sampling import operands_for

TYPES = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "b16", "b32", "b64", "f16", "bf16",
         "f32", "f64", "tf32", "e4m3", "e5m2", "f16x2", "bf16x2", "e4m3x2", "e5m2x2", "pred"]
ROUNDING = ["", "rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi"]
EXTRA = ["", "ftz", "sat", "relu", "satfinite"]


def _inputs(count: int, lanes: int = 6) -> list[np.ndarray]:
    rng = np.random.default_rng(count)
    return [rng.integers(0, 2 ** 63, lanes, dtype=np.uint64) for _ in range(count)]


def _attempt(spelling: str, count: int) -> None:
    try:
        result = run(spelling, *_inputs(count))
    except ReferenceInputError:
        return
    assert isinstance(result, Result)
    for out in result.outputs:
        assert out.bits.shape == (6,)
    assert result.matches(*(out.bits for out in result.outputs)).all()


def test_every_cvt_spelling_evaluates_or_is_refused() -> None:
    for dst, src, rnd, extra in itertools.product(TYPES, TYPES, ROUNDING, EXTRA):
        parts = ["cvt"] + [p for p in (rnd, extra) if p] + [dst, src]
        for count in (1, 2):
            _attempt(".".join(parts), count)


OPCODES = ["add", "sub", "mul", "mad", "fma", "div", "rem", "abs", "neg", "min", "max", "sqrt", "rcp",
           "setp.lt", "setp.gtu", "testp.normal", "copysign", "popc", "clz", "bfind", "brev", "and",
           "not", "cnot", "shl", "shr", "sad", "mul24", "ex2.approx", "sin.approx"]
MODS = ["", "lo", "hi", "wide", "sat", "rn", "ftz", "cc", "relu", "NaN", "approx"]


@pytest.mark.parametrize("opcode", OPCODES)
def test_arithmetic_spellings_evaluate_or_are_refused(opcode: str) -> None:
    for t, mod in itertools.product(TYPES, MODS):
        spelling = ".".join([opcode] + ([mod] if mod else []) + [t])
        for count in (1, 2, 3):
            _attempt(spelling, count)


SUPPORTED = {  # spelling: source operand count (warp ops: plus membermask)
    "add.s64": 2, "add.cc.s32": 2, "addc.cc.u64": 3, "subc.u32": 3, "mul.wide.u16": 2,
    "mad.wide.s32": 3, "mad.lo.cc.u64": 3, "madc.lo.cc.u32": 4, "mad24.hi.sat.s32": 3,
    "sad.u64": 3, "rem.u64": 2, "min.u16x2": 2, "max.s16x2": 2, "dp4a.s32.s32": 3,
    "dp2a.lo.u32.s32": 3, "popc.b64": 1, "clz.b32": 1, "bfind.shiftamt.s64": 1, "fns.b32": 3,
    "brev.b32": 1, "bfe.s64": 3, "bfi.b64": 4, "szext.wrap.u32": 2, "bmsk.clamp.b32": 2,
    "xor.pred": 2, "not.pred": 1, "cnot.b16": 1, "lop3.b32": 4, "shf.l.wrap.b32": 3,
    "shl.b64": 2, "shr.s64": 2, "prmt.b32.ecl": 3, "add.rz.ftz.sat.f32": 2, "sub.rm.f64": 2,
    "mul.rn.f16": 2, "fma.rn.sat.f16x2": 3, "fma.rn.relu.bf16x2": 3, "mad.rn.f64": 3,
    "div.full.ftz.f32": 2, "div.approx.f32": 2, "div.rp.f64": 2, "sqrt.rz.ftz.f32": 1,
    "rcp.rm.f64": 1, "rcp.approx.ftz.f64": 1, "rsqrt.approx.f64": 1, "lg2.approx.ftz.f32": 1,
    "tanh.approx.f32": 1, "min.NaN.bf16": 2, "max.ftz.NaN.f16x2": 2, "abs.bf16x2": 1,
    "neg.ftz.f16": 1, "testp.subnormal.f64": 1, "copysign.f64": 2, "setp.neu.ftz.f32": 2,
    "setp.ge.or.u64": 3, "setp.equ.bf16x2": 2, "set.ltu.f32.f16": 2, "set.eq.and.u32.u64": 3,
    "selp.f64": 3, "slct.ftz.s32.f32": 3, "cvt.rni.sat.f32.f32": 1, "cvt.rpi.u64.f64": 1,
    "cvt.rz.f16.f64": 1, "cvt.rn.relu.satfinite.bf16.f32": 1, "cvt.rz.satfinite.tf32.f32": 1,
    "cvt.rn.satfinite.relu.e5m2x2.f32": 2, "cvt.rn.satfinite.e4m3x2.f16x2": 1,
    "cvt.rn.relu.f16x2.e5m2x2": 1, "cvt.s8.u64": 1, "cvt.pack.sat.s8.s32.b32": 3,
    "cvt.rn.satfinite.e4m3x2.bf16x2": 1,
    "atom.global.gpu.acq_rel.max.s64": 2, "atom.shared.xor.b32": 2, "atom.cas.b64": 3,
    "atom.add.noftz.bf16x2": 2, "red.global.add.f64": 2, "red.min.u32": 2,
    "shfl.sync.idx.b32": 4, "vote.sync.uni.pred": 2, "match.all.sync.b64": 2,
    "redux.sync.or.b32": 2, "activemask.b32": 0, "elect.sync": 1, "add.u16x2": 2,
    "add.s16x2": 2, "fma.rm.ftz.f32x2": 3, "add.rz.sat.f32.bf16": 2, "fma.rn.f32.f16": 3,
    "ex2.approx.ftz.bf16": 1, "tanh.approx.f16": 1, "redux.sync.max.abs.NaN.f32": 2,
    "and.b64": 2, "or.pred": 2, "cos.approx.ftz.f32": 1, "sin.approx.f32": 1, "mul24.hi.s32": 2,
    "tanh.approx.bf16x2": 1, "ex2.approx.f16x2": 1,
    "vadd.s32.u32.s32.sat": 2, "vsub.u32.u32.u32.add": 3, "vabsdiff.s32.s32.s32.dsel=h1": 3,
    "vmin.u32.s32.u32": 2, "vmax.s32.s32.s32.max": 3, "vshl.u32.u32.u32.clamp": 2,
    "vshr.s32.s32.u32.wrap.add": 3, "vmad.s32.s32.u32.sat.shr7": 3, "vset.u32.s32.ge": 2,
    "vadd2.u32.u32.u32": 3, "vsub2.s32.s32.s32.add": 3, "vavrg2.u32.u32.u32.mask=h1": 3,
    "vabsdiff2.s32.u32.s32.sat": 3, "vmin2.u32.u32.u32": 3, "vmax2.s32.s32.s32": 3,
    "vset2.u32.u32.lt": 3, "vadd4.s32.s32.s32.sat": 3, "vsub4.u32.u32.u32": 3,
    "vavrg4.s32.s32.s32.asel=b7654.bsel=b3210": 3, "vabsdiff4.u32.u32.u32.add": 3, "vmin4.s32.u32.u32": 3,
    "vmax4.u32.u32.u32.mask=b10": 3, "vset4.s32.s32.eq.add": 3,
}


def test_every_modelled_opcode_has_a_supported_spelling_here() -> None:
    assert set(opcodes()) <= {spelling.split(".")[0] for spelling in SUPPORTED}


@pytest.mark.parametrize("spelling", list(SUPPORTED))
def test_supported_spellings_evaluate(spelling: str) -> None:
    warp = spelling.split(".")[0] in ("shfl", "vote", "match", "redux", "activemask", "elect")
    inputs = _inputs(SUPPORTED[spelling], 32 if warp else 6)
    if spelling.startswith("lop3"):
        inputs[-1] &= np.uint64(0xFF)
    result = run(spelling, *inputs)
    assert result.outputs
    # The model's own answer is always accepted by its own comparison.
    assert result.matches(*(out.bits for out in result.outputs)).all()


EDGE_SPELLINGS = list(SUPPORTED) + [
    "add.rn.f32", "sub.rz.ftz.f32", "mul.rm.f64", "div.rp.f32", "fma.rn.sat.f32", "sqrt.rz.f64",
    "rcp.rn.ftz.f32", "min.NaN.f16x2", "max.xorsign.abs.bf16", "cvt.rni.s64.f64", "cvt.rzi.u16.f16",
    "cvt.rn.bf16.f64", "cvt.rz.f16.f32", "cvt.rna.satfinite.tf32.f32", "setp.geu.ftz.f32",
    "set.nan.f32.f64", "testp.normal.f64", "atom.global.add.f32", "atom.inc.u32", "atom.dec.u32",
    "redux.sync.min.s32", "match.any.sync.b64", "bfe.s32", "szext.clamp.s32", "prmt.b32.b4e",
    "mad.hi.sat.s32", "mul24.lo.s32", "sad.s64", "cvt.pack.sat.s4.s32.b32", "lg2.approx.ftz.f32",
]


@pytest.mark.parametrize("spelling", EDGE_SPELLINGS)
def test_edge_operands_evaluate_and_accept_their_own_answer(spelling: str) -> None:
    ops = operands_for(spelling, 120, seed=7)
    if spelling.startswith("lop3"):
        ops[3] = ops[3] & np.uint32(0xFF)
    result = run(spelling, *ops)
    assert result.matches(*(out.bits for out in result.outputs)).all()
