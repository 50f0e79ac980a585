"""End-to-end emulator tests: LLVM IR kernels compiled for gfx942 by LLVM 22, run, checked against numpy.

Each kernel is small LLVM IR resembling what the PTX front end will produce; expected values come
from numpy / plain Python models of the kernel, never from the emulator.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.errors import LaunchError
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import Program
from ptx2gcn.runtime.emulator.memory import DeviceMemory

Kernel = Callable[[str], Program]
DECLS = """
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workitem.id.z()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()
declare i32 @llvm.amdgcn.workgroup.id.z()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
declare void @llvm.amdgcn.s.barrier()
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare i64 @llvm.ctpop.i64(i64)
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)
"""

# Global id x = workgroup.id.x * hidden_group_size_x (implicit arg +12, u16) + workitem.id.x.
GID_X = """
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %bid = call i32 @llvm.amdgcn.workgroup.id.x()
  %ia = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %gsp = getelementptr i8, ptr addrspace(4) %ia, i64 12
  %gs16 = load i16, ptr addrspace(4) %gsp
  %gs = zext i16 %gs16 to i32
  %base = mul i32 %bid, %gs
  %gid = add i32 %base, %tid
"""


# __syncthreads(): the work-group barrier between a release and an acquire fence, as LLVM wants it.
SYNCTHREADS = """fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire"""


def kernel_ir(body: str) -> str:
    """A test module: the intrinsic declarations, then ``body`` with ``$GID_X`` replaced by the global id
    code and ``$SYNCTHREADS`` by the barrier."""
    return DECLS + body.replace("$GID_X", GID_X).replace("$SYNCTHREADS", SYNCTHREADS)


def upload(memory: DeviceMemory, array: np.ndarray) -> int:
    address = memory.alloc(max(array.nbytes, 4))
    memory.write(address, array.tobytes())
    return address


def download(memory: DeviceMemory, address: int, count: int, dtype: object) -> np.ndarray:
    return np.frombuffer(memory.read(address, count * np.dtype(dtype).itemsize), dtype=dtype)


VADD = kernel_ir("""
define amdgpu_kernel void @vadd(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, i32 %n) {
$GID_X
  %ok = icmp slt i32 %gid, %n
  br i1 %ok, label %do, label %done
do:
  %pa = getelementptr float, ptr addrspace(1) %a, i32 %gid
  %pb = getelementptr float, ptr addrspace(1) %b, i32 %gid
  %pc = getelementptr float, ptr addrspace(1) %c, i32 %gid
  %x = load float, ptr addrspace(1) %pa
  %y = load float, ptr addrspace(1) %pb
  %z = fadd float %x, %y
  store float %z, ptr addrspace(1) %pc
  br label %done
done:
  ret void
}
""")


@pytest.mark.parametrize("n, block", [(1000, 256), (1000, 100), (37, 64)])
def test_vector_add_with_hidden_group_size_and_partial_waves(kernel: Kernel, n: int, block: int) -> None:
    program = kernel(VADD)
    memory = DeviceMemory()
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    pa, pb = upload(memory, a), upload(memory, b)
    pc = upload(memory, np.full(n, -7.0, dtype=np.float32))
    stats = launch(
        program,
        "vadd",
        grid=(-(-n // block),),
        block=(block,),
        kernarg=struct.pack("<QQQi", pa, pb, pc, n),
        memory=memory,
    )
    np.testing.assert_array_equal(download(memory, pc, n, np.float32), a + b)
    assert stats.waves == -(-n // block) * -(-block // 64)


REDUCE = kernel_ir("""
@lds = internal addrspace(3) global [256 x float] poison, align 4

define amdgpu_kernel void @reduce(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %bid = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = mul i32 %bid, 256
  %gi = add i32 %base, %tid
  %p = getelementptr float, ptr addrspace(1) %in, i32 %gi
  %v = load float, ptr addrspace(1) %p
  %lp = getelementptr [256 x float], ptr addrspace(3) @lds, i32 0, i32 %tid
  store float %v, ptr addrspace(3) %lp
  br label %loop
loop:
  %s = phi i32 [128, %entry], [%s2, %skip]
  $SYNCTHREADS
  %act = icmp ult i32 %tid, %s
  br i1 %act, label %add, label %skip
add:
  %oi = add i32 %tid, %s
  %op = getelementptr [256 x float], ptr addrspace(3) @lds, i32 0, i32 %oi
  %a = load float, ptr addrspace(3) %lp
  %b = load float, ptr addrspace(3) %op
  %c = fadd float %a, %b
  store float %c, ptr addrspace(3) %lp
  br label %skip
skip:
  %s2 = lshr i32 %s, 1
  %more = icmp ne i32 %s2, 0
  br i1 %more, label %loop, label %done
done:
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %write, label %exit
write:
  %r = load float, ptr addrspace(3) %lp
  %q = getelementptr float, ptr addrspace(1) %out, i32 %bid
  store float %r, ptr addrspace(1) %q
  br label %exit
exit:
  ret void
}
""")


def _tree_sum(values: np.ndarray) -> np.float32:
    """The kernel's summation order: stride 128, 64, ..., 1 over 256 float32 values."""
    work = values.astype(np.float32).copy()
    stride = 128
    while stride:
        work[:stride] = work[:stride] + work[stride : 2 * stride]
        stride //= 2
    return work[0]


def test_lds_tree_reduction_with_barriers(kernel: Kernel) -> None:
    program = kernel(REDUCE)
    memory = DeviceMemory()
    data = np.random.default_rng(2).standard_normal(3 * 256).astype(np.float32)
    pin, pout = upload(memory, data), upload(memory, np.zeros(3, dtype=np.float32))
    launch(program, "reduce", grid=(3,), block=(256,), kernarg=struct.pack("<QQ", pin, pout), memory=memory)
    expected = [_tree_sum(data[i * 256 : (i + 1) * 256]) for i in range(3)]
    np.testing.assert_array_equal(download(memory, pout, 3, np.float32), np.array(expected, dtype=np.float32))


LANE_OPS = kernel_ir("""
define amdgpu_kernel void @lanes(ptr addrspace(1) %in, ptr addrspace(1) %rot, ptr addrspace(1) %cnt,
                                 ptr addrspace(1) %rank) {
$GID_X
  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %lane = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lo)
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %gid
  %v = load i32, ptr addrspace(1) %p
  %next = add i32 %lane, 1
  %wrap = and i32 %next, 63
  %addr = shl i32 %wrap, 2
  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %addr, i32 %v)
  %q = getelementptr i32, ptr addrspace(1) %rot, i32 %gid
  store i32 %r, ptr addrspace(1) %q
  %odd = and i32 %v, 1
  %isodd = icmp ne i32 %odd, 0
  %ballot = call i64 @llvm.amdgcn.ballot.i64(i1 %isodd)
  %pop = call i64 @llvm.ctpop.i64(i64 %ballot)
  %pop32 = trunc i64 %pop to i32
  %c = getelementptr i32, ptr addrspace(1) %cnt, i32 %gid
  store i32 %pop32, ptr addrspace(1) %c
  %blo = trunc i64 %ballot to i32
  %bhi64 = lshr i64 %ballot, 32
  %bhi = trunc i64 %bhi64 to i32
  %rlo = call i32 @llvm.amdgcn.mbcnt.lo(i32 %blo, i32 0)
  %rk = call i32 @llvm.amdgcn.mbcnt.hi(i32 %bhi, i32 %rlo)
  %k = getelementptr i32, ptr addrspace(1) %rank, i32 %gid
  store i32 %rk, ptr addrspace(1) %k
  ret void
}
""")


def test_bpermute_rotation_ballot_counts_and_mbcnt(kernel: Kernel) -> None:
    program = kernel(LANE_OPS)
    memory = DeviceMemory()
    n = 128
    data = np.random.default_rng(3).integers(0, 1000, n).astype(np.int32)
    pin = upload(memory, data)
    outs = [upload(memory, np.zeros(n, dtype=np.int32)) for _ in range(3)]
    launch(program, "lanes", grid=(1,), block=(n,), kernarg=struct.pack("<QQQQ", pin, *outs), memory=memory)
    rot, cnt, rank = (download(memory, p, n, np.int32) for p in outs)
    waves = data.reshape(2, 64)
    np.testing.assert_array_equal(rot.reshape(2, 64), np.roll(waves, -1, axis=1))
    odd = waves % 2 == 1
    np.testing.assert_array_equal(cnt.reshape(2, 64), np.repeat(odd.sum(axis=1), 64).reshape(2, 64))
    expected_rank = np.cumsum(odd, axis=1) - odd  # odd lanes below this one
    np.testing.assert_array_equal(rank.reshape(2, 64), expected_rank)


LOOP64 = kernel_ir("""
define amdgpu_kernel void @loop64(ptr addrspace(1) %out, i32 %n) {
entry:
$GID_X
  %start = zext i32 %gid to i64
  %trip = add i32 %n, %gid
  br label %loop
loop:
  %k = phi i32 [0, %entry], [%k1, %loop]
  %acc = phi i64 [%start, %entry], [%acc3, %loop]
  %m = mul i64 %acc, 6364136223846793005
  %kk = zext i32 %k to i64
  %acc1 = add i64 %m, %kk
  %q = udiv i64 %acc1, 1000003
  %r = srem i64 %acc1, 97
  %acc2 = xor i64 %acc1, %q
  %acc3 = add i64 %acc2, %r
  %k1 = add i32 %k, 1
  %more = icmp ult i32 %k1, %trip
  br i1 %more, label %loop, label %done
done:
  %p = getelementptr i64, ptr addrspace(1) %out, i32 %gid
  store i64 %acc3, ptr addrspace(1) %p
  ret void
}
""")


def _loop64_model(gid: int, n: int) -> int:
    mask = (1 << 64) - 1
    acc = gid
    for k in range(n + gid):
        acc1 = (acc * 6364136223846793005 + k) & mask
        q = acc1 // 1000003
        signed = acc1 - (1 << 64) if acc1 >> 63 else acc1
        r = abs(signed) % 97 * (1 if signed >= 0 else -1)  # srem: truncated, sign of the dividend
        acc = ((acc1 ^ q) + r) & mask
    return acc


def test_divergent_64_bit_loop_with_udiv_srem(kernel: Kernel) -> None:
    program = kernel(LOOP64)
    memory = DeviceMemory()
    n = 70
    out = upload(memory, np.zeros(n, dtype=np.uint64))
    launch(program, "loop64", grid=(1,), block=(n,), kernarg=struct.pack("<Qi", out, 5), memory=memory)
    expected = np.array([_loop64_model(g, 5) for g in range(n)], dtype=np.uint64)
    np.testing.assert_array_equal(download(memory, out, n, np.uint64), expected)


ATOMICS = kernel_ir("""
define amdgpu_kernel void @atomics(ptr addrspace(1) %ctr, ptr addrspace(1) %old, ptr addrspace(1) %fsum,
                                   ptr addrspace(1) %mx, ptr addrspace(1) %big, ptr addrspace(1) %cas) {
$GID_X
  %o = atomicrmw add ptr addrspace(1) %ctr, i32 1 seq_cst, align 4
  %po = getelementptr i32, ptr addrspace(1) %old, i32 %gid
  store i32 %o, ptr addrspace(1) %po
  %f = uitofp i32 %gid to float
  %unused = atomicrmw fadd ptr addrspace(1) %fsum, float %f syncscope("agent") monotonic, align 4
  %sv = sub i32 50, %gid
  %m = atomicrmw max ptr addrspace(1) %mx, i32 %sv seq_cst, align 4
  %g64 = zext i32 %gid to i64
  %big1 = shl i64 %g64, 33
  %b = atomicrmw add ptr addrspace(1) %big, i64 %big1 seq_cst, align 8
  %pair = cmpxchg ptr addrspace(1) %cas, i32 0, i32 %gid seq_cst seq_cst, align 4
  ret void
}
""")


def test_atomics_return_pre_op_values(kernel: Kernel) -> None:
    program = kernel(ATOMICS)
    memory = DeviceMemory()
    n = 96
    ctr, old = upload(memory, np.array([10], np.uint32)), upload(memory, np.zeros(n, np.uint32))
    fsum, mx = upload(memory, np.zeros(1, np.float32)), upload(memory, np.array([-1000], np.int32))
    big, cas = upload(memory, np.zeros(1, np.uint64)), upload(memory, np.zeros(1, np.uint32))
    launch(
        program,
        "atomics",
        grid=(2,),
        block=(48,),
        kernarg=struct.pack("<6Q", ctr, old, fsum, mx, big, cas),
        memory=memory,
    )
    assert download(memory, ctr, 1, np.uint32)[0] == 10 + n
    np.testing.assert_array_equal(np.sort(download(memory, old, n, np.uint32)), np.arange(10, 10 + n))
    assert download(memory, fsum, 1, np.float32)[0] == sum(range(n))  # exact: small integers
    assert download(memory, mx, 1, np.int32)[0] == 50
    assert download(memory, big, 1, np.uint64)[0] == sum(g << 33 for g in range(n)) % 2**64
    assert download(memory, cas, 1, np.uint32)[0] in range(n)


CALLS = kernel_ir("""
define internal i32 @helper(i32 %x, i32 %k) #0 {
entry:
  %arr = alloca [16 x i32], align 4, addrspace(5)
  br label %fill
fill:
  %i = phi i32 [0, %entry], [%i1, %fill]
  %v = mul i32 %x, %i
  %pi = getelementptr [16 x i32], ptr addrspace(5) %arr, i32 0, i32 %i
  store volatile i32 %v, ptr addrspace(5) %pi
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, 16
  br i1 %more, label %fill, label %read
read:
  %kk = and i32 %k, 15
  %pk = getelementptr [16 x i32], ptr addrspace(5) %arr, i32 0, i32 %kk
  %r = load volatile i32, ptr addrspace(5) %pk
  ret i32 %r
}

define internal void @store_generic(ptr %p, i32 %v) #0 {
  store i32 %v, ptr %p
  ret void
}

define internal i32 @load_generic(ptr %p) #0 {
  %v = load i32, ptr %p
  ret i32 %v
}

@shared = internal addrspace(3) global [64 x i32] poison, align 4

define amdgpu_kernel void @calls(ptr addrspace(1) %out, ptr addrspace(1) %gen) {
$GID_X
  %r = call i32 @helper(i32 %gid, i32 %tid)
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %gid
  store i32 %r, ptr addrspace(1) %p
  %priv = alloca i32, align 4, addrspace(5)
  %pg = addrspacecast ptr addrspace(5) %priv to ptr
  %t3 = mul i32 %gid, 3
  call void @store_generic(ptr %pg, i32 %t3)
  %lp = getelementptr [64 x i32], ptr addrspace(3) @shared, i32 0, i32 %tid
  %lg = addrspacecast ptr addrspace(3) %lp to ptr
  %t5 = add i32 %gid, 500
  call void @store_generic(ptr %lg, i32 %t5)
  %a = call i32 @load_generic(ptr %pg)
  %b = load i32, ptr addrspace(3) %lp
  %sum = add i32 %a, %b
  %q = getelementptr i32, ptr addrspace(1) %gen, i32 %gid
  store i32 %sum, ptr addrspace(1) %q
  ret void
}

attributes #0 = { noinline }
""")


def test_device_calls_with_stack_and_generic_pointers(kernel: Kernel) -> None:
    program = kernel(CALLS)
    memory = DeviceMemory()
    n = 64
    out, gen = upload(memory, np.zeros(n, np.int32)), upload(memory, np.zeros(n, np.int32))
    launch(program, "calls", grid=(1,), block=(n,), kernarg=struct.pack("<QQ", out, gen), memory=memory)
    gid = np.arange(n)
    np.testing.assert_array_equal(download(memory, out, n, np.int32), gid * (gid & 15))
    np.testing.assert_array_equal(download(memory, gen, n, np.int32), gid * 3 + gid + 500)


HALF = kernel_ir("""
define amdgpu_kernel void @half(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out,
                                ptr addrspace(1) %vout) {
$GID_X
  %pa = getelementptr half, ptr addrspace(1) %a, i32 %gid
  %pb = getelementptr half, ptr addrspace(1) %b, i32 %gid
  %x = load half, ptr addrspace(1) %pa
  %y = load half, ptr addrspace(1) %pb
  %m = fmul half %x, %y
  %s = fadd half %m, %x
  %po = getelementptr half, ptr addrspace(1) %out, i32 %gid
  store half %s, ptr addrspace(1) %po
  %pv = getelementptr <2 x half>, ptr addrspace(1) %a, i32 %gid
  %va = load <2 x half>, ptr addrspace(1) %pv
  %vm = fmul <2 x half> %va, <half 0xH4000, half 0xH3800>
  %vs = fadd <2 x half> %vm, %va
  %pvo = getelementptr <2 x half>, ptr addrspace(1) %vout, i32 %gid
  store <2 x half> %vs, ptr addrspace(1) %pvo
  ret void
}
""")


def test_half_precision_scalar_and_packed(kernel: Kernel) -> None:
    program = kernel(HALF)
    memory = DeviceMemory()
    n = 64
    rng = np.random.default_rng(5)
    a = rng.standard_normal(2 * n).astype(np.float16)
    b = rng.standard_normal(n).astype(np.float16)
    pa, pb = upload(memory, a), upload(memory, b)
    out, vout = upload(memory, np.zeros(n, np.float16)), upload(memory, np.zeros(2 * n, np.float16))
    launch(program, "half", grid=(1,), block=(n,), kernarg=struct.pack("<4Q", pa, pb, out, vout), memory=memory)
    np.testing.assert_array_equal(download(memory, out, n, np.float16), (a[:n] * b) + a[:n])
    scale = np.tile(np.array([2.0, 0.5], np.float16), n)
    np.testing.assert_array_equal(download(memory, vout, 2 * n, np.float16), (a * scale) + a)


DENORMAL = kernel_ir("""
define amdgpu_kernel void @denorm(ptr addrspace(1) %in, ptr addrspace(1) %out) {
$GID_X
  %p = getelementptr float, ptr addrspace(1) %in, i32 %gid
  %x = load float, ptr addrspace(1) %p
  %y = fmul float %x, 1.5
  %z = fadd float %y, %x
  %q = getelementptr float, ptr addrspace(1) %out, i32 %gid
  store float %z, ptr addrspace(1) %q
  ret void
}
""")


def test_denormals_are_kept(kernel: Kernel) -> None:
    program = kernel(DENORMAL)
    assert program.kernels["denorm"].descriptor.rsrc1.float_denorm_mode_32 == 3
    memory = DeviceMemory()
    values = np.array([1e-39, -3e-40, 1e-45, 1.0, 5e-39] * 13, dtype=np.float32)[:64]
    pin, pout = upload(memory, values), upload(memory, np.zeros(64, np.float32))
    launch(program, "denorm", grid=(1,), block=(64,), kernarg=struct.pack("<QQ", pin, pout), memory=memory)
    expected = values * np.float32(1.5) + values
    np.testing.assert_array_equal(download(memory, pout, 64, np.float32), expected)
    assert (np.abs(expected[:3]) < np.finfo(np.float32).tiny).all()


GRID3D = kernel_ir("""
define amdgpu_kernel void @grid3d(ptr addrspace(1) %out) {
  %tx = call i32 @llvm.amdgcn.workitem.id.x()
  %ty = call i32 @llvm.amdgcn.workitem.id.y()
  %tz = call i32 @llvm.amdgcn.workitem.id.z()
  %bx = call i32 @llvm.amdgcn.workgroup.id.x()
  %by = call i32 @llvm.amdgcn.workgroup.id.y()
  %bz = call i32 @llvm.amdgcn.workgroup.id.z()
  %ia = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %pcx = getelementptr i8, ptr addrspace(4) %ia, i64 0
  %pcy = getelementptr i8, ptr addrspace(4) %ia, i64 4
  %psx = getelementptr i8, ptr addrspace(4) %ia, i64 12
  %psy = getelementptr i8, ptr addrspace(4) %ia, i64 14
  %psz = getelementptr i8, ptr addrspace(4) %ia, i64 16
  %cx = load i32, ptr addrspace(4) %pcx
  %cy = load i32, ptr addrspace(4) %pcy
  %sx16 = load i16, ptr addrspace(4) %psx
  %sy16 = load i16, ptr addrspace(4) %psy
  %sz16 = load i16, ptr addrspace(4) %psz
  %sx = zext i16 %sx16 to i32
  %sy = zext i16 %sy16 to i32
  %sz = zext i16 %sz16 to i32
  %gx0 = mul i32 %bx, %sx
  %gx = add i32 %gx0, %tx
  %gy0 = mul i32 %by, %sy
  %gy = add i32 %gy0, %ty
  %gz0 = mul i32 %bz, %sz
  %gz = add i32 %gz0, %tz
  %nx = mul i32 %cx, %sx
  %ny = mul i32 %cy, %sy
  %row = mul i32 %gz, %ny
  %row2 = add i32 %row, %gy
  %lin0 = mul i32 %row2, %nx
  %lin = add i32 %lin0, %gx
  %vy = shl i32 %gy, 10
  %vz = shl i32 %gz, 20
  %v0 = or i32 %gx, %vy
  %v = or i32 %v0, %vz
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %lin
  store i32 %v, ptr addrspace(1) %p
  ret void
}
""")


def test_3d_grid_and_packed_workitem_ids(kernel: Kernel) -> None:
    program = kernel(GRID3D)
    memory = DeviceMemory()
    grid, block = (3, 2, 2), (5, 4, 3)
    nx, ny, nz = (g * b for g, b in zip(grid, block))
    out = upload(memory, np.full(nx * ny * nz, 0xFFFFFFFF, np.uint32))
    launch(program, "grid3d", grid=grid, block=block, kernarg=struct.pack("<Q", out), memory=memory)
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    expected = (x | y << 10 | z << 20).astype(np.uint32).ravel()
    np.testing.assert_array_equal(download(memory, out, nx * ny * nz, np.uint32), expected)


DYNAMIC_LDS = kernel_ir("""
@static = internal addrspace(3) global [16 x i32] poison, align 4
@dyn = external addrspace(3) global [0 x i32], align 4

define amdgpu_kernel void @dynlds(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %s = getelementptr [16 x i32], ptr addrspace(3) @static, i32 0, i32 0
  store volatile i32 77, ptr addrspace(3) %s
  %p = getelementptr [0 x i32], ptr addrspace(3) @dyn, i32 0, i32 %tid
  %v = mul i32 %tid, 10
  store i32 %v, ptr addrspace(3) %p
  $SYNCTHREADS
  %r = sub i32 63, %tid
  %q = getelementptr [0 x i32], ptr addrspace(3) @dyn, i32 0, i32 %r
  %x = load i32, ptr addrspace(3) %q
  %y = load volatile i32, ptr addrspace(3) %s
  %z = add i32 %x, %y
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %z, ptr addrspace(1) %o
  ret void
}
""")


def test_dynamic_lds_follows_static_lds(kernel: Kernel) -> None:
    from ptx2gcn.runtime.emulator.errors import EmulatorFault

    program = kernel(DYNAMIC_LDS)
    assert program.kernels["dynlds"].descriptor.group_segment_fixed_size == 64
    memory = DeviceMemory()
    out = upload(memory, np.zeros(64, np.int32))
    launch(program, "dynlds", grid=(1,), block=(64,), kernarg=struct.pack("<Q", out), dynamic_lds=256, memory=memory)
    np.testing.assert_array_equal(download(memory, out, 64, np.int32), (63 - np.arange(64)) * 10 + 77)
    with pytest.raises(EmulatorFault, match="outside the work-group's 128 bytes of LDS"):
        launch(program, "dynlds", grid=(1,), block=(64,), kernarg=struct.pack("<Q", out), dynamic_lds=64, memory=memory)


HISTOGRAM = kernel_ir("""
@bins = internal addrspace(3) global [16 x i32] poison, align 4

define amdgpu_kernel void @histogram(ptr addrspace(1) %data, ptr addrspace(1) %hist, ptr addrspace(1) %slot) {
$GID_X
  %p = getelementptr i32, ptr addrspace(1) %data, i32 %gid
  %v = load i32, ptr addrspace(1) %p
  %bin = and i32 %v, 15
  %first = icmp ult i32 %tid, 16
  br i1 %first, label %clear, label %go
clear:
  %cp = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %tid
  store i32 0, ptr addrspace(3) %cp
  br label %go
go:
  $SYNCTHREADS
  %lp = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %bin
  %old = atomicrmw add ptr addrspace(3) %lp, i32 1 monotonic, align 4
  %sp = getelementptr i32, ptr addrspace(1) %slot, i32 %gid
  store i32 %old, ptr addrspace(1) %sp
  $SYNCTHREADS
  br i1 %first, label %flush, label %done
flush:
  %fp = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %tid
  %count = load i32, ptr addrspace(3) %fp
  %hp = getelementptr i32, ptr addrspace(1) %hist, i32 %tid
  %unused = atomicrmw add ptr addrspace(1) %hp, i32 %count syncscope("agent") monotonic, align 4
  br label %done
done:
  ret void
}
""")


def test_histogram_with_scattered_lds_and_global_atomics(kernel: Kernel) -> None:
    program = kernel(HISTOGRAM)
    memory = DeviceMemory()
    n, block = 512, 128
    data = np.random.default_rng(12).integers(0, 1 << 20, n).astype(np.int32)
    pdata, hist = upload(memory, data), upload(memory, np.zeros(16, np.int32))
    slot = upload(memory, np.zeros(n, np.int32))
    launch(
        program,
        "histogram",
        grid=(n // block,),
        block=(block,),
        kernarg=struct.pack("<3Q", pdata, hist, slot),
        memory=memory,
    )
    np.testing.assert_array_equal(download(memory, hist, 16, np.int32), np.bincount(data & 15, minlength=16))
    slots = download(memory, slot, n, np.int32)
    for group in range(n // block):  # per work-group, each bin hands out 0..count-1 exactly once
        bins = data[group * block : (group + 1) * block] & 15
        for b in range(16):
            got = np.sort(slots[group * block : (group + 1) * block][bins == b])
            np.testing.assert_array_equal(got, np.arange(np.count_nonzero(bins == b)))


PRELOAD = kernel_ir("""
define amdgpu_kernel void @pre(ptr addrspace(1) inreg %out, i32 inreg %k) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %v = add i32 %t, %k
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %v, ptr addrspace(1) %p
  ret void
}
""")


def test_preloaded_kernel_arguments(kernel: Kernel) -> None:
    program = kernel(PRELOAD)
    kd = program.kernels["pre"].descriptor
    assert kd.kernarg_preload_spec_length == 3 and kd.kernarg_preload_spec_offset == 0
    memory = DeviceMemory()
    out = upload(memory, np.zeros(64, np.int32))
    lines: list[str] = []
    launch(
        program,
        "pre",
        grid=(1,),
        block=(64,),
        kernarg=struct.pack("<Qi", out, 1000),
        memory=memory,
        trace=True,
        trace_sink=lines.append,
    )
    np.testing.assert_array_equal(download(memory, out, 64, np.int32), np.arange(64) + 1000)
    assert "s_load" not in lines[0]  # started past the compatibility prologue, SGPRs preloaded


GLOBALS = kernel_ir("""
@counter = addrspace(1) global i32 5, align 4
@table = addrspace(1) global [4 x i32] [i32 10, i32 20, i32 30, i32 40], align 4
@ptrs = addrspace(1) global [2 x ptr addrspace(1)]
    [ptr addrspace(1) @counter, ptr addrspace(1) @table], align 8

define amdgpu_kernel void @globals(ptr addrspace(1) %out) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %i = and i32 %t, 3
  %pt = getelementptr [4 x i32], ptr addrspace(1) @table, i32 0, i32 %i
  %v = load i32, ptr addrspace(1) %pt
  %pp = load ptr addrspace(1),
        ptr addrspace(1) getelementptr ([2 x ptr addrspace(1)], ptr addrspace(1) @ptrs, i32 0, i32 1)
  %q = getelementptr i32, ptr addrspace(1) %pp, i32 %i
  %w = load i32, ptr addrspace(1) %q
  %s = add i32 %v, %w
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %s, ptr addrspace(1) %o
  %unused = atomicrmw add ptr addrspace(1) @counter, i32 1 monotonic, align 4
  ret void
}
""")


def test_globals_are_mapped_relocated_and_visible_from_the_host(kernel: Kernel) -> None:
    program = kernel(GLOBALS)
    memory = DeviceMemory()
    out = upload(memory, np.zeros(8, np.int32))
    launch(program, "globals", grid=(1,), block=(8,), kernarg=struct.pack("<Q", out), memory=memory)
    np.testing.assert_array_equal(download(memory, out, 8, np.int32), np.array([20, 40, 60, 80] * 2))
    counter = program.symbol_address(memory, "counter")
    assert np.frombuffer(memory.read(counter, 4), np.int32)[0] == 5 + 8
    pointers = np.frombuffer(memory.read(program.symbol_address(memory, "ptrs"), 16), np.uint64)
    assert pointers.tolist() == [counter, program.symbol_address(memory, "table")]  # RELATIVE64/ABS64 applied
    assert program.symbol_size("table") == 16 and program.symbol_size("ptrs") == 16
    launch(program, "globals", grid=(1,), block=(8,), kernarg=struct.pack("<Q", out), memory=memory)
    assert np.frombuffer(memory.read(counter, 4), np.int32)[0] == 5 + 16  # state persists between launches
    with pytest.raises(LaunchError, match="no symbol named 'nope'"):
        program.symbol_address(memory, "nope")


SPIN_WAIT = kernel_ir("""
declare void @llvm.amdgcn.s.sleep(i32)
@flag = internal addrspace(3) global i32 poison, align 4

define amdgpu_kernel void @handoff(ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %first = icmp eq i32 %t, 0
  br i1 %first, label %init, label %wave
init:
  store volatile i32 0, ptr addrspace(3) @flag
  br label %wave
wave:
  $SYNCTHREADS
  %w0 = icmp ult i32 %t, 64
  br i1 %w0, label %wait, label %signal
wait:
  %f = load atomic i32, ptr addrspace(3) @flag acquire, align 4
  %ready = icmp ne i32 %f, 0
  br i1 %ready, label %done, label %nap
nap:
  call void @llvm.amdgcn.s.sleep(i32 1)
  br label %wait
signal:
  %is64 = icmp eq i32 %t, 64
  br i1 %is64, label %set, label %done
set:
  store atomic i32 42, ptr addrspace(3) @flag release, align 4
  br label %done
done:
  %v = load atomic i32, ptr addrspace(3) @flag acquire, align 4
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %v, ptr addrspace(1) %o
  ret void
}
""")


def test_spin_wait_between_waves_of_a_group_terminates(kernel: Kernel) -> None:
    """Wave 0 spins (with s_sleep) until wave 1 sets a flag in LDS: the scheduler must let wave 1 run."""
    program = kernel(SPIN_WAIT)
    memory = DeviceMemory()
    out = upload(memory, np.zeros(128, np.int32))
    stats = launch(
        program, "handoff", grid=(1,), block=(128,), kernarg=struct.pack("<Q", out), memory=memory, step_budget=100_000
    )
    np.testing.assert_array_equal(download(memory, out, 128, np.int32)[:64], np.full(64, 42))
    assert stats.wave_instructions < 1000  # s_sleep yielded at once instead of spinning for a quantum


SGEMM = kernel_ir("""
@ta = internal addrspace(3) global [16 x [16 x float]] poison, align 4
@tb = internal addrspace(3) global [16 x [16 x float]] poison, align 4

define amdgpu_kernel void @sgemm(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, i32 %n) {
entry:
  %tx = call i32 @llvm.amdgcn.workitem.id.x()
  %ty = call i32 @llvm.amdgcn.workitem.id.y()
  %bx = call i32 @llvm.amdgcn.workgroup.id.x()
  %by = call i32 @llvm.amdgcn.workgroup.id.y()
  %col0 = shl i32 %bx, 4
  %col = add i32 %col0, %tx
  %row0 = shl i32 %by, 4
  %row = add i32 %row0, %ty
  %tiles = lshr i32 %n, 4
  %pa_l = getelementptr [16 x [16 x float]], ptr addrspace(3) @ta, i32 0, i32 %ty, i32 %tx
  %pb_l = getelementptr [16 x [16 x float]], ptr addrspace(3) @tb, i32 0, i32 %ty, i32 %tx
  br label %tile
tile:
  %t = phi i32 [0, %entry], [%t1, %tile_end]
  %acc = phi float [0.0, %entry], [%acc_k, %tile_end]
  %k0 = shl i32 %t, 4
  %acol = add i32 %k0, %tx
  %ai0 = mul i32 %row, %n
  %ai = add i32 %ai0, %acol
  %pa = getelementptr float, ptr addrspace(1) %a, i32 %ai
  %va = load float, ptr addrspace(1) %pa
  store float %va, ptr addrspace(3) %pa_l
  %brow = add i32 %k0, %ty
  %bi0 = mul i32 %brow, %n
  %bi = add i32 %bi0, %col
  %pb = getelementptr float, ptr addrspace(1) %b, i32 %bi
  %vb = load float, ptr addrspace(1) %pb
  store float %vb, ptr addrspace(3) %pb_l
  $SYNCTHREADS
  br label %inner
inner:
  %k = phi i32 [0, %tile], [%k1, %inner]
  %s = phi float [%acc, %tile], [%s1, %inner]
  %x_p = getelementptr [16 x [16 x float]], ptr addrspace(3) @ta, i32 0, i32 %ty, i32 %k
  %y_p = getelementptr [16 x [16 x float]], ptr addrspace(3) @tb, i32 0, i32 %k, i32 %tx
  %x = load float, ptr addrspace(3) %x_p
  %y = load float, ptr addrspace(3) %y_p
  %s1 = call float @llvm.fma.f32(float %x, float %y, float %s)
  %k1 = add i32 %k, 1
  %more_k = icmp ult i32 %k1, 16
  br i1 %more_k, label %inner, label %tile_end
tile_end:
  %acc_k = phi float [%s1, %inner]
  $SYNCTHREADS
  %t1 = add i32 %t, 1
  %more_t = icmp ult i32 %t1, %tiles
  br i1 %more_t, label %tile, label %done
done:
  %ci0 = mul i32 %row, %n
  %ci = add i32 %ci0, %col
  %pc = getelementptr float, ptr addrspace(1) %c, i32 %ci
  store float %acc_k, ptr addrspace(1) %pc
  ret void
}
declare float @llvm.fma.f32(float, float, float)
""")


def test_tiled_sgemm_with_lds_and_barriers(kernel: Kernel) -> None:
    program = kernel(SGEMM)
    memory = DeviceMemory()
    n = 48
    rng = np.random.default_rng(13)
    a = rng.integers(-8, 8, (n, n)).astype(np.float32)  # small integers: every partial sum is exact
    b = rng.integers(-8, 8, (n, n)).astype(np.float32)
    pa, pb, pc = upload(memory, a), upload(memory, b), upload(memory, np.zeros((n, n), np.float32))
    stats = launch(
        program,
        "sgemm",
        grid=(n // 16, n // 16),
        block=(16, 16),
        kernarg=struct.pack("<3Qi", pa, pb, pc, n),
        memory=memory,
    )
    np.testing.assert_array_equal(download(memory, pc, n * n, np.float32).reshape(n, n), a @ b)
    assert stats.workgroups == 9 and stats.waves == 36


DISPATCH = kernel_ir("""
declare ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
define amdgpu_kernel void @dispatch(ptr addrspace(1) %out) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %first = icmp eq i32 %t, 0
  br i1 %first, label %write, label %done
write:
  %dp = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %h = load i32, ptr addrspace(4) %dp
  %pw = getelementptr i8, ptr addrspace(4) %dp, i64 4
  %w = load i16, ptr addrspace(4) %pw
  %w32 = zext i16 %w to i32
  %pg = getelementptr i8, ptr addrspace(4) %dp, i64 12
  %g = load i32, ptr addrspace(4) %pg
  %pk = getelementptr i8, ptr addrspace(4) %dp, i64 40
  %k = load i64, ptr addrspace(4) %pk
  store i32 %h, ptr addrspace(1) %out
  %o1 = getelementptr i32, ptr addrspace(1) %out, i32 1
  store i32 %w32, ptr addrspace(1) %o1
  %o2 = getelementptr i32, ptr addrspace(1) %out, i32 2
  store i32 %g, ptr addrspace(1) %o2
  %o3 = getelementptr i64, ptr addrspace(1) %out, i32 2
  store i64 %k, ptr addrspace(1) %o3
  br label %done
done:
  ret void
}
""")


def test_dispatch_packet_fields(kernel: Kernel) -> None:
    program = kernel(DISPATCH)
    assert program.kernels["dispatch"].descriptor.enable_sgpr_dispatch_ptr
    memory = DeviceMemory()
    out = upload(memory, np.zeros(6, np.uint32))
    launch(program, "dispatch", grid=(3, 2), block=(96,), kernarg=struct.pack("<Q", out), memory=memory)
    header, setup_and_size, grid_x, _, kernarg_lo, kernarg_hi = download(memory, out, 6, np.uint32).tolist()
    assert header & 0xFF == 2 and header >> 16 == 2  # KERNEL_DISPATCH; setup = 2 dimensions
    assert setup_and_size == 96 and grid_x == 3 * 96
    assert kernarg_lo | kernarg_hi << 32 > 0  # the kernarg segment's device address


def _wide_vector_kernel() -> str:
    return (
        DECLS
        + """
define amdgpu_kernel void @wide(ptr addrspace(1) %out, ptr addrspace(1) %in) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr <64 x float>, ptr addrspace(1) %in, i32 %t
  %v0 = load volatile <64 x float>, ptr addrspace(1) %p
  %f = uitofp i32 %t to float
  %v = fadd <64 x float> %v0, %v0
  %i = and i32 %t, 63
  %w = insertelement <64 x float> %v, float %f, i32 %i
  %j = xor i32 %i, 5
  %e = extractelement <64 x float> %w, i32 %j
  %q = getelementptr float, ptr addrspace(1) %out, i32 %t
  store float %e, ptr addrspace(1) %q
  ret void
}
"""
    )


def test_wide_vectors_dynamic_insert_extract_and_packed_f32(kernel: Kernel) -> None:
    """<64 x float> arithmetic becomes v_pk_add_f32; dynamic insert/extract become compare/select chains."""
    program = kernel(_wide_vector_kernel())
    memory = DeviceMemory()
    data = np.random.default_rng(14).standard_normal((64, 64)).astype(np.float32)
    pin, out = upload(memory, data), upload(memory, np.zeros(64, np.float32))
    launch(program, "wide", grid=(1,), block=(64,), kernarg=struct.pack("<QQ", out, pin), memory=memory)
    expected = []
    for t in range(64):
        row = data[t] + data[t]
        row[t] = np.float32(t)
        expected.append(row[t ^ 5])
    np.testing.assert_array_equal(download(memory, out, 64, np.float32), np.array(expected, np.float32))


def test_workitem_id_y_z_bits_only_when_enabled(kernel: Kernel) -> None:
    """A kernel that only asks for work-item id x gets v0 = x even in a 2D block (LLVM uses v0 as is)."""
    program = kernel(VADD)
    assert program.kernels["vadd"].descriptor.rsrc2.enable_vgpr_workitem_id == 0
    memory = DeviceMemory()
    n = 4096  # large enough that ids with y bits (x | y << 10) would land inside the buffers
    a, b = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    pa, pb, pc = upload(memory, a), upload(memory, b), upload(memory, np.zeros(n, np.float32))
    # hidden_group_size_x = 16 and x in 0..15: the four rows of the 16 x 4 block write the same 16 outputs
    launch(program, "vadd", grid=(1,), block=(16, 4), kernarg=struct.pack("<QQQi", pa, pb, pc, n), memory=memory)
    got = download(memory, pc, n, np.float32)
    np.testing.assert_array_equal(got[:16], a[:16] + 1)
    assert (got[16:] == 0).all()
