"""Memory instruction semantics (llvm-mc vectors): global/flat/scratch addressing, aperture routing,
atomics returning pre-op values, DS reads/writes/atomics and the DS lane permutes."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.memory import PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE
from ptx2gcn.runtime.emulator.wave import Wave

Run = Callable[[str, Wave], Wave]


@pytest.fixture
def wave(make_wave: Callable[..., Wave]) -> Wave:
    return make_wave()


def set_pair(w: Wave, row: int, values: np.ndarray) -> None:
    values = np.asarray(values, dtype=np.uint64)
    w.v[row] = (values & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    w.v[row + 1] = (values >> np.uint64(32)).astype(np.uint32)


def test_global_saddr_plus_vgpr_offset_and_negative_immediate(one_instruction: Run, wave: Wave) -> None:
    base = wave.memory.alloc(1024)
    wave.memory.write(base, np.arange(256, dtype=np.uint32).tobytes())
    wave.s[4], wave.s[5] = base & 0xFFFFFFFF, base >> 32
    wave.v[2] = np.arange(64) * 4 + 8
    one_instruction("global_load_dword v1, v2, s[4:5] offset:-8", wave)
    assert wave.v[1].tolist() == list(range(64))


def test_global_atomic_add_returns_old_values_lane_by_lane(one_instruction: Run, wave: Wave) -> None:
    """Pitfall 1: every lane adds 1 to the same word and gets the value before its own add."""
    counter = wave.memory.alloc(4)
    set_pair(wave, 2, np.full(64, counter))
    wave.v[4] = 1
    one_instruction("global_atomic_add v3, v[2:3], v4, off sc0", wave)
    assert wave.v[3].tolist() == list(range(64))
    assert int.from_bytes(wave.memory.read(counter, 4), "little") == 64


def test_global_atomic_cmpswap_data_then_compare(one_instruction: Run, wave: Wave) -> None:
    cells = wave.memory.alloc(4 * 64)
    wave.memory.write(cells, np.arange(64, dtype=np.uint32).tobytes())
    set_pair(wave, 2, cells + 4 * np.arange(64, dtype=np.uint64))
    wave.v[4] = 1000  # new value
    wave.v[5] = np.where(np.arange(64) % 2 == 0, np.arange(64), 999)  # compare: matches on even lanes
    one_instruction("global_atomic_cmpswap v1, v[2:3], v[4:5], off sc0", wave)
    stored = np.frombuffer(wave.memory.read(cells, 256), np.uint32)
    assert stored.tolist() == [1000 if i % 2 == 0 else i for i in range(64)]
    assert wave.v[1].tolist() == list(range(64))


def test_flat_routes_each_lane_by_aperture(one_instruction: Run, wave: Wave) -> None:
    buffer = wave.memory.alloc(512)
    wave.memory.write(buffer, np.full(64, 0x1111, np.uint32).tobytes())
    wave.group.lds.data[:256] = np.frombuffer(np.full(64, 0x2222, np.uint32).tobytes(), np.uint8)
    wave.scratch.data[:, 8:12] = np.frombuffer(np.uint32(0x3333).tobytes(), np.uint8)
    lane = np.arange(64, dtype=np.uint64)
    addresses = np.select(
        [lane % 3 == 0, lane % 3 == 1],
        [np.uint64(buffer) + 4 * lane, np.uint64(SHARED_APERTURE_BASE) + 4 * lane],
        np.uint64(PRIVATE_APERTURE_BASE) + np.uint64(8),
    )
    set_pair(wave, 2, addresses)
    one_instruction("flat_load_dword v1, v[2:3]", wave)
    assert wave.v[1].tolist() == [(0x1111, 0x2222, 0x3333)[i % 3] for i in range(64)]
    wave.v[4] = 0xABCD0000 + np.arange(64)
    one_instruction("flat_store_dword v[2:3], v4 offset:4", wave)
    assert int(wave.scratch.data[2, 12:16].view(np.uint32)[0]) == 0xABCD0002
    assert int(wave.group.lds.data[8:12].view(np.uint32)[0]) == 0xABCD0001


def test_scratch_modes_are_per_lane(one_instruction: Run, wave: Wave) -> None:
    wave.v[1] = np.arange(64) + 7
    wave.s[32] = 16
    one_instruction("scratch_store_dword off, v1, s32 offset:4", wave)
    assert (wave.scratch.data[:, 20:24].view(np.uint32)[:, 0] == np.arange(64) + 7).all()
    wave.v[2] = np.arange(64) % 2 * 4
    one_instruction("scratch_load_dword v3, v2, off offset:16", wave)  # lane-private: odd lanes read +20
    assert wave.v[3].tolist() == [0 if i % 2 == 0 else 7 + i for i in range(64)]


def test_sub_dword_loads_extend_and_d16_preserves(one_instruction: Run, wave: Wave) -> None:
    buffer = wave.memory.alloc(4)
    wave.memory.write(buffer, bytes([0x80, 0xFF, 0x7F, 0x01]))
    set_pair(wave, 2, np.full(64, buffer))
    one_instruction("global_load_sbyte v4, v[2:3], off", wave)
    one_instruction("global_load_ushort v5, v[2:3], off", wave)
    wave.v[6] = 0x12345678
    one_instruction("global_load_short_d16_hi v6, v[2:3], off offset:2", wave)
    assert (wave.v[4] == 0xFFFFFF80).all() and (wave.v[5] == 0xFF80).all() and (wave.v[6] == 0x017F5678).all()


def test_out_of_range_lds_access_faults(one_instruction: Run, wave: Wave) -> None:
    from ptx2gcn.runtime.emulator.errors import AccessFault

    wave.v[1] = np.arange(64) * 32  # 1024 bytes of LDS: lane 32 is the first outside
    with pytest.raises(AccessFault, match="lane 32: lds access of 4 bytes at 0x400: outside"):
        one_instruction("ds_read_b32 v2, v1", wave)


def test_ds_write_read2_st64_and_b16_hi(one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    from ptx2gcn.runtime.emulator.memory import Lds

    wave = make_wave()
    wave.group.lds = Lds(64 * 1024)
    wave.v[1] = np.arange(64) * 4
    wave.v[2] = np.arange(64) + 100
    wave.v[3] = np.arange(64) + 200
    one_instruction("ds_write2st64_b32 v1, v2, v3 offset1:1", wave)
    one_instruction("ds_read2st64_b32 v[4:5], v1 offset1:1", wave)
    assert wave.v[4].tolist() == list(range(100, 164)) and wave.v[5].tolist() == list(range(200, 264))
    lds = wave.group.lds.data
    assert int(lds[256:260].view(np.uint32)[0]) == 200  # offset1 * 64 * 4 bytes
    wave.v[6] = 0xBEEF0000
    one_instruction("ds_write_b16_d16_hi v1, v6 offset:2", wave)
    assert int(lds[2:4].view(np.uint16)[0]) == 0xBEEF


def test_ds_atomics_return_old_values_and_cmpst_order(one_instruction: Run, wave: Wave) -> None:
    wave.v[1] = 0  # all lanes hit address 0
    wave.v[2] = 2
    one_instruction("ds_add_rtn_u32 v3, v1, v2", wave)
    assert wave.v[3].tolist() == [2 * i for i in range(64)]
    assert int(wave.group.lds.data[:4].view(np.uint32)[0]) == 128
    wave.v[4] = 128 + 2 * np.arange(64) * 0  # compare value (data0): only the first lane matches 128
    wave.v[5] = 7  # new value (data1)
    one_instruction("ds_cmpst_rtn_b32 v6, v1, v4, v5", wave)
    assert wave.v[6, 0] == 128 and (wave.v[6, 1:] == 7).all()


def test_bpermute_permute_and_swizzle(one_instruction: Run, wave: Wave) -> None:
    wave.v[2] = np.arange(64) + 1000
    wave.v[1] = ((np.arange(64) + 5) % 64) * 4
    wave.set_exec(~(1 << 10) & ((1 << 64) - 1))  # lane 10 inactive: its value reads as 0
    one_instruction("ds_bpermute_b32 v3, v1, v2", wave)
    expected = [0 if (i + 5) % 64 == 10 else 1000 + (i + 5) % 64 for i in range(64)]
    assert [int(v) for k, v in enumerate(wave.v[3]) if k != 10] == [
        e for k, e in enumerate(expected) if k != 10
    ]
    wave.set_exec((1 << 64) - 1)
    one_instruction("ds_permute_b32 v4, v1, v2", wave)
    assert wave.v[4].tolist() == [1000 + (i - 5) % 64 for i in range(64)]
    one_instruction("ds_swizzle_b32 v5, v2 offset:swizzle(SWAP,1)", wave)
    assert wave.v[5].tolist() == [1000 + (i ^ 1) for i in range(64)]
    one_instruction("ds_swizzle_b32 v6, v2 offset:swizzle(QUAD_PERM,0,0,3,3)", wave)
    assert wave.v[6].tolist() == [1000 + (i & ~3) + (0, 0, 3, 3)[i & 3] for i in range(64)]
    one_instruction("ds_swizzle_b32 v7, v2 offset:swizzle(BROADCAST,8,2)", wave)
    assert wave.v[7].tolist() == [1000 + (i & 32) + ((i & 31) & ~7) + 2 for i in range(64)]


def test_one_instruction_may_touch_several_allocations(one_instruction: Run, wave: Wave) -> None:
    first, second = wave.memory.alloc(256), wave.memory.alloc(256)
    wave.memory.write(first, np.arange(64, dtype=np.uint32).tobytes())
    wave.memory.write(second, (np.arange(64, dtype=np.uint32) + 1000).tobytes())
    lane = np.arange(64, dtype=np.uint64)
    set_pair(wave, 2, np.where(lane % 2 == 0, np.uint64(first), np.uint64(second)) + 4 * lane)
    one_instruction("global_load_dword v1, v[2:3], off", wave)
    assert wave.v[1].tolist() == [i if i % 2 == 0 else 1000 + i for i in range(64)]
    wave.v[4] = 7
    one_instruction("global_atomic_add v5, v[2:3], v4, off sc0", wave)
    assert wave.v[5].tolist() == wave.v[1].tolist()
    after_add = [np.frombuffer(wave.memory.read(b, 256), np.uint32).copy() for b in (first, second)]
    assert after_add[0][::2].tolist() == [i + 7 for i in range(0, 64, 2)]
    assert after_add[1][1::2].tolist() == [1000 + i + 7 for i in range(1, 64, 2)]
    one_instruction("global_store_dword v[2:3], v5, off", wave)
    assert np.frombuffer(wave.memory.read(second, 256), np.uint32)[1::2].tolist() == list(
        range(1001, 1064, 2)
    )


def test_ds_mskor_and_wrap(one_instruction: Run, wave: Wave) -> None:
    """DS_MSKOR: MEM = (MEM & ~DATA) | DATA2; DS_WRAP: MEM = MEM >= DATA ? MEM - DATA : MEM + DATA2."""
    wave.set_exec(1)  # one lane: the model is a single read-modify-write
    wave.group.lds.data[:8] = np.frombuffer(np.array([0xF0F0F0F0, 7], np.uint32).tobytes(), np.uint8)
    wave.v[1] = 0
    wave.v[4], wave.v[5] = 0x0000FFFF, 0x00001234
    one_instruction("ds_mskor_rtn_b32 v3, v1, v4, v5", wave)
    assert wave.v[3, 0] == 0xF0F0F0F0
    assert int(wave.group.lds.data[:4].view(np.uint32)[0]) == (0xF0F0F0F0 & ~0xFFFF) | 0x1234
    wave.v[4], wave.v[5] = 5, 100
    one_instruction("ds_wrap_rtn_b32 v6, v1, v4, v5 offset:4", wave)
    one_instruction("ds_wrap_rtn_b32 v7, v1, v4, v5 offset:4", wave)
    assert wave.v[6, 0] == 7 and wave.v[7, 0] == 2
    assert int(wave.group.lds.data[4:8].view(np.uint32)[0]) == 102


def test_ds_wrxchg2_returns_both_old_elements(one_instruction: Run, wave: Wave) -> None:
    wave.group.lds.data[:256] = np.frombuffer(np.arange(64, dtype=np.uint32).tobytes(), np.uint8)
    wave.set_exec(0b11)
    wave.v[1] = np.arange(64) * 16  # lane 0 at dword 0, lane 1 at dword 4
    wave.v[2], wave.v[3] = 100 + np.arange(64), 200 + np.arange(64)
    one_instruction("ds_wrxchg2_rtn_b32 v[4:5], v1, v2, v3 offset0:1 offset1:3", wave)
    lds = wave.group.lds.data.view(np.uint32)
    assert wave.v[4, :2].tolist() == [1, 5] and wave.v[5, :2].tolist() == [3, 7]  # dwords 1,3 and 5,7
    assert lds[[1, 3, 5, 7]].tolist() == [100, 200, 101, 201]
    one_instruction("ds_nop", wave)


def test_lane_exchanges_into_agprs(one_instruction: Run, wave: Wave) -> None:
    """gfx90a+ ``acc`` bit: the result (and a bpermute's data) is an AGPR (row 256 + n); the VGPR of
    the same number is untouched (LLVM swizzles straight into AGPRs under register pressure)."""
    wave.v[2] = np.arange(64) + 1000
    wave.v[256 + 4] = np.arange(64) + 2000
    wave.v[1] = ((np.arange(64) + 5) % 64) * 4
    wave.v[5] = 7
    one_instruction("ds_swizzle_b32 a5, v2 offset:swizzle(SWAP,1)", wave)
    assert wave.v[256 + 5].tolist() == [1000 + (i ^ 1) for i in range(64)]
    assert (wave.v[5] == 7).all()
    one_instruction("ds_bpermute_b32 a6, v1, a4", wave)
    assert wave.v[256 + 6].tolist() == [2000 + (i + 5) % 64 for i in range(64)]
