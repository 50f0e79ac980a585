"""Random (hypothesis) operands for 32-bit integer VALU ops against Python-integer models of the CDNA3
ISA pseudocode; each example runs the llvm-mc-assembled instruction on all 64 lanes."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptx2gcn.runtime.emulator.wave import Wave

M = 0xFFFFFFFF


def s32(x: int) -> int:
    return x - (1 << 32) if x >> 31 else x


def s24(x: int) -> int:
    x &= 0xFFFFFF
    return x - (1 << 24) if x >> 23 else x


MODELS: dict[str, Callable[[int, int, int], int]] = {
    "v_add_u32_e32 v3, v0, v1": lambda a, b, c: a + b,
    "v_subrev_u32_e32 v3, v0, v1": lambda a, b, c: b - a,
    "v_mul_lo_u32 v3, v0, v1": lambda a, b, c: a * b,
    "v_mul_hi_u32 v3, v0, v1": lambda a, b, c: (a * b) >> 32,
    "v_mul_hi_i32 v3, v0, v1": lambda a, b, c: (s32(a) * s32(b)) >> 32,
    "v_lshlrev_b32_e32 v3, v0, v1": lambda a, b, c: b << (a & 31),
    "v_lshrrev_b32_e32 v3, v0, v1": lambda a, b, c: b >> (a & 31),
    "v_ashrrev_i32_e32 v3, v0, v1": lambda a, b, c: s32(b) >> (a & 31),
    "v_bfe_u32 v3, v0, v1, v2": lambda a, b, c: (a >> (b & 31)) & ((1 << (c & 31)) - 1),
    "v_bfi_b32 v3, v0, v1, v2": lambda a, b, c: (a & b) | (~a & c),
    "v_alignbyte_b32 v3, v0, v1, v2": lambda a, b, c: (a << 32 | b) >> (8 * (c & 3)),
    "v_min_i32_e32 v3, v0, v1": lambda a, b, c: min(s32(a), s32(b)),
    "v_max_u32_e32 v3, v0, v1": lambda a, b, c: max(a, b),
    "v_xad_u32 v3, v0, v1, v2": lambda a, b, c: (a ^ b) + c,
    "v_add3_u32 v3, v0, v1, v2": lambda a, b, c: a + b + c,
    "v_lshl_or_b32 v3, v0, v1, v2": lambda a, b, c: (a << (b & 31)) | c,
    "v_and_or_b32 v3, v0, v1, v2": lambda a, b, c: (a & b) | c,
    "v_mul_u32_u24_e32 v3, v0, v1": lambda a, b, c: (a & 0xFFFFFF) * (b & 0xFFFFFF),
    "v_mul_hi_u32_u24_e32 v3, v0, v1": lambda a, b, c: ((a & 0xFFFFFF) * (b & 0xFFFFFF)) >> 32,
    "v_mad_i32_i24 v3, v0, v1, v2": lambda a, b, c: s24(a) * s24(b) + s32(c),
    "v_med3_i32 v3, v0, v1, v2": lambda a, b, c: sorted([s32(a), s32(b), s32(c)])[1],
    "v_sad_u32 v3, v0, v1, v2": lambda a, b, c: abs(a - b) + c,
}

words = st.lists(
    st.one_of(st.integers(0, M), st.sampled_from([0, 1, 31, 32, M, 0x80000000, 0x7FFFFFFF])),
    min_size=64,
    max_size=64,
)


@pytest.mark.parametrize("text", sorted(MODELS))
def test_random_operands(
    one_instruction: Callable[[str, Wave], Wave], make_wave: Callable[..., Wave], text: str
) -> None:
    model = MODELS[text]

    @settings(
        max_examples=15,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(words, words, words)
    def check(a: list[int], b: list[int], c: list[int]) -> None:
        w = make_wave(v0=a, v1=b, v2=c)
        one_instruction(text, w)
        assert w.v[3].tolist() == [model(x, y, z) & M for x, y, z in zip(a, b, c)]

    check()
