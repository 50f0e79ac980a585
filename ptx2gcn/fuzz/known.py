"""Forms with known, not yet fixed bugs: the conformance suite marks them strict-xfail and the fuzzer
leaves them out of its instruction pool (``ptx2gcn fuzz --include-known`` puts them back).

Invariant: every entry names the failing instruction with inputs and the wrong/expected result, and
says whose bug it is (codegen, emulator, frontend, or an open model-vs-codegen question that a CUDA
golden output must settle). An entry is removed when its bug is fixed (strict xfail enforces this).
"""

from __future__ import annotations

_CODEGEN = "codegen: "
KNOWN_FAILURES: dict[str, str] = {
}
FRONTEND_INVALID: dict[str, str] = {}
KNOWN_RANDOM_DATA: dict[str, str] = {}
"""Warp-matrix forms whose edge-biased data hits a known bug: the fuzzer gives them small-integer
data only (``--include-known``: any data)."""

FAILING_INPUTS: dict[str, tuple[tuple[int, ...], ...]] = {
    # spelling -> operand bit patterns (PTX source order) that exposed a bug; the conformance suite
    # runs them in every launch of the form, fixed or not, so each stays a regression test
    "abs.f64": ((0xFFFFFFFFFFFFFFFF,), (0xFFF0000000000001,)),
    "atom.add.f32": ((0x00800000, 0x007FFFFF),),
    "red.add.f32": ((0x00800000, 0x007FFFFF),),
    "div.full.f32": ((0x80800000, 0x60C7C18D),),
    "div.full.ftz.f32": ((0xBF800000, 0xFF7FFFFF),),
    "div.rn.f32": ((0x3F800000, 0x7F7FFFFF),),
    "div.rn.ftz.f32": ((0x00800000, 0x6BE7FB99),),
    "div.rn.f64": ((0x000FFFFFFFFFFFFF, 0x7D495D5DDADDD55E),),
    "div.rz.f64": ((0x3FF0000000000000, 0x7FEFFFFFFFFFFFFF),),
    "div.rm.f64": ((0x1, 0x7EA74E4355E0A3C7), (0x8010000000000000, 0x7E846AF9B6D788F5)),
    "fma.rm.ftz.f32": ((0x80800000, 0x8CFC4C3A, 0x80000001),),
    "mad.rm.ftz.f32": ((0x26521164, 0x0B38D0DF, 0x80000001),),
    "fma.rn.bf16x2": ((0x87ADCB4C, 0x83213760, 0xF6299AE4),),
    "fma.rn.relu.bf16x2": ((0xBD1289AE, 0x8ACDECC0, 0xFF800001),),
    "div.rp.f64": ((0xBFF0000000000000, 0x7FEFFFFFFFFFFFFF),),
    "fma.rm.f32": ((0x058EB069, 0x00000001, 0x80000000),),
    "mad.rm.f32": ((0x007FFFFF, 0x30EC42CE, 0x80000000),),
    "fma.rz.f64": ((0x05E97FFD612979FD, 0x80A508D514A09D61, 0x5E2D6319202D15C6),),
    "fma.rm.f64": ((0x19DD7A9D7B5CB403, 0x8000000000000001, 0x0DE8E68AA25AFDD9),),
    "fma.rp.f64": ((0x15BE5CF8B7A7EF73, 0x20219F125B06850F, 0xD3D61E8BE38BFB76),),
    "mad.rz.f64": ((0x1, 0x1, 0x9EA8CFF2D72EDCF7),),
    "mad.rm.f64": ((0x1, 0x800FFFFFFFFFFFFF, 0xA465EE45CAD877BA),),
    "mad.rp.f64": ((0x1, 0x1D6853890A7E1B96, 0x000FFFFFFFFFFFFF),),
    "fma.rn.f64": (
        (0x7FF0000000000000, 0x0, 0x7FFFFFFFFFFFFFFF),
        (0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x7FF0000000000000),
        (0x7F1134CEF5458D78, 0x63848A98D582CA0B, 0xFFF0000000000000),
    ),
    "mad.rn.f64": (
        (0x7FF0000000000000, 0x0, 0x7FFFFFFFFFFFFFFF),
        (0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x7FF0000000000000),
    ),
    "fma.rn.bf16": ((0x2D50, 0x6468, 0x0F86),),
    "fma.rn.relu.bf16": ((0x0510, 0x629C, 0x85B8), (0x0B14, 0x6250, 0x0256)),
    "rcp.rn.f32": ((0xFF7FFFFF,),),
    "rcp.rn.ftz.f32": ((0x7F7FFFFF,),),
    "rcp.rn.f64": ((0x7FEFFFFFFFFFFFFF,),),
    "rcp.rz.f64": ((0xFFEFFFFFFFFFFFFF,),),
    "rcp.rm.f64": ((0x7FEFFFFFFFFFFFFF,),),
    "rcp.rp.f64": ((0x7FEFFFFFFFFFFFFF,),),
    "rcp.approx.ftz.f64": ((0xB7F1069396DB6F0C,),),
    "rsqrt.approx.ftz.f64": ((0xBEA999E6F06A5F90,),),
    "tanh.approx.f16": ((0x5181,),),
    "tanh.approx.bf16": ((0x4231,),),
    "tanh.approx.f16x2": ((0x3CB99DB7,),),
    "tanh.approx.bf16x2": ((0xFF800001,),),
}
