"""The PTX interpreter (``ptx2gcn.interp``), the reference executor of ``// LAUNCH:`` file tests.

Expected values are written from the PTX ISA (and plain arithmetic), never taken from the
interpreter or the compiler. Each failure mode the interpreter promises (unmodelled instruction,
unspecified guard, memory fault, deadlock, endless loop) is provoked once.
"""

from __future__ import annotations

import struct

import pytest

from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
from ptx2gcn.interp import Machine

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"


def run(body: str, threads: int = 64, words: int = 64, grid: int = 1, decls: str = "",
        scalars: tuple[tuple[str, bytes], ...] = ()) -> tuple[list[int | None], Machine]:
    """Run kernel ``k(out, scalars...)`` with ``body``; ``out`` has ``words`` u32 (zero-initialised):
    its words afterwards, None where PTX leaves a word unspecified."""
    params = "".join(f", .param .{kind} {name}" for name, kind in ((n, _kind(b)) for n, b in scalars))
    text = (f"{HEADER}{decls}\n.visible .entry k(.param .u64 out{params})\n{{\n"
            "\t.reg .pred %p<8>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<16>;\n"
            f"\tld.param.u64 %rd1, [out];\n{body}\n\tret;\n}}\n")
    machine = Machine(text, "t.ptx")
    out = machine.allocate(bytes(4 * words))
    machine.launch("k", (grid, 1, 1), (threads, 1, 1), [out.to_bytes(8, "little"), *(b for _, b in scalars)])
    data, fixed = machine.read(out, 4 * words)
    values = [int.from_bytes(data[i:i + 4], "little") if all(fixed[i:i + 4]) else None for i in range(0, 4 * words, 4)]
    return values, machine


def _kind(data: bytes) -> str:
    return {4: "u32", 8: "u64"}[len(data)]


STORE_TID = """\tmov.u32 %r1, %tid.x;
\tmul.wide.u32 %rd2, %r1, 4;
\tadd.u64 %rd3, %rd1, %rd2;
"""


def test_arithmetic_comes_from_the_model() -> None:
    values, _ = run(STORE_TID + """\tmad.lo.u32 %r2, %r1, %r1, 7;
\tshl.b32 %r3, %r2, 3;
\tst.global.u32 [%rd3], %r3;""")
    assert values == [((i * i + 7) << 3) & 0xFFFFFFFF for i in range(64)]


def test_divergent_lanes_reconverge_before_a_shuffle() -> None:
    """Odd lanes add 100, even lanes 200, then all 32 lanes of each warp shuffle together (idx 3):
    every lane gets lane 3's value, 3 + 100 (so the shuffle ran after both sides of the branch)."""
    values, _ = run(STORE_TID + """\tand.b32 %r2, %r1, 1;
\tsetp.eq.u32 %p1, %r2, 0;
\t@%p1 bra EVEN;
\tadd.u32 %r3, %r1, 100;
\tbra.uni JOIN;
EVEN:
\tadd.u32 %r3, %r1, 200;
JOIN:
\tshfl.sync.idx.b32 %r4, %r3, 3, 0x1f, -1;
\tst.global.u32 [%rd3], %r4;""")
    assert values == [(i & ~31) + 3 + 100 for i in range(64)]


def test_barrier_orders_shared_memory_between_warps() -> None:
    """Thread t stores 3t, bar.sync, then reads thread 127 - t's store (another warp's)."""
    values, _ = run(STORE_TID + """\tmov.u32 %r2, buf;
\tshl.b32 %r3, %r1, 2;
\tadd.u32 %r4, %r2, %r3;
\tmul.lo.u32 %r5, %r1, 3;
\tst.shared.u32 [%r4], %r5;
\tbar.sync 0;
\tsub.u32 %r6, 127, %r1;
\tshl.b32 %r6, %r6, 2;
\tadd.u32 %r6, %r2, %r6;
\tld.shared.u32 %r7, [%r6];
\tst.global.u32 [%rd3], %r7;""", threads=128, words=128, decls=".shared .align 4 .b32 buf[128];")
    assert values == [(127 - i) * 3 for i in range(128)]


def test_atomics_from_every_thread_of_the_grid() -> None:
    values, _ = run("""\tmov.u32 %r1, %tid.x;
\tatom.global.add.u32 %r2, [%rd1], %r1;
\tred.global.max.u32 [%rd1+4], %r1;""", threads=96, words=2, grid=3)
    assert values == [3 * sum(range(96)), 95]


def test_generic_and_local_addresses() -> None:
    """A .local array reached through cvta.local (generic), and a .shared one through cvta.shared."""
    values, _ = run(STORE_TID + """\t.local .align 4 .b32 scratch[2];
\tmov.u64 %rd4, scratch;
\tcvta.local.u64 %rd5, %rd4;
\tst.u32 [%rd5+4], %r1;
\tld.local.u32 %r2, [scratch+4];
\tmov.u64 %rd6, buf;
\tcvta.shared.u64 %rd7, %rd6;
\tst.u32 [%rd7], 5;
\tbar.sync 0;
\tld.shared.u32 %r3, [buf];
\tadd.u32 %r4, %r2, %r3;
\tst.global.u32 [%rd3], %r4;""", decls=".shared .align 4 .b32 buf[1];")
    assert values == [i + 5 for i in range(64)]


def test_scalar_parameters_and_float_arithmetic() -> None:
    body = STORE_TID + """\tld.param.f32 %r5, [scale];
\tcvt.rn.f32.u32 %r2, %r1;
\tmul.rn.f32 %r3, %r2, %r5;
\tadd.rn.f32 %r4, %r3, 0f3F000000;
\tst.global.u32 [%rd3], %r4;"""
    values, _ = run(body, scalars=(("scale", struct.pack("<f", 0.25)),))
    assert values == [struct.unpack("<I", struct.pack("<f", i * 0.25 + 0.5))[0] for i in range(64)]


def test_values_ptx_leaves_unspecified_stay_unspecified() -> None:
    """An unwritten register, and a shuffle from a lane outside membermask (PTX ISA shfl.sync:
    undefined), are stored as unspecified words; the defined lanes are exact."""
    values, _ = run(STORE_TID + """\tst.global.u32 [%rd3], %r20;""", words=64)
    assert values == [None] * 64
    values, _ = run(STORE_TID + """\tshfl.sync.idx.b32 %r2, %r1, 0, 0x1f, 0xfffffffe;
\tst.global.u32 [%rd3], %r2;""", threads=32, words=32)
    assert values == [None] * 32  # lane 0 (the source) is not in membermask; lane 0 itself is not a member


def test_an_unmodelled_instruction_is_a_located_unsupported_error() -> None:
    with pytest.raises(UnsupportedError) as caught:
        run("\ttestp.subnormal.f64 %p1, %rd1;\n\tbrkpt;")
    assert "t.ptx:" in caught.value.render() and "brkpt" in caught.value.render()
    assert "not modelled by the reference interpreter" in caught.value.render()


def test_guard_on_an_unspecified_predicate_is_an_error() -> None:
    with pytest.raises(Ptx2GcnError, match="guard is a predicate PTX leaves unspecified"):
        run("\t@%p5 st.global.u32 [%rd1], 1;")


def test_out_of_bounds_access_is_a_located_error() -> None:
    with pytest.raises(Ptx2GcnError, match="outside every allocation") as caught:
        run("\tst.global.u32 [%rd1+256], 1;", words=64)
    assert caught.value.render().startswith("t.ptx:11:2: error: reference interpreter")


def test_a_barrier_that_cannot_complete_is_a_deadlock() -> None:
    """Warp 0 waits for 128 arrivals of barrier 1; warp 1 exits: PTX never releases it."""
    with pytest.raises(Ptx2GcnError, match="deadlock"):
        run("""\tmov.u32 %r1, %tid.x;
\tsetp.ge.u32 %p1, %r1, 32;
\t@%p1 bra DONE;
\tbar.sync 1, 64;
DONE:""")


def test_warps_take_turns_so_a_spin_wait_finishes() -> None:
    """Warp 1 spins until warp 0 (scheduled first) ... and the other way round: warp 0 spins on a
    flag only warp 1 sets, so the interpreter must switch warps while one spins."""
    values, _ = run("""\tmov.u32 %r1, %tid.x;
\tsetp.lt.u32 %p1, %r1, 32;
\t@%p1 bra WAIT;
\tst.volatile.global.u32 [%rd1], 7;
\tbra.uni DONE;
WAIT:
\tld.volatile.global.u32 %r2, [%rd1];
\tsetp.eq.u32 %p2, %r2, 0;
\t@%p2 bra WAIT;
\tst.volatile.global.u32 [%rd1+4], %r2;
DONE:""", words=2)
    assert values == [7, 7]


def test_an_endless_loop_is_reported() -> None:
    with pytest.raises(Ptx2GcnError, match="an endless loop"):
        text = f"{HEADER}.visible .entry k()\n{{\nLOOP:\n\tbra.uni LOOP;\n}}\n"
        Machine(text, "t.ptx").launch("k", (1, 1, 1), (32, 1, 1), [], max_steps=1000)


def test_elect_and_activemask_see_only_the_lanes_that_are_there() -> None:
    """Lanes 8..31 branch away and exit; elect.sync over -1 then elects lane 0 among 0..7."""
    values, _ = run(STORE_TID + """\tsetp.ge.u32 %p1, %r1, 8;
\t@%p1 bra DONE;
\tactivemask.b32 %r2;
\telect.sync %r3|%p2, -1;
\tselp.u32 %r4, 1000, 0, %p2;
\tadd.u32 %r5, %r3, %r4;
\tadd.u32 %r5, %r5, %r2;
\tst.global.u32 [%rd3], %r5;
DONE:""", threads=32, words=32)
    assert values == [0xFF + 1000] + [0xFF] * 7 + [0] * 24


MATRIX_KERNEL = HEADER + """.shared .align 16 .b16 tile[64];
.visible .entry k(.param .u64 out)
{
	.reg .pred %p<4>;
	.reg .b16 %rs<4>;
	.reg .b32 %r<16>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 16;
	add.u64 %rd3, %rd1, %rd2;
	BODY
	ret;
}
"""


def _matrix(body: str) -> list[int | None]:
    machine = Machine(MATRIX_KERNEL.replace("BODY", body), "m.ptx")
    out = machine.allocate(bytes(16 * 32))
    machine.launch("k", (1, 1, 1), (32, 1, 1), [out.to_bytes(8, "little")])
    data, fixed = machine.read(out, 16 * 32)
    return [int.from_bytes(data[i:i + 4], "little") if all(fixed[i:i + 4]) else None for i in range(0, 16 * 32, 4)]


def test_mma_m16n8k16_fragments_follow_the_ptx_figures() -> None:
    """A = all ones, B[k][n] = n + 1 (PTX ISA 9.7.14.5.8: lane holds B column groupID = lane >> 2),
    C = 0: D[m][n] = 16 (n + 1), and lane l's d_i is column 2 (l % 4) + (i & 1) (the m16n8
    accumulator figure). (A zero result would be unspecified: the model leaves its sign open.)"""
    values = _matrix("""shr.u32 %r2, %r1, 2;
	add.u32 %r2, %r2, 1;
	cvt.rn.f16.u32 %rs1, %r2;
	mov.b32 %r3, {%rs1, %rs1};
	mov.b32 %r4, 0x3C003C00;
	mov.f32 %f1, 0f00000000;
	mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f2,%f3,%f4,%f5}, {%r4,%r4,%r4,%r4}, {%r3,%r3},
		{%f1,%f1,%f1,%f1};
	st.global.v4.f32 [%rd3], {%f2,%f3,%f4,%f5};""")
    expected = [struct.unpack("<I", struct.pack("<f", 16.0 * (2 * (lane % 4) + (i & 1) + 1)))[0]
                for lane in range(32) for i in range(4)]
    assert values == expected


@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_reads_rows_from_the_lanes_addresses(trans: bool) -> None:
    """An 8x8 b16 matrix M[r][c] = 8r + c in shared memory; lanes 0-7 give row addresses. Lane l
    receives elements (l >> 2, 2 (l % 4)) and (l >> 2, 2 (l % 4) + 1) of M, or of its transpose."""
    values = _matrix(f"""mov.u32 %r2, tile;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	shl.b32 %r5, %r1, 1;
	add.u32 %r6, %r5, 1;
	shl.b32 %r6, %r6, 16;
	or.b32 %r7, %r5, %r6;
	st.shared.u32 [%r4], %r7;
	bar.warp.sync -1;
	and.b32 %r8, %r1, 7;
	shl.b32 %r8, %r8, 4;
	add.u32 %r9, %r2, %r8;
	ldmatrix.sync.aligned.m8n8.x1{'.trans' if trans else ''}.shared.b16 {{%r10}}, [%r9];
	st.global.u32 [%rd3], %r10;""")

    def m(r: int, c: int) -> int:
        return 8 * c + r if trans else 8 * r + c

    got = values[::4]
    assert got == [m(lane >> 2, 2 * (lane % 4)) | m(lane >> 2, 2 * (lane % 4) + 1) << 16 for lane in range(32)]


def test_aligned_matrix_instructions_need_the_whole_warp() -> None:
    with pytest.raises(Ptx2GcnError, match="needs all 32 lanes"):
        _matrix("""setp.lt.u32 %p1, %r1, 16;
	@%p1 bra DONE;
	movmatrix.sync.aligned.m8n8.trans.b16 %r2, %r1;
DONE:""")


CALLS = HEADER + """.func (.reg .b32 r) fact(.reg .b32 n)
{
	.reg .b32 %t<4>;
	.reg .pred %q;
	setp.le.u32 %q, n, 1;
	@%q bra BASE;
	sub.u32 %t1, n, 1;
	call (%t2), fact, (%t1);
	mul.lo.u32 r, %t2, n;
	ret;
BASE:
	mov.u32 r, 1;
	ret;
}

.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	CALL
	st.global.u32 [%rd3], %r2;
	ret;
}
"""


def test_recursive_calls_keep_each_frame_s_registers() -> None:
    """fact(tid % 8) by recursion: each level's %t2 and n are its own."""
    machine = Machine(CALLS.replace("CALL", "rem.u32 %r3, %r1, 8;\n\tcall (%r2), fact, (%r3);"), "c.ptx")
    out = machine.allocate(bytes(4 * 32))
    machine.launch("k", (1, 1, 1), (32, 1, 1), [out.to_bytes(8, "little")])
    data, fixed = machine.read(out, 4 * 32)
    assert all(fixed)
    factorials = [1, 1, 2, 6, 24, 120, 720, 5040]
    assert [int.from_bytes(data[i:i + 4], "little") for i in range(0, 128, 4)] == [factorials[t % 8] for t in range(32)]


def test_an_indirect_call_is_unsupported() -> None:
    text = CALLS.replace("CALL", "mov.u32 %r3, 2;\n\tcall (%r2), %r1, (%r3), proto;")
    with pytest.raises(UnsupportedError, match="indirect calls are not modelled"):
        Machine(text, "c.ptx").launch("k", (1, 1, 1), (32, 1, 1), [bytes(8)])


def test_wmma_is_memory_in_memory_out() -> None:
    """wmma.load/mma/store m16n16k16 f16 -> f32 with A = I (row-major), B[k][n] = 16k + n
    (column-major: element (k, n) at 16n + k), C = 1 (row-major f32): D = B + 1, stored row-major.
    PTX specifies nothing about the fragments in between."""
    text = HEADER + """.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d)
{
	.reg .b32 %r<24>;
	.reg .f32 %f<24>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u64 %rd3, [c];
	ld.param.u64 %rd4, [d];
	wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];
	wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15}, [%rd2];
	wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd3], 16;
	wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15},
		{%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15},
		{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};
	wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd4], {%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15};
	ret;
}
"""
    machine = Machine(text, "w.ptx")
    a = b"".join(struct.pack("<e", 1.0 if i // 16 == i % 16 else 0.0) for i in range(256))
    b = b"".join(struct.pack("<e", float(16 * (i % 16) + i // 16)) for i in range(256))  # (k, n) at 16n + k
    c = struct.pack("<256f", *([1.0] * 256))
    buffers = [machine.allocate(x) for x in (a, b, c, bytes(1024))]
    machine.launch("k", (1, 1, 1), (32, 1, 1), [x.to_bytes(8, "little") for x in buffers])
    data, fixed = machine.read(buffers[3], 1024)
    assert all(fixed)
    assert list(struct.unpack("<256f", data)) == [float(16 * (i // 16) + i % 16 + 1) for i in range(256)]


def test_module_variables_and_initializers() -> None:
    """.const and .global initializers are the bytes written; an address in an initializer (here a
    function's) is not a number PTX fixes, so it reads back unspecified, and a module holding one still
    runs its other kernels."""
    values, _ = run(STORE_TID + """\tand.b32 %r2, %r1, 3;
\tmul.wide.u32 %rd4, %r2, 4;
\tmov.u64 %rd5, table;
\tadd.u64 %rd6, %rd5, %rd4;
\tld.const.u32 %r3, [%rd6];
\tld.global.u32 %r4, [counter];
\tadd.u32 %r5, %r3, %r4;
\tld.global.u64 %rd7, [fns];
\tst.global.u32 [%rd3], %r5;
\tst.global.u64 [%rd1+256], %rd7;""", words=66, decls=""".const .align 4 .u32 table[4] = {10, 20, 30, 40};
.global .align 4 .u32 counter = 5;
.func f()
{
\tret;
}
.global .align 8 .u64 fns[1] = {f};""")
    assert values[:64] == [(i % 4 + 1) * 10 + 5 for i in range(64)]
    assert values[64:] == [None, None]


def test_local_arrays_of_functions_are_per_call() -> None:
    """A .func with a .local array reached through a generic address (nvcc's __local_depot): each
    call gets its own bytes, above the caller's, and the recursion sees them intact after returning."""
    text = CALLS.replace(".func (.reg .b32 r) fact", """.func (.reg .b32 r) sum_to(.reg .b32 n)
{
	.local .align 4 .b8 depot[8];
	.reg .b32 %t<6>;
	.reg .b64 %a<4>;
	.reg .pred %q;
	mov.u64 %a1, depot;
	cvta.local.u64 %a2, %a1;
	st.u32 [%a2], n;
	setp.eq.u32 %q, n, 0;
	@%q bra BASE;
	sub.u32 %t1, n, 1;
	call (%t2), sum_to, (%t1);
	ld.u32 %t3, [%a2];
	add.u32 r, %t2, %t3;
	ret;
BASE:
	mov.u32 r, 0;
	ret;
}

.func (.reg .b32 r) fact""").replace("CALL", "rem.u32 %r3, %r1, 8;\n\tcall (%r2), sum_to, (%r3);")
    machine = Machine(text, "l.ptx")
    out = machine.allocate(bytes(4 * 32))
    machine.launch("k", (1, 1, 1), (32, 1, 1), [out.to_bytes(8, "little")])
    data, fixed = machine.read(out, 4 * 32)
    assert all(fixed)
    assert [int.from_bytes(data[i:i + 4], "little") for i in range(0, 128, 4)] == [(t % 8) * (t % 8 + 1) // 2
                                                                                    for t in range(32)]
