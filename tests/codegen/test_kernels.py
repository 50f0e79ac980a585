"""Whole kernels on the emulator: kernel ABI, special registers, shared/local memory, barriers,
device calls (recursion), globals and constants, atomics, carry chains, clocks, diagnostics."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

HEADER = ".version 8.0\n.target sm_80\n.address_size 64\n"


def _launch(ptx: str, kernel: str, kernarg: bytes, memory: DeviceMemory, grid: tuple[int, int, int] = (1, 1, 1),
            block: tuple[int, int, int] = (64, 1, 1), dynamic_lds: int = 0) -> None:
    program = load(compile(HEADER + ptx).data, kernel)
    launch(program, kernel, grid=grid, block=block, kernarg=kernarg, memory=memory, dynamic_lds=dynamic_lds)


def _upload(memory: DeviceMemory, data: bytes) -> int:
    """A fresh device buffer holding ``data``."""
    address = memory.alloc(len(data))
    memory.write(address, data)
    return address


ABI = """
.visible .entry abi(.param .u64 out, .param .align 8 .b8 s[12], .param .u8 c, .param .f64 d, .param .u16 h,
                    .param .align 4 .b8 t[3], .param .u32 last)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .b16 %h<4>; .reg .f64 %fd;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [s];
  ld.param.u32 %r2, [s+4];
  ld.param.u32 %r3, [s+8];
  ld.param.u8 %h1, [c];
  ld.param.f64 %fd, [d];
  ld.param.u16 %h2, [h];
  ld.param.u8 %h3, [t+2];
  ld.param.u32 %r4, [last];
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  st.global.u32 [%rd1+8], %r3;
  st.global.u8 [%rd1+12], %h1;
  st.global.f64 [%rd1+16], %fd;
  st.global.u16 [%rd1+24], %h2;
  st.global.u8 [%rd1+26], %h3;
  st.global.u32 [%rd1+28], %r4;
  ret;
}
"""


def test_kernarg_reproduces_the_cuda_parameter_buffer() -> None:
    # CUDA layout by hand: out@0(8) s@8(12, align 8) c@20 d@24 h@32 t@36(3, align 4) last@40
    expected = ((0, 8), (8, 12), (20, 1), (24, 8), (32, 2), (36, 3), (40, 4))
    assert compile(HEADER + ABI).kernels["abi"].params == expected
    memory = DeviceMemory()
    out = memory.alloc(32)
    buffer = bytearray(44)
    struct.pack_into("<Q", buffer, 0, out)
    struct.pack_into("<III", buffer, 8, 0x11111111, 0x22222222, 0x33333333)
    struct.pack_into("<B", buffer, 20, 0xAB)
    struct.pack_into("<d", buffer, 24, -2.75)
    struct.pack_into("<H", buffer, 32, 0xBEEF)
    buffer[36:39] = b"\x01\x02\x03"
    struct.pack_into("<I", buffer, 40, 0xCAFEF00D)
    _launch(ABI, "abi", bytes(buffer), memory, block=(1, 1, 1))
    got = memory.read(out, 32)
    assert struct.unpack_from("<III", got, 0) == (0x11111111, 0x22222222, 0x33333333)
    assert got[12] == 0xAB and struct.unpack_from("<d", got, 16)[0] == -2.75
    assert struct.unpack_from("<H", got, 24)[0] == 0xBEEF and got[26] == 3
    assert struct.unpack_from("<I", got, 28)[0] == 0xCAFEF00D


SREGS = """
.visible .entry sregs(.param .u64 out)
{
  .reg .b32 %r<16>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ntid.x; mov.u32 %r5, %ntid.y; mov.u32 %r6, %ntid.z;
  mov.u32 %r7, %ctaid.x; mov.u32 %r8, %ctaid.y; mov.u32 %r9, %ctaid.z;
  mov.u32 %r10, %nctaid.x; mov.u32 %r11, %nctaid.y; mov.u32 %r12, %nctaid.z;
  // linear = ((ctaid.z*nctaid.y + ctaid.y)*nctaid.x + ctaid.x) * threads + (tid.z*ntid.y + tid.y)*ntid.x + tid.x
  mad.lo.u32 %r13, %r9, %r11, %r8;
  mad.lo.u32 %r13, %r13, %r10, %r7;
  mul.lo.u32 %r14, %r4, %r5;
  mul.lo.u32 %r14, %r14, %r6;
  mad.lo.u32 %r15, %r3, %r5, %r2;
  mad.lo.u32 %r15, %r15, %r4, %r1;
  mad.lo.u32 %r13, %r13, %r14, %r15;
  mul.wide.u32 %rd2, %r13, 48;
  add.u64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};
  st.global.v4.u32 [%rd3+32], {%r9, %r10, %r11, %r12};
  ret;
}
"""


def test_special_registers_3d() -> None:
    grid, block = (3, 2, 2), (4, 3, 2)
    n = int(np.prod(grid) * np.prod(block))
    memory = DeviceMemory()
    out = memory.alloc(48 * n)
    _launch(SREGS, "sregs", struct.pack("<Q", out), memory, grid=grid, block=block)
    got = np.frombuffer(memory.read(out, 48 * n), np.uint32).reshape(n, 12)
    rows = []
    for cz in range(grid[2]):
        for cy in range(grid[1]):
            for cx in range(grid[0]):
                for tz in range(block[2]):
                    for ty in range(block[1]):
                        for tx in range(block[0]):
                            rows.append([tx, ty, tz, *block, cx, cy, cz, *grid])
    assert np.array_equal(got, np.array(rows, np.uint32))


SHARED = """
.visible .entry reverse(.param .u64 data)
{
  .reg .b32 %r<8>; .reg .b64 %rd<6>; .reg .pred %p;
  .shared .align 4 .b32 tile[64];
  .shared .align 4 .u32 counter;
  ld.param.u64 %rd1, [data];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p, %r1, 0;
  @!%p st.shared.u32 [counter], 0;
  bar.sync 0;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  mov.u32 %r3, tile;
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;
  st.shared.u32 [%r5], %r2;
  atom.shared.add.u32 %r7, [counter], 1;
  bar.sync 0;
  sub.u32 %r6, 63, %r1;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r3, %r6;
  ld.shared.u32 %r2, [%r6];
  ld.shared.u32 %r7, [counter];
  add.u32 %r2, %r2, %r7;
  st.global.u32 [%rd3], %r2;
  ret;
}
"""


def test_static_shared_memory_and_barrier() -> None:
    memory = DeviceMemory()
    values = np.arange(1000, 1064, dtype=np.uint32)
    data = _upload(memory, values.tobytes())
    _launch(SHARED, "reverse", struct.pack("<Q", data), memory, block=(64, 1, 1))
    got = np.frombuffer(memory.read(data, 256), np.uint32)
    assert np.array_equal(got, values[::-1] + 64)


DYNAMIC = """
.extern .shared .align 16 .b8 dyn[];
.visible .entry dynrev(.param .u64 data, .param .u32 n)
{
  .reg .b32 %r<9>; .reg .b64 %rd<6>; .reg .f32 %f; .reg .f32 %f1;
  .shared .align 4 .b32 pad[3];
  ld.param.u64 %rd1, [data];
  ld.param.u32 %r7, [n];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.f32 %f, [%rd3];
  mov.u32 %r3, dyn;
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;
  st.shared.f32 [%r5], %f;
  st.shared.u32 [pad+8], %r7;
  bar.sync 0;
  sub.u32 %r6, %r7, 1;
  sub.u32 %r6, %r6, %r1;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r3, %r6;
  ld.shared.f32 %f, [%r6];
  ld.shared.u32 %r8, [pad+8];
  cvt.rn.f32.u32 %f1, %r8;
  add.f32 %f, %f, %f1;
  st.global.f32 [%rd3], %f;
  ret;
}
"""


def test_dynamic_shared_memory_follows_static() -> None:
    memory = DeviceMemory()
    n = 128
    values = np.linspace(-1, 1, n, dtype=np.float32)
    data = _upload(memory, values.tobytes())
    co = compile(HEADER + DYNAMIC)
    assert co.kernels["dynrev"].lds_size >= 12
    launch(load(co.data, "d"), "dynrev", grid=(1, 1, 1), block=(n, 1, 1), kernarg=struct.pack("<QI", data, n),
           memory=memory, dynamic_lds=4 * n)
    assert np.array_equal(np.frombuffer(memory.read(data, 4 * n), np.float32), values[::-1] + np.float32(n))


CALLS = """
.func (.param .b64 ret) fact(.param .b64 x)
{
  .reg .b64 %rd<4>; .reg .pred %p;
  ld.param.u64 %rd1, [x];
  setp.le.u64 %p, %rd1, 1;
  @%p bra BASE;
  sub.u64 %rd2, %rd1, 1;
  {
    .param .b64 arg; .param .b64 res;
    st.param.b64 [arg], %rd2;
    call.uni (res), fact, (arg);
    ld.param.b64 %rd3, [res];
  }
  mul.lo.u64 %rd3, %rd3, %rd1;
  st.param.b64 [ret], %rd3;
  ret;
BASE:
  st.param.b64 [ret], 1;
  ret;
}

.func (.reg .b32 r) twice(.reg .b32 a)
{
  add.u32 r, a, a;
  ret;
}

.visible .entry calls(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<8>;
  .local .align 4 .b32 scratch[16];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd2, %r1;
  {
    .param .b64 arg; .param .b64 res;
    st.param.b64 [arg], %rd2;
    call.uni (res), fact, (arg);
    ld.param.b64 %rd3, [res];
  }
  call.uni (%r2), twice, (%r1);
  and.b32 %r3, %r1, 15;
  mul.wide.u32 %rd4, %r3, 4;
  mov.u64 %rd5, scratch;
  add.u64 %rd5, %rd5, %rd4;
  st.local.u32 [%rd5], %r2;
  ld.local.u32 %r2, [%rd5];
  mul.wide.u32 %rd6, %r1, 16;
  add.u64 %rd6, %rd1, %rd6;
  st.global.u64 [%rd6], %rd3;
  st.global.u32 [%rd6+8], %r2;
  ret;
}
"""


def test_recursive_device_function_reg_call_and_local_memory() -> None:
    memory = DeviceMemory()
    n = 21
    out = memory.alloc(16 * n)
    _launch(CALLS, "calls", struct.pack("<Q", out), memory, block=(n, 1, 1))
    got = memory.read(out, 16 * n)
    for i in range(n):
        fact = 1
        for k in range(2, i + 1):
            fact *= k
        assert struct.unpack_from("<Q", got, 16 * i)[0] == fact % 2**64
        assert struct.unpack_from("<I", got, 16 * i + 8)[0] == 2 * i


GLOBALS = """
.global .align 4 .u32 table[4] = {10, 20, 30, 40};
.const .align 8 .f64 scale = 0d4004000000000000;
.global .align 4 .u32 hits;
.visible .entry globals(.param .u64 out)
{
  .reg .b32 %r<6>; .reg .b64 %rd<6>; .reg .f64 %fd<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  mul.wide.u32 %rd2, %r2, 4;
  mov.u64 %rd3, table;
  add.u64 %rd3, %rd3, %rd2;
  ld.global.u32 %r3, [%rd3];
  ld.const.f64 %fd1, [scale];
  cvt.rn.f64.u32 %fd2, %r3;
  mul.rn.f64 %fd2, %fd2, %fd1;
  atom.global.add.u32 %r4, [hits], 1;
  mul.wide.u32 %rd4, %r1, 8;
  add.u64 %rd4, %rd1, %rd4;
  st.global.f64 [%rd4], %fd2;
  ret;
}
"""


def test_initialised_global_and_constant() -> None:
    memory = DeviceMemory()
    out = memory.alloc(8 * 8)
    _launch(GLOBALS, "globals", struct.pack("<Q", out), memory, block=(8, 1, 1))
    got = np.frombuffer(memory.read(out, 64), np.float64)
    assert np.array_equal(got, 2.5 * np.array([10, 20, 30, 40] * 2, np.float64))


ATOMICS = """
.visible .entry atomics(.param .u64 cells, .param .u64 old)
{
  .reg .b32 %r<8>; .reg .b64 %rd<6>; .reg .f32 %f<3>;
  ld.param.u64 %rd1, [cells];
  ld.param.u64 %rd2, [old];
  mov.u32 %r1, %tid.x;
  atom.global.add.u32 %r2, [%rd1], %r1;
  atom.global.inc.u32 %r3, [%rd1+4], 9;
  atom.global.dec.u32 %r3, [%rd1+8], 5;
  sub.s32 %r4, 20, %r1;
  atom.global.min.s32 %r3, [%rd1+12], %r4;
  atom.global.max.u32 %r3, [%rd1+16], %r1;
  cvt.rn.f32.u32 %f1, %r1;
  atom.global.add.f32 %f2, [%rd1+20], %f1;
  atom.global.or.b32 %r3, [%rd1+24], %r1;
  atom.global.cas.b32 %r3, [%rd1+28], %r1, 1000;
  red.global.add.u64 [%rd1+32], 3;
  atom.global.exch.b32 %r5, [%rd1+40], %r1;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd3, %rd2, %rd3;
  st.global.u32 [%rd3], %r2;
  ret;
}
"""


def test_atomics() -> None:
    memory = DeviceMemory()
    n = 64
    cells = _upload(memory, struct.pack("<IIIiIfIIQI", 0, 0, 3, 0, 0, 0.5, 0, 5, 7, 0xFFFF))
    old = memory.alloc(4 * n)
    _launch(ATOMICS, "atomics", struct.pack("<QQ", cells, old), memory, block=(n, 1, 1))
    add, inc, dec, mn, mx, fsum, orr, cas, red, exch = struct.unpack("<IIIiIfIIQI", memory.read(cells, 44))
    assert add == sum(range(n))
    assert inc == n % 10  # inc wraps to 0 after reaching 9
    # dec: ((old == 0) | (old > 5)) ? 5 : old - 1, starting at 3, 64 times
    value = 3
    for _ in range(n):
        value = 5 if value == 0 or value > 5 else value - 1
    assert dec == value
    assert mn == 20 - (n - 1) and mx == n - 1 and orr == 63
    assert fsum == 0.5 + sum(range(n))  # every partial sum is exact in f32
    assert cas == 1000  # lane 5 matched exactly once
    assert red == 7 + 3 * n and exch in range(n)
    olds = np.frombuffer(memory.read(old, 4 * n), np.uint32)
    assert sorted(olds.tolist()) == sorted(int(x) for x in np.cumsum([0, *range(n)])[:-1]) or len(set(olds)) == n


CARRY = """
.visible .entry carry(.param .u64 a, .param .u64 b, .param .u64 out)
{
  .reg .b32 %r<12>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.u64 %rd5, %rd1, %rd4; add.u64 %rd6, %rd2, %rd4; add.u64 %rd7, %rd3, %rd4;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5];
  ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd6];
  add.cc.u32 %r2, %r2, %r6;
  addc.cc.u32 %r3, %r3, %r7;
  addc.cc.u32 %r4, %r4, %r8;
  addc.u32 %r5, %r5, %r9;
  st.global.v4.u32 [%rd7], {%r2, %r3, %r4, %r5};
  ret;
}
"""


@pytest.mark.parametrize("kind", ["add", "sub"])
def test_carry_chain_is_128_bit_arithmetic(kind: str) -> None:
    rng = np.random.default_rng(7)
    n = 64
    words_a = rng.integers(0, 2**32, (n, 4), dtype=np.uint64).astype(np.uint32)
    words_b = rng.integers(0, 2**32, (n, 4), dtype=np.uint64).astype(np.uint32)
    words_a[:8] = 0xFFFFFFFF  # long carry ripples
    words_b[:8] = [1, 0, 0, 0]
    memory = DeviceMemory()
    pa, pb, po = _upload(memory, words_a.tobytes()), _upload(memory, words_b.tobytes()), memory.alloc(16 * n)
    ptx = CARRY if kind == "add" else CARRY.replace("add.cc", "sub.cc").replace("addc", "subc")
    _launch(ptx, "carry", struct.pack("<QQQ", pa, pb, po), memory, block=(n, 1, 1))
    got = np.frombuffer(memory.read(po, 16 * n), np.uint32).reshape(n, 4)
    sign = 1 if kind == "add" else -1
    for i in range(n):
        value = lambda w: sum(int(x) << (32 * k) for k, x in enumerate(w))  # noqa: E731
        assert value(got[i]) == (value(words_a[i]) + sign * value(words_b[i])) % 2**128


def test_unsupported_op_is_located() -> None:
    # an sm_100 form (ptxas accepts it there; for older targets it is a located error, not unsupported)
    ptx = ".version 8.6\n.target sm_100a\n.address_size 64\n" + """
.visible .entry w(.param .u64 out)
{
  .reg .b32 %r<4>;
  mov.u32 %r1, 0;
  ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r2, %r3}, [%r1];
  ret;
}
"""
    with pytest.raises(UnsupportedError) as info:
        compile(ptx)
    text = str(info.value)
    assert "<input>:9:" in text and "unsupported: ldmatrix: .m16n16.b8 (sm_100 8-bit matrix forms)" in text
    assert "^" in text and "Traceback" not in text


def test_plain_barrier_compiles() -> None:
    body = ".visible .entry b()\n{\n  barrier.sync 0;\n  bar.sync 0;\n  ret;\n}\n"
    assert compile(HEADER + body).data


def test_clock_and_globaltimer_are_monotonic() -> None:
    ptx = """
.visible .entry clk(.param .u64 out)
{
  .reg .b64 %rd<6>; .reg .b32 %r<3>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, %clock64;
  mov.u64 %rd3, %globaltimer;
  mov.u64 %rd4, %clock64;
  mov.u64 %rd5, %globaltimer;
  st.global.v2.u64 [%rd1], {%rd2, %rd4};
  st.global.v2.u64 [%rd1+16], {%rd3, %rd5};
  ret;
}
"""
    memory = DeviceMemory()
    out = memory.alloc(32)
    _launch(ptx, "clk", struct.pack("<Q", out), memory, block=(1, 1, 1))
    c0, c1, t0, t1 = struct.unpack("<QQQQ", memory.read(out, 32))
    assert c1 >= c0 and t1 >= t0 and t0 % 10 == 0  # globaltimer counts 10 ns ticks


def test_indirect_calls_through_an_initialised_function_table() -> None:
    """nvcc's device_functions.cu: ``d_fns[3] = {f_square, f_negate, f_half}`` called through a pointer."""
    path = Path(__file__).resolve().parents[2] / "corpora" / "nvcc" / "sm_80" / "device_functions.ptx"
    program = load(compile(path).data, "device_functions")
    memory = DeviceMemory()
    n = 64
    values = np.linspace(-4, 4, n, dtype=np.float32)
    which = np.arange(n, dtype=np.int32)
    p_in, p_out, p_which = _upload(memory, values.tobytes()), memory.alloc(4 * n), _upload(memory, which.tobytes())
    launch(program, "indirect_calls", grid=(1, 1, 1), block=(n, 1, 1),
           kernarg=struct.pack("<QQQ", p_in, p_out, p_which), memory=memory)
    got = np.frombuffer(memory.read(p_out, 4 * n), np.float32)
    expected = np.choose(which % 3, [values * values, -values, values * np.float32(0.5)])
    assert np.array_equal(got, expected)


def test_dp4a_dp2a_and_cp_async_zero_fill() -> None:
    ptx = """
.visible .entry misc(.param .u64 out, .param .u64 src)
{
  .reg .b32 %r<12>; .reg .b64 %rd<4>;
  .shared .align 16 .b8 buf[16];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [src];
  mov.u32 %r1, 0x01FF7F80;
  mov.u32 %r2, 0x02030405;
  dp4a.s32.s32 %r3, %r1, %r2, 1000;
  dp4a.u32.s32 %r4, %r1, %r2, 0;
  dp2a.lo.s32.u32 %r5, 0x8000FFFF, %r2, 7;
  dp2a.hi.u32.u32 %r6, 0x8000FFFF, %r2, 0;
  cp.async.ca.shared.global [buf], [%rd2], 16, 5;
  cp.async.wait_all;
  ld.shared.v4.u32 {%r7, %r8, %r9, %r10}, [buf];
  st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r6};
  st.global.v4.u32 [%rd1+16], {%r7, %r8, %r9, %r10};
  ret;
}
"""
    memory = DeviceMemory()
    out, src = memory.alloc(32), _upload(memory, bytes(range(1, 17)))
    _launch(ptx, "misc", struct.pack("<QQ", out, src), memory, block=(1, 1, 1))
    got = struct.unpack("<8I", memory.read(out, 32))
    a_s, a_u, b_bytes = [-128, 127, -1, 1], [0x80, 0x7F, 0xFF, 0x01], [5, 4, 3, 2]
    assert got[0] == (1000 + sum(x * y for x, y in zip(a_s, b_bytes))) % 2**32
    assert got[1] == sum(x * y for x, y in zip(a_u, b_bytes)) % 2**32
    assert got[2] == (7 + (-1) * 5 + (-32768) * 4) % 2**32  # halves of a signed, bytes 0-1 of b
    assert got[3] == (0xFFFF * 3 + 0x8000 * 2) % 2**32  # bytes 2-3 of b
    assert bytes(memory.read(out + 16, 16)) == bytes(range(1, 6)) + bytes(11)


def test_launch_bounds_and_kernel_selection() -> None:
    ptx = HEADER + """
.visible .entry bounded() .maxntid 128, 1, 1 .minnctapersm 4
{
  ret;
}
.visible .entry exact() .reqntid 32, 2, 2
{
  ret;
}
.visible .entry free()
{
  ret;
}
"""
    kernels = compile(ptx).kernels
    assert kernels["bounded"].max_flat_workgroup_size == 128
    assert kernels["exact"].max_flat_workgroup_size == 128
    assert kernels["free"].max_flat_workgroup_size == 1024
    assert set(compile(ptx, kernels=["exact"]).kernels) == {"exact"}


def test_half_and_double_atomics() -> None:
    ptx = """
.visible .entry hatom(.param .u64 cells)
{
  .reg .b64 %rd<2>; .reg .b32 %r<3>; .reg .b16 %h<3>; .reg .f64 %fd<2>;
  ld.param.u64 %rd1, [cells];
  mov.b32 %r1, 0x3C003800;
  atom.global.add.noftz.f16x2 %r2, [%rd1], %r1;
  mov.b16 %h1, 0x3C00;
  atom.global.add.noftz.f16 %h2, [%rd1+4], %h1;
  mov.b16 %h1, 0x3F80;
  atom.global.add.noftz.bf16 %h2, [%rd1+6], %h1;
  mov.f64 %fd1, 0d3FE0000000000000;
  atom.global.add.f64 %fd1, [%rd1+8], %fd1;
  ret;
}
"""
    memory = DeviceMemory()
    cells = _upload(memory, bytes(16))
    _launch(ptx, "hatom", struct.pack("<Q", cells), memory, block=(64, 1, 1))
    lo, hi, h, bf, d = struct.unpack("<eeeHd", memory.read(cells, 16))
    assert (lo, hi, h) == (32.0, 64.0, 64.0)  # 64 × 0.5, 64 × 1.0, 64 × 1.0: exact in f16
    assert bf == 0x4280 and d == 32.0  # 64.0 in bf16


def test_memory_ordering_and_scopes() -> None:
    ptx = """
.visible .entry mm(.param .u64 cells)
{
  .reg .b64 %rd<3>; .reg .b32 %r<6>;
  ld.param.u64 %rd1, [cells];
  mov.u32 %r1, %tid.x;
  st.release.gpu.global.u32 [%rd1], 5;
  fence.sc.cta;
  fence.acq_rel.sys;
  membar.gl;
  ld.acquire.gpu.global.u32 %r2, [%rd1];
  ld.relaxed.sys.global.u32 %r3, [%rd1];
  ld.volatile.global.u32 %r4, [%rd1];
  atom.acq_rel.gpu.global.add.u32 %r5, [%rd1+4], %r2;
  red.release.sys.global.add.u32 [%rd1+8], %r3;
  atom.relaxed.cta.global.max.u32 %r5, [%rd1+12], %r4;
  st.volatile.global.u32 [%rd1+16], %r1;
  ret;
}
"""
    memory = DeviceMemory()
    cells = _upload(memory, bytes(20))
    _launch(ptx, "mm", struct.pack("<Q", cells), memory, block=(32, 1, 1))
    assert struct.unpack("<5I", memory.read(cells, 20)) == (5, 5 * 32, 5 * 32, 5, 31)
    text = compile(HEADER + ptx).llvm_ir
    assert 'syncscope("agent") acquire' in text and 'syncscope("workgroup")' in text


def test_generic_addresses_cvta_and_isspacep() -> None:
    ptx = """
.visible .entry gen(.param .u64 out)
{
  .reg .b64 %rd<8>; .reg .b32 %r<8>; .reg .pred %p<4>;
  .shared .align 4 .u32 cell;
  .local .align 4 .u32 priv;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  cvta.shared.u64 %rd2, cell;
  cvta.local.u64 %rd3, priv;
  isspacep.shared %p1, %rd2;
  isspacep.local %p2, %rd3;
  isspacep.global %p3, %rd1;
  setp.eq.u32 %p0, %r1, 0;
  @%p0 st.u32 [%rd2], 41;
  st.u32 [%rd3], %r1;
  bar.sync 0;
  ld.shared.u32 %r2, [cell];
  ld.local.u32 %r3, [priv];
  cvta.to.shared.u64 %rd4, %rd2;
  cvt.u32.u64 %r4, %rd4;
  ld.shared.u32 %r5, [%r4];
  selp.u32 %r6, 1, 0, %p1;
  selp.u32 %r7, 2, 0, %p2;
  add.u32 %r6, %r6, %r7;
  selp.u32 %r7, 4, 0, %p3;
  add.u32 %r6, %r6, %r7;
  mul.wide.u32 %rd5, %r1, 16;
  add.u64 %rd5, %rd1, %rd5;
  st.global.v4.u32 [%rd5], {%r2, %r3, %r5, %r6};
  trap_free:
  nanosleep.u32 10;
  pmevent 1;
  ret;
}
"""
    memory = DeviceMemory()
    n = 8
    out = memory.alloc(16 * n)
    _launch(ptx, "gen", struct.pack("<Q", out), memory, block=(n, 1, 1))
    got = np.frombuffer(memory.read(out, 16 * n), np.uint32).reshape(n, 4)
    assert np.array_equal(got, np.array([[41, i, 41, 7] for i in range(n)], np.uint32))


def test_vector_float_atomics_are_per_element() -> None:
    ptx = """
.visible .entry vatom(.param .u64 cells, .param .u64 old)
{
  .reg .b64 %rd<4>; .reg .b32 %r<2>; .reg .f32 %f<10>;
  ld.param.u64 %rd1, [cells];
  ld.param.u64 %rd2, [old];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  neg.f32 %f2, %f1;
  atom.global.add.v2.f32 {%f3, %f4}, [%rd1], {%f1, %f2};
  atom.global.add.v4.f32 {%f5, %f6, %f7, %f8}, [%rd1+16], {%f1, %f1, %f2, %f2};
  ret;
}
"""
    memory = DeviceMemory()
    cells = _upload(memory, np.array([0.5, 1.0, 0, 0, 2, 3, 4, 5], np.float32).tobytes())
    _launch(ptx, "vatom", struct.pack("<QQ", cells, 0), memory, block=(16, 1, 1))
    got = np.frombuffer(memory.read(cells, 32), np.float32)
    total = float(sum(range(16)))
    assert np.array_equal(got, np.array([0.5 + total, 1.0 - total, 0, 0, 2 + total, 3 + total, 4 - total,
                                         5 - total], np.float32))


def test_vector_acquire_release_accesses() -> None:
    ptx = """
.visible .entry vacq(.param .u64 cells)
{
  .reg .b64 %rd<6>; .reg .b32 %r<5>;
  ld.param.u64 %rd1, [cells];
  ld.acquire.gpu.global.v2.u64 {%rd2, %rd3}, [%rd1];
  add.u64 %rd2, %rd2, %rd3;
  st.release.gpu.global.v2.u64 [%rd1+16], {%rd3, %rd2};
  ld.relaxed.sys.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];
  st.relaxed.cta.global.v4.u32 [%rd1+32], {%r4, %r3, %r2, %r1};
  ret;
}
"""
    memory = DeviceMemory()
    cells = _upload(memory, struct.pack("<QQ", 0x0000000500000007, 0x0000000B0000000D) + bytes(32))
    _launch(ptx, "vacq", struct.pack("<Q", cells), memory, block=(1, 1, 1))
    got = memory.read(cells, 48)
    assert struct.unpack_from("<QQ", got, 16) == (0x0000000B0000000D, 0x0000001000000014)
    assert struct.unpack_from("<4I", got, 32) == (0xB, 0xD, 0x5, 0x7)
