"""The approximate VALU instructions against their documented bounds, under both policies.

Each opcode of ``APPROX_BOUNDS`` runs (assembled by llvm-mc, one instruction on one wave) over the
PTX reference model's edge-biased samples plus uniformly random bit patterns, and every lane is
checked here, independently of the emulator's numpy code, with Python's ``math``: specials exactly
(NaN, infinities, zeros, overflow), ordinary lanes within ``max(ulps * ULP(exact), absolute)``
(nominal: within half an ULP, i.e. correctly rounded), flushed formats allowing a signed zero for a
result below the smallest normal. The adversarial policy must also be deterministic per seed,
differ between seeds, and actually leave the correctly rounded value on some lanes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.approx import (
    APPROX_BOUNDS,
    NOMINAL,
    ApproxPolicy,
    approx_from_environment,
)
from ptx2gcn.runtime.emulator.wave import Wave

sampling = pytest.importorskip("ptx2gcn.reference.sampling")

# type -> (bits, mantissa bits, smallest normal exponent, max finite, a PTX form whose samples have this type)
FORMATS = {
    "f16": (16, 10, -14, 65504.0, "add.rn.f16"),
    "f32": (32, 23, -126, float(np.finfo(np.float32).max), "add.rn.f32"),
    "f64": (64, 52, -1022, float(np.finfo(np.float64).max), "add.rn.f64"),
}
_UNPACK = {16: np.float16, 32: np.float32, 64: np.float64}


def _exact(body: str, x: float) -> float:
    """The mathematical result in float64 (specials as IEEE and the ISA's examples give them)."""
    if math.isnan(x):
        return math.nan
    if body in ("rcp", "rcp_iflag"):
        return math.copysign(math.inf, x) if x == 0 else 1.0 / x
    if body == "sqrt":
        return x if x == 0 or x == math.inf else math.nan if x < 0 else math.sqrt(x)
    if body == "rsq":
        if x == 0:
            return math.copysign(math.inf, x)
        return math.nan if x < 0 else 0.0 if x == math.inf else 1.0 / math.sqrt(x)
    if body in ("exp", "exp_legacy"):
        try:
            return 2.0**x
        except OverflowError:
            return math.inf
    if body in ("log", "log_legacy"):
        return -math.inf if x == 0 else math.nan if x < 0 else math.log2(x)
    if math.isinf(x):
        return math.nan
    turns = x - round(x)
    return math.sin(2 * math.pi * turns) if body == "sin" else math.cos(2 * math.pi * turns)


def _ulp(value: float, mant_bits: int, emin: int) -> float:
    exponent = emin if value == 0 else math.frexp(abs(value))[1] - 1
    return 2.0 ** (max(exponent, emin) - mant_bits)


def _check_lane(opcode: str, x: float, got: float, nominal: bool) -> str | None:
    body, type_name = opcode.removeprefix("v_").rsplit("_", 1)
    bound = APPROX_BOUNDS[opcode]
    _, mant_bits, emin, largest, _ = FORMATS[type_name]
    tiny = 2.0**emin
    if bound.flushes and 0 < abs(x) < tiny:
        x = math.copysign(0.0, x)
    exact = _exact(body, x)
    if math.isnan(exact):
        return None if math.isnan(got) else "expected NaN"
    if math.isinf(x) or x == 0 or math.isinf(exact):
        same = got == exact and math.copysign(1, got) == math.copysign(1, exact)
        return None if same else f"expected the special {exact!r}"
    if abs(exact) > largest + _ulp(largest, mant_bits, emin) / 2:
        return None if got == math.copysign(math.inf, exact) else "expected overflow to infinity"
    if bound.flushes and got == 0 and abs(exact) < tiny * (1 + 2.0**-20):
        return None
    if math.isnan(got) or math.isinf(got):
        return f"{got!r} for a finite exact value {exact!r}"
    if bound.flushes and 0 < abs(got) < tiny:
        return "a denormal result from an instruction that flushes them"
    ulp = _ulp(exact, mant_bits, emin)
    allowed = 0.5 * ulp if nominal else max(bound.ulps * ulp, bound.absolute)
    error = abs(got - exact)
    if error > allowed * (1 + 2.0**-40):
        return f"error {error / ulp:.3f} ULP of exact {exact!r} (allowed {allowed / ulp:.3f})"
    return None


def _instruction(opcode: str) -> str:
    type_name = opcode.rsplit("_", 1)[1]
    return f"{opcode}_e32 v[4:5], v[0:1]" if type_name == "f64" else f"{opcode}_e32 v3, v0"


def _inputs(type_name: str, seed: int) -> np.ndarray:
    """Edge-biased samples of the type, then uniformly random bit patterns, 64 lanes each."""
    bits, _, _, _, form = FORMATS[type_name]
    edge = np.asarray(sampling.operands_for(form, 64, seed)[0]).astype(np.uint64)
    rng = np.random.default_rng(seed)
    uniform = rng.integers(0, 1 << bits, 64, dtype=np.uint64) if bits < 64 else rng.integers(
        0, 1 << 63, 64, dtype=np.uint64
    ) * np.uint64(2) + rng.integers(0, 2, 64, dtype=np.uint64)
    return np.concatenate([edge, uniform])


def _run(
    one_instruction: Callable[[str, Wave], Wave],
    make_wave: Callable[..., Wave],
    opcode: str,
    lanes: np.ndarray,
    policy: ApproxPolicy,
) -> np.ndarray:
    wave = make_wave()
    wave.approx = policy
    if lanes.dtype.itemsize == 8 and opcode.endswith("_f64"):
        wave.v[0] = (lanes & 0xFFFFFFFF).astype(np.uint32)
        wave.v[1] = (lanes >> np.uint64(32)).astype(np.uint32)
        one_instruction(_instruction(opcode), wave)
        return wave.v[4].astype(np.uint64) | wave.v[5].astype(np.uint64) << np.uint64(32)
    wave.v[0] = lanes.astype(np.uint32)
    one_instruction(_instruction(opcode), wave)
    return wave.v[3].copy()


def _values(raw: np.ndarray, bits: int) -> list[float]:
    unsigned = {16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    return [float(v) for v in np.asarray(raw).astype(unsigned).view(_UNPACK[bits])]


@pytest.mark.parametrize("policy", [NOMINAL, ApproxPolicy("adversarial", 7)], ids=["nominal", "adversarial"])
@pytest.mark.parametrize("opcode", sorted(APPROX_BOUNDS))
def test_within_documented_bound(
    one_instruction: Callable[[str, Wave], Wave],
    make_wave: Callable[..., Wave],
    opcode: str,
    policy: ApproxPolicy,
) -> None:
    type_name = opcode.rsplit("_", 1)[1]
    bits = FORMATS[type_name][0]
    failures = []
    for seed in range(2):
        all_lanes = _inputs(type_name, seed)
        for start in (0, 64):
            lanes = all_lanes[start : start + 64]
            got = _run(one_instruction, make_wave, opcode, lanes, policy)
            for x, g, raw in zip(_values(lanes, bits), _values(got, bits), got):
                problem = _check_lane(opcode, x, g, not policy.adversarial)
                if problem:
                    failures.append(f"{opcode}({x!r}) = {g!r} ({int(raw):#x}): {problem}")
    assert not failures, "\n".join(failures[:10])


@pytest.mark.parametrize("opcode", ["v_sqrt_f32", "v_rcp_f64", "v_exp_f16", "v_sin_f32"])
def test_adversarial_is_seeded_and_moves_results(
    one_instruction: Callable[[str, Wave], Wave], make_wave: Callable[..., Wave], opcode: str
) -> None:
    type_name = opcode.rsplit("_", 1)[1]
    rng = np.random.default_rng(3)
    lanes = {
        "f32": rng.uniform(0.01, 100, 64).astype(np.float32).view(np.uint32),
        "f16": rng.uniform(-8, 8, 64).astype(np.float16).view(np.uint16).astype(np.uint32),
        "f64": rng.uniform(0.01, 100, 64).view(np.uint64),
    }[type_name]
    nominal = _run(one_instruction, make_wave, opcode, lanes, NOMINAL)
    first = _run(one_instruction, make_wave, opcode, lanes, ApproxPolicy("adversarial", 1))
    again = _run(one_instruction, make_wave, opcode, lanes, ApproxPolicy("adversarial", 1))
    other = _run(one_instruction, make_wave, opcode, lanes, ApproxPolicy("adversarial", 2))
    assert (first == again).all()
    assert (first != other).any()
    assert (first != nominal).sum() >= 16


def test_flushed_instruction_flushes_under_ieee_mode(
    one_instruction: Callable[[str, Wave], Wave], make_wave: Callable[..., Wave]
) -> None:
    """v_sqrt_f32 flushes a denormal input although MODE keeps denormals (the ISA note); v_sqrt_f64
    keeps them."""
    wave = make_wave()
    assert wave.mode.denorm_32 == 3
    wave.v[0] = np.uint32(0x00000400)  # 2^-139
    one_instruction("v_sqrt_f32_e32 v3, v0", wave)
    assert int(wave.v[3][0]) == 0
    wave.v[0], wave.v[1] = np.uint32(1), np.uint32(0)  # 2^-1074
    one_instruction("v_sqrt_f64_e32 v[4:5], v[0:1]", wave)
    assert int(wave.v[4][0]) | int(wave.v[5][0]) << 32 == 0x1E60000000000000  # 2^-537


def test_sin_of_a_huge_integer_is_zero(
    one_instruction: Callable[[str, Wave], Wave], make_wave: Callable[..., Wave]
) -> None:
    """The guide's example: V_SIN_F32(-MaxFloat) = 0 (every such float is a whole number of turns)."""
    wave = make_wave()
    wave.v[0] = np.uint32(0xFF7FFFFF)
    one_instruction("v_sin_f32_e32 v3, v0", wave)
    assert int(wave.v[3][0]) & 0x7FFFFFFF == 0


def test_policy_from_environment() -> None:
    assert approx_from_environment({}) == NOMINAL
    assert approx_from_environment({"PTX2GCN_EMU_APPROX": "Adversarial", "PTX2GCN_EMU_APPROX_SEED": "0x10"}) == (
        ApproxPolicy("adversarial", 16)
    )
    with pytest.raises(ValueError, match="PTX2GCN_EMU_APPROX: .*'sloppy'"):
        approx_from_environment({"PTX2GCN_EMU_APPROX": "sloppy"})
    with pytest.raises(ValueError, match="PTX2GCN_EMU_APPROX_SEED='x'"):
        approx_from_environment({"PTX2GCN_EMU_APPROX_SEED": "x"})


def test_underflow_to_zero_stays_zero(
    one_instruction: Callable[[str, Wave], Wave], make_wave: Callable[..., Wave]
) -> None:
    """exp2 of a large negative input is 0 up to a sign, also adversarially (the bound of an exact
    zero is the smallest denormal's spacing, flushed for v_exp_f32)."""
    lanes = np.linspace(-1e6, -200, 64).astype(np.float32).view(np.uint32)
    for opcode in ("v_exp_f32", "v_exp_f16"):
        got = _run(one_instruction, make_wave, opcode, lanes if opcode.endswith("f32") else
                   np.linspace(-3e4, -50, 64).astype(np.float16).view(np.uint16).astype(np.uint32),
                   ApproxPolicy("adversarial", 5))
        magnitude = got & (0x7FFFFFFF if opcode.endswith("f32") else 0x7FFF)
        assert (magnitude == 0).all(), opcode


@pytest.mark.parametrize("text", ["v_rcp_f32_e32 v3, s0", "v_sqrt_f32_e32 v3, 0x40400000",
                                  "v_exp_f16_e32 v3, 0.5", "v_rsq_f64_e32 v[4:5], s[0:1]"])
def test_lane_uniform_operands(
    one_instruction: Callable[[str, Wave], Wave], make_wave: Callable[..., Wave], text: str
) -> None:
    """An SGPR or constant source (a numpy scalar, not 64 lanes) gets one pick, written to every lane."""
    for policy in (NOMINAL, ApproxPolicy("adversarial", 11)):
        wave = make_wave()
        wave.approx = policy
        wave.s[0], wave.s[1] = 0x40400000, 0x40080000  # 3.0f; the pair is 3.0 as f64
        one_instruction(text, wave)
        rows = wave.v[4:6] if "f64" in text else wave.v[3:4]
        assert (rows == rows[:, :1]).all()
