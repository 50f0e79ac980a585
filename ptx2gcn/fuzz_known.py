"""Forms with known, not yet fixed bugs: the conformance suite marks them strict-xfail and the fuzzer
leaves them out of its instruction pool (``ptx2gcn fuzz --include-known`` puts them back).

Invariant: every entry names the failing instruction with inputs and the wrong/expected result, and
says whose bug it is (codegen, emulator, frontend, or an open model-vs-codegen question that a CUDA
golden output must settle). An entry is removed when its bug is fixed (strict xfail enforces this).
"""

from __future__ import annotations

_CODEGEN = "codegen: "
_MODEL_OR_CODEGEN = "model and codegen disagree (manual unclear; needs a CUDA golden): "
KNOWN_FAILURES: dict[str, str] = {
    "abs.f64": _MODEL_OR_CODEGEN + "abs.f64 of a negative NaN clears the sign; the model keeps the payload "
               "and sign (0xffffffffffffffff -> 0x7fffffffffffffff)",
    "atom.add.f32": _CODEGEN + "atom.add.f32 does not flush subnormal inputs/results to zero "
                    "(old 0x00800000 + 0x007fffff stores 0x00ffffff, PTX: 0x00800000)",
    "red.add.f32": _CODEGEN + "red.add.f32 does not flush subnormals (0x00800000 + 0x007fffff -> 0x00ffffff)",
    "div.full.f32": _CODEGEN + "div.full.f32 with a huge divisor returns inf (0x80800000 / 0x60c7c18d -> 0xff800000)",
    "div.full.ftz.f32": _CODEGEN + "div.full.ftz.f32 -1 / 0x7f7fffff returns inf",
    "div.rn.f32": _CODEGEN + "div.rn.f32 1 / FLT_MAX returns inf (expected 0x00200000)",
    "div.rn.ftz.f32": _CODEGEN + "div.rn.ftz.f32 0x00800000 / 0x6be7fb99 returns inf",
    "div.rn.f64": _CODEGEN + "div.rn.f64 with a huge divisor returns inf",
    "div.rz.f64": _CODEGEN + "div.rz.f64 1 / DBL_MAX returns DBL_MAX (expected 0x0004000000000000)",
    "div.rp.f64": _CODEGEN + "div.rp.f64 -1 / DBL_MAX returns -DBL_MAX",
    "fma.rm.f32": _CODEGEN + "fma.rm.f32 exact zero sum x*tiny + -0 rounds to -0 (0x58eb069 * 0x1 + -0: expected +0)",
    "fma.rz.f64": _CODEGEN + "fma.rz.f64 ignores a sub-ulp product (rounds as rn)",
    "fma.rm.f64": _CODEGEN + "fma.rm.f64 ignores a sub-ulp product (rounds as rn)",
    "fma.rp.f64": _CODEGEN + "fma.rp.f64 ignores a sub-ulp product (rounds as rn)",
    "mad.rz.f64": _CODEGEN + "mad.rz.f64 ignores a sub-ulp product (rounds as rn)",
    "mad.rm.f64": _CODEGEN + "mad.rm.f64 ignores a sub-ulp product (rounds as rn)",
    "mad.rp.f64": _CODEGEN + "mad.rp.f64 ignores a sub-ulp product (rounds as rn)",
    "fma.rn.sat.relu.f16": _CODEGEN + "fma.rn.sat.relu.f16 gives wrong results (0x4cdc*0x3e84+0x8001 -> 0x3c00, "
                           "expected 0x4fea); .sat with .relu is not a valid PTX combination either",
    "fma.rn.ftz.sat.relu.f16": _CODEGEN + "fma.rn.ftz.sat.relu.f16 wrong for NaN inputs",
    "fma.rn.sat.relu.f16x2": _CODEGEN + "fma.rn.sat.relu.f16x2 wrong results",
    "fma.rn.ftz.sat.relu.f16x2": _CODEGEN + "fma.rn.ftz.sat.relu.f16x2 wrong results",
    "mad.lo.u16": "emulator: v_mad_legacy_u16 has no semantics",
    "mad.lo.s16": "emulator: v_mad_legacy_u16 has no semantics",
    "rcp.rn.f32": _CODEGEN + "rcp.rn.f32 of -FLT_MAX returns -inf (expected 0x80200000)",
    "rcp.rn.ftz.f32": _CODEGEN + "rcp.rn.ftz.f32 of FLT_MAX returns inf (expected 0)",
    "rcp.rn.f64": _CODEGEN + "rcp.rn.f64 of DBL_MAX returns inf (expected 0x0004000000000000)",
    "rcp.rz.f64": _CODEGEN + "rcp.rz.f64 of -DBL_MAX returns -DBL_MAX",
    "rcp.rm.f64": _CODEGEN + "rcp.rm.f64 of DBL_MAX returns DBL_MAX",
    "rcp.rp.f64": _CODEGEN + "rcp.rp.f64 of DBL_MAX returns inf",
    "rcp.approx.ftz.f64": _MODEL_OR_CODEGEN + "rcp.approx.ftz.f64: low 32 result bits not zero "
                          "(model: zero_bits), NaN handling differs",
    "rsqrt.approx.ftz.f64": _MODEL_OR_CODEGEN + "rsqrt.approx.ftz.f64 of a negative: canonical NaN vs the "
                            "model's 0x7fffffff00000000",
    "tanh.approx.f16x2": _CODEGEN + "tanh.approx.f16x2 wrong elements (0x3cb99db7 -> 0x32090001, "
                         "expected about 0x3a9f/0x9db7)",
    "tanh.approx.bf16x2": _CODEGEN + "tanh.approx.bf16x2 of (-inf, NaN) wrong (0xff800001 -> 0x80000000)",
}
FRONTEND_INVALID: dict[str, str] = {
    **{f"{op}.{t}": f"frontend: '{op}.{t}' (PTX 8.0, sm_90) is called invalid: "
                    f"\"'{op}' needs exactly one type modifier, got none\""
       for op in ("add", "sub", "min", "max") for t in ("u16x2", "s16x2")},
    **{f"{op}.relu.s16x2": f"frontend: '{op}.relu.s16x2' is called invalid" for op in ("min", "max")},
}
