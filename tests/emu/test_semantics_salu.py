"""Scalar ALU and program-control semantics (llvm-mc vectors) against Python models of the CDNA3 ISA text."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ptx2gcn.runtime.emulator.wave import Wave, WaveState

Run = Callable[[str, Wave], Wave]
M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1
EDGES = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x12345678, 0xFFFF0000]
PAIRS = [(a, b) for a in EDGES for b in EDGES]


def s32(x: int) -> int:
    return x - (1 << 32) if x >> 31 else x


@pytest.fixture
def wave(make_wave: Callable[..., Wave]) -> Wave:
    return make_wave()


# name -> model (a, b, scc_in) -> (d, scc_out) written from the ISA pseudocode
SOP2_MODELS: dict[str, Callable[[int, int, int], tuple[int, int | None]]] = {
    "s_add_u32": lambda a, b, c: ((a + b) & M32, int(a + b >= 1 << 32)),
    "s_sub_u32": lambda a, b, c: ((a - b) & M32, int(b > a)),
    "s_addc_u32": lambda a, b, c: ((a + b + c) & M32, int(a + b + c >= 1 << 32)),
    "s_subb_u32": lambda a, b, c: ((a - b - c) & M32, int(b + c > a)),
    "s_add_i32": lambda a, b, c: ((a + b) & M32, int(not -(2**31) <= s32(a) + s32(b) < 2**31)),
    "s_sub_i32": lambda a, b, c: ((a - b) & M32, int(not -(2**31) <= s32(a) - s32(b) < 2**31)),
    "s_min_i32": lambda a, b, c: ((a if s32(a) < s32(b) else b), int(s32(a) < s32(b))),
    "s_max_u32": lambda a, b, c: (max(a, b), int(a > b)),
    "s_lshl_b32": lambda a, b, c: ((a << (b & 31)) & M32, int((a << (b & 31)) & M32 != 0)),
    "s_ashr_i32": lambda a, b, c: ((s32(a) >> (b & 31)) & M32, int(s32(a) >> (b & 31) != 0)),
    "s_mul_i32": lambda a, b, c: ((a * b) & M32, None),
    "s_mul_hi_i32": lambda a, b, c: (((s32(a) * s32(b)) >> 32) & M32, None),
    "s_andn2_b32": lambda a, b, c: (a & ~b & M32, int(a & ~b & M32 != 0)),
    "s_bfm_b32": lambda a, b, c: ((((1 << (a & 31)) - 1) << (b & 31)) & M32, None),
    "s_cselect_b32": lambda a, b, c: (a if c else b, None),
    "s_lshl2_add_u32": lambda a, b, c: (((a << 2) + b) & M32, int(((a << 2) + b) >= 1 << 32)),
}


@pytest.mark.parametrize("name", sorted(SOP2_MODELS))
@pytest.mark.parametrize("scc", [0, 1])
def test_sop2_against_model(
    one_instruction: Run, make_wave: Callable[..., Wave], name: str, scc: int
) -> None:
    for a, b in PAIRS:
        w = make_wave()
        w.s[1], w.s[2], w.scc = a, b, scc
        one_instruction(f"{name} s3, s1, s2", w)
        d, scc_out = SOP2_MODELS[name](a, b, scc)
        assert w.s[3] == d, (name, hex(a), hex(b))
        assert w.scc == (scc if scc_out is None else scc_out), (name, hex(a), hex(b))


def test_bfe_field_from_second_operand(one_instruction: Run, wave: Wave) -> None:
    wave.s[1] = 0xF0F0_1234
    wave.s[2] = 12 << 16 | 20  # width 12 at offset 20
    one_instruction("s_bfe_i32 s3, s1, s2", wave)
    field = (0xF0F01234 >> 20) & 0xFFF
    assert wave.s[3] == (field - (1 << 12)) & M32 and wave.scc == 1
    wave.s[4], wave.s[5] = 0x89ABCDEF, 0x01234567
    wave.s[6] = 16 << 16 | 28
    one_instruction("s_bfe_u64 s[8:9], s[4:5], s6", wave)
    assert wave.sreg64(8) == (0x0123456789ABCDEF >> 28) & 0xFFFF


def test_sop1_bit_operations(one_instruction: Run, wave: Wave) -> None:
    wave.s[0], wave.s[1] = 0x00000000, 0x00010000
    one_instruction("s_ff1_i32_b64 s2, s[0:1]", wave)
    assert wave.s[2] == 48
    one_instruction("s_bcnt1_i32_b64 s3, s[0:1]", wave)
    assert wave.s[3] == 1 and wave.scc == 1
    wave.s[4] = 0x00F00000
    one_instruction("s_flbit_i32_b32 s5, s4", wave)
    assert wave.s[5] == 8
    one_instruction("s_brev_b32 s6, s4", wave)
    assert wave.s[6] == int(f"{0x00F00000:032b}"[::-1], 2)
    wave.s[7] = 0
    one_instruction("s_ff1_i32_b32 s8, s7", wave)
    assert wave.s[8] == M32
    wave.s[10], wave.s[11] = M32, M32
    one_instruction("s_bitset0_b64 s[10:11], 35", wave)
    assert wave.sreg64(10) == M64 & ~(1 << 35)


def test_saveexec_family(one_instruction: Run, wave: Wave) -> None:
    wave.set_exec(0xFFFF_0000_FFFF_0000)
    wave.s[4], wave.s[5] = 0x0F0F_0F0F, 0x0000_FFFF
    one_instruction("s_and_saveexec_b64 s[2:3], s[4:5]", wave)
    assert wave.sreg64(2) == 0xFFFF_0000_FFFF_0000
    assert wave.exec == 0x0000_FFFF_0F0F_0F0F & 0xFFFF_0000_FFFF_0000 and wave.scc == 1
    assert int(wave.exec_mask.sum()) == bin(wave.exec).count("1")
    one_instruction("s_andn2_saveexec_b64 s[6:7], s[4:5]", wave)
    assert wave.exec == 0x0000_FFFF_0F0F_0F0F & ~0x0000_0000_0F0F_0000 & M64


def test_scalar_compares_and_sopk(one_instruction: Run, wave: Wave) -> None:
    wave.s[1], wave.s[2] = 0xFFFFFFFF, 1
    one_instruction("s_cmp_lt_i32 s1, s2", wave)
    assert wave.scc == 1
    one_instruction("s_cmp_lt_u32 s1, s2", wave)
    assert wave.scc == 0
    one_instruction("s_movk_i32 s3, 0x8000", wave)
    assert wave.s[3] == 0xFFFF8000
    one_instruction("s_cmpk_eq_u32 s2, 0x1", wave)
    assert wave.scc == 1
    wave.s[4] = 0x7FFFFFFF
    one_instruction("s_addk_i32 s4, 0x1", wave)
    assert wave.s[4] == 0x80000000 and wave.scc == 1


def test_pc_instructions_and_branches(one_instruction: Run, wave: Wave) -> None:
    one_instruction("s_getpc_b64 s[0:1]", wave)
    assert wave.sreg64(0) == 4  # the address of the next instruction
    wave.s[2], wave.s[3] = 0x1000, 0x1
    one_instruction("s_swappc_b64 s[4:5], s[2:3]", wave)
    assert wave.pc == 0x1_0000_1000 and wave.sreg64(4) == 4
    wave.set_exec(0)
    one_instruction("s_cbranch_execz 3", wave)
    assert wave.pc == 4 + 12
    one_instruction("s_branch -2", wave)
    assert wave.pc == 4 - 8
    one_instruction("s_barrier", wave)
    assert wave.state is WaveState.BARRIER


def test_scalar_load_with_offsets(one_instruction: Run, wave: Wave) -> None:
    base = wave.memory.alloc(64)
    wave.memory.write(base, bytes(range(64)))
    wave.s[0], wave.s[1] = base & M32, base >> 32
    one_instruction("s_load_dwordx2 s[4:5], s[0:1], 0x8", wave)
    assert wave.s[4] == int.from_bytes(bytes(range(8, 12)), "little")
    assert wave.s[5] == int.from_bytes(bytes(range(12, 16)), "little")
    wave.s[6] = 16
    one_instruction("s_load_dword s7, s[0:1], s6", wave)
    assert wave.s[7] == int.from_bytes(bytes(range(16, 20)), "little")


def test_memtime_is_a_monotonic_64_bit_counter(one_instruction: Run, wave: Wave) -> None:
    one_instruction("s_memtime s[0:1]", wave)
    first = wave.sreg64(0)
    one_instruction("s_dcache_wb", wave)  # cache maintenance: no effect on the emulator's state
    one_instruction("s_memrealtime s[2:3]", wave)
    one_instruction("s_memtime s[4:5]", wave)
    assert 0 <= first <= wave.sreg64(4) and wave.sreg64(2) >= 0
