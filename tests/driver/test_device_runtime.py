"""CUDA's device runtime library (``libcudadevrt.a``, cubins only) in a ``cuLink*`` link becomes
ptx2gcn's PTX of its cooperative-groups grid functions (``runtime/driver/device_runtime.py``).

A hand-written PTX unit calls them as compiled code does (numba-cuda's ``this_grid().sync()``,
``nvcc -rdc``): three grid barriers between phases that read other blocks' writes, checked against
numpy; the calling thread's rank and the grid's size against the launch geometry; a plain (not
cooperative) launch traps as on CUDA. No numba involved."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn import cuda
from ptx2gcn.runtime.driver.device_runtime import DEVICE_RUNTIME_PTX, is_device_runtime
from ptx2gcn.runtime.driver.ptx_link import link_ptx
from ptx2gcn.runtime.emulator import executor
from tests.driver.conftest import fails, ok

R = cuda.CUresult
T = cuda.CUjitInputType
TOOLKIT_DEVRT = Path("/usr/local/cuda/lib64/libcudadevrt.a")
PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
INFO = 8
"""u32 per thread in ``info``: tid.x, tid.y, ctaid.x, ctaid.y, grid threads, grids, grid rank, other-scope handle."""

KERNEL_UNIT = """
.version 7.0
.target sm_70
.address_size 64
.extern .func (.param .b64 h) cudaCGGetIntrinsicHandle(.param .b32 scope);
.extern .func (.param .b32 e) cudaCGSynchronize(.param .b64 h, .param .b32 flags);
.extern .func (.param .b32 e) cudaCGGetSize(.param .b64 threads, .param .b64 grids, .param .b64 h);
.extern .func (.param .b32 e) cudaCGGetRank(.param .b64 rank, .param .b64 grid_rank, .param .b64 h);

.func (.param .b32 e) sync_grid(.param .b64 h)
{
  .reg .b64 %h; .reg .b32 %e;
  ld.param.u64 %h, [h];
  { .param .b64 p0; .param .b32 p1; .param .b32 r0;
    st.param.b64 [p0], %h; st.param.b32 [p1], 0;
    call.uni (r0), cudaCGSynchronize, (p0, p1);
    ld.param.b32 %e, [r0]; }
  st.param.b32 [e], %e;
  ret;
}

.visible .entry phases(.param .u64 pa, .param .u64 pb, .param .u64 pinfo, .param .u32 pn)
{
  .reg .b32 %r<24>; .reg .b64 %rd<24>; .reg .b64 %h; .reg .pred %p<3>;
  .local .align 4 .b8 slot[4];
  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pinfo]; ld.param.u32 %r1, [pn];
  { .param .b32 s; .param .b64 r; st.param.b32 [s], 1;
    call.uni (r), cudaCGGetIntrinsicHandle, (s); ld.param.b64 %h, [r]; }
  { .param .b32 s; .param .b64 r; st.param.b32 [s], 2;
    call.uni (r), cudaCGGetIntrinsicHandle, (s); ld.param.b64 %rd4, [r]; }
  // the rank, through a generic pointer to a local variable (as compiled code passes &rank)
  mov.u32 %r2, %ctaid.x; mov.u32 %r4, %tid.x;
  mov.u64 %rd6, slot;
  cvta.local.u64 %rd7, %rd6;
  { .param .b64 a; .param .b64 b; .param .b64 c; .param .b32 e;
    st.param.b64 [a], %rd7; st.param.b64 [b], 0; st.param.b64 [c], %h;
    call.uni (e), cudaCGGetRank, (a, b, c); }
  ld.u32 %r6, [%rd7];
  { .param .b32 e; .param .b64 h; st.param.b64 [h], %h; call.uni (e), sync_grid, (h); }
  // info[rank]
  mul.wide.u32 %rd8, %r6, 32;
  add.s64 %rd9, %rd3, %rd8;
  mov.u32 %r7, %tid.y; mov.u32 %r8, %ctaid.y;
  st.u32 [%rd9], %r4; st.u32 [%rd9+4], %r7; st.u32 [%rd9+8], %r2; st.u32 [%rd9+12], %r8;
  add.s64 %rd10, %rd9, 16; add.s64 %rd11, %rd9, 20; add.s64 %rd12, %rd9, 24;
  { .param .b64 a; .param .b64 b; .param .b64 c; .param .b32 e;
    st.param.b64 [a], %rd10; st.param.b64 [b], %rd11; st.param.b64 [c], %h;
    call.uni (e), cudaCGGetSize, (a, b, c); }
  { .param .b64 a; .param .b64 b; .param .b64 c; .param .b32 e;
    st.param.b64 [a], 0; st.param.b64 [b], %rd12; st.param.b64 [c], %h;
    call.uni (e), cudaCGGetRank, (a, b, c); }
  cvt.u32.u64 %r9, %rd4; shr.u64 %rd4, %rd4, 32; cvt.u32.u64 %r10, %rd4; or.b32 %r9, %r9, %r10;
  st.u32 [%rd9+28], %r9;
  // phase 1: a[i] = 3i + 1
  mul.wide.u32 %rd13, %r6, 4;
  add.s64 %rd14, %rd1, %rd13; add.s64 %rd15, %rd2, %rd13;
  mad.lo.u32 %r11, %r6, 3, 1;
  // thread 0 of block (0, 0) is late to phase 1, longer than the emulator runs one wave before the
  // others get a turn: without a grid barrier, other blocks would read its a[] unwritten
  or.b32 %r18, %r2, %r8;
  or.b32 %r18, %r18, %r4;
  or.b32 %r18, %r18, %r7;
  setp.ne.u32 %p1, %r18, 0;
  mov.u32 %r19, 0;
  @%p1 bra PHASE1;
DELAY:
  add.u32 %r19, %r19, 1;
  st.volatile.u32 [%rd14], %r19;
  setp.lt.u32 %p2, %r19, 3000;
  @%p2 bra DELAY;
PHASE1:
  st.u32 [%rd14], %r11;
  { .param .b32 e; .param .b64 h; st.param.b64 [h], %h; call.uni (e), sync_grid, (h); }
  // phase 2: b[i] = a[(i + 37) % n]
  add.u32 %r12, %r6, 37; rem.u32 %r12, %r12, %r1;
  mul.wide.u32 %rd16, %r12, 4; add.s64 %rd16, %rd1, %rd16;
  ld.u32 %r13, [%rd16];
  st.u32 [%rd15], %r13;
  { .param .b32 e; .param .b64 h; st.param.b64 [h], %h; call.uni (e), sync_grid, (h); }
  // phase 3: a[i] = 2 * b[n - 1 - i]
  sub.u32 %r14, %r1, 1; sub.u32 %r14, %r14, %r6;
  mul.wide.u32 %rd17, %r14, 4; add.s64 %rd17, %rd2, %rd17;
  ld.u32 %r15, [%rd17];
  shl.b32 %r15, %r15, 1;
  st.u32 [%rd14], %r15;
  { .param .b32 e; .param .b64 h; st.param.b64 [h], %h; call.uni (e), sync_grid, (h); }
  // phase 4: b[i] = a[(i + 5) % n]
  add.u32 %r16, %r6, 5; rem.u32 %r16, %r16, %r1;
  mul.wide.u32 %rd18, %r16, 4; add.s64 %rd18, %rd1, %rd18;
  ld.u32 %r17, [%rd18];
  st.u32 [%rd15], %r17;
  ret;
}
"""
"""Every pointer handed to the device runtime is generic: global memory, or a local variable's address."""


def _archive(members: dict[str, bytes]) -> bytes:
    """A GNU ``ar`` archive holding ``members`` (long names through the ``//`` table)."""
    table = b"".join(name.encode() + b"/\n" for name in members)
    out = b"!<arch>\n" + b"//".ljust(48) + str(len(table)).encode().ljust(10) + b"`\n" + table
    out += b"\n" * (len(table) & 1)
    offset = 0
    for name, body in members.items():
        header = f"/{offset}".encode().ljust(16) + b"0".ljust(32) + str(len(body)).encode().ljust(10) + b"`\n"
        out += header + body + b"\n" * (len(body) & 1)
        offset += len(name) + 2
    return out


FAKE_DEVRT = _archive({"cuda_device_runtime.o": b"\x7fELF not a real cubin"})


def _link(add: object) -> tuple[int, int, object]:
    state = ok(cuda.cuLinkCreate(0, [], []))
    unit = KERNEL_UNIT.encode()
    ok(cuda.cuLinkAddData(state, T.CU_JIT_INPUT_PTX, unit, len(unit), b"phases.ptx", 0, [], []))
    add(state)
    image, size = ok(cuda.cuLinkComplete(state))
    return image, size, state


def _run(image: int, size: int, grid: tuple[int, int], block: tuple[int, int], cooperative: bool = True) -> object:
    module = ok(cuda.cuModuleLoadData(ctypes.string_at(image, size)))
    function = ok(cuda.cuModuleGetFunction(module, b"phases"))
    n = grid[0] * grid[1] * block[0] * block[1]
    a, b, info = ok(cuda.cuMemAlloc(4 * n)), ok(cuda.cuMemAlloc(4 * n)), ok(cuda.cuMemAlloc(4 * INFO * n))
    ok(cuda.cuMemsetD8(info, 0xFF, 4 * INFO * n))
    params = ((a, b, info, n), (None, None, None, ctypes.c_uint32))
    geometry = (grid[0], grid[1], 1, block[0], block[1], 1, 0)
    if not cooperative:
        return cuda.cuLaunchKernel(function, *geometry, 0, params, 0)
    ok(cuda.cuLaunchCooperativeKernel(function, *geometry, 0, params))
    result_b, result_info = np.zeros(n, np.uint32), np.zeros((n, INFO), np.uint32)
    ok(cuda.cuMemcpyDtoH(result_b, b, result_b.nbytes))
    ok(cuda.cuMemcpyDtoH(result_info, info, result_info.nbytes))
    return result_b, result_info


def _check(result: object, grid: tuple[int, int], block: tuple[int, int]) -> None:
    assert isinstance(result, tuple)
    b, info = result
    n = b.size
    i = np.arange(n)
    a1 = 3 * i + 1
    b2 = a1[(i + 37) % n]
    a3 = 2 * b2[n - 1 - i]
    np.testing.assert_array_equal(b, a3[(i + 5) % n])
    tx, ty, cx, cy = (info[:, k].astype(np.int64) for k in range(4))
    per_block = block[0] * block[1]
    rank = (cy * grid[0] + cx) * per_block + ty * block[0] + tx  # CUDA's grid rank: blocks in x-first order
    np.testing.assert_array_equal(rank, i)  # every slot written once, by the thread of that rank
    assert (info[:, 4] == n).all() and (info[:, 5] == 1).all() and (info[:, 6] == 0).all()
    assert (info[:, 7] == 0).all()  # a scope other than the grid has no handle


def test_device_runtime_archive_links_as_grid_functions(
    context: cuda.CUcontext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # waves take turns every 97 instructions (not 2^16): block (0, 0)'s delay then lets the other
    # blocks run ahead to their reads, which only the grid barrier holds back
    monkeypatch.setattr(executor, "_CHUNK", 97)

    def add(state: object) -> None:
        ok(cuda.cuLinkAddData(state, T.CU_JIT_INPUT_LIBRARY, FAKE_DEVRT, len(FAKE_DEVRT), b"devrt", 0, [], []))

    image, size, state = _link(add)
    _check(_run(image, size, (3, 2), (32, 2)), (3, 2), (32, 2))
    _check(_run(image, size, (3, 1), (96, 2)), (3, 1), (96, 2))  # three waves per block
    result = _run(image, size, (2, 1), (64, 1), cooperative=False)
    fails(result, R.CUDA_ERROR_LAUNCH_FAILED)  # no workspace outside a cooperative launch: the barrier traps
    ok(cuda.cuLinkDestroy(state))


@pytest.mark.skipif(not TOOLKIT_DEVRT.exists(), reason="needs the CUDA toolkit's libcudadevrt.a")
def test_the_toolkits_libcudadevrt_file_links(context: cuda.CUcontext) -> None:
    assert is_device_runtime(TOOLKIT_DEVRT.read_bytes())
    image, size, state = _link(
        lambda s: ok(cuda.cuLinkAddFile(s, T.CU_JIT_INPUT_LIBRARY, str(TOOLKIT_DEVRT).encode(), 0, [], []))
    )
    _check(_run(image, size, (4, 1), (64, 1)), (4, 1), (64, 1))
    ok(cuda.cuLinkDestroy(state))


def test_other_archives_still_fail_the_link(context: cuda.CUcontext) -> None:
    other = _archive({"kernels.o": b"\x7fELF"})
    assert not is_device_runtime(other) and not is_device_runtime(b"!<arch>\n") and not is_device_runtime(b"x")
    state = ok(cuda.cuLinkCreate(0, [], []))
    ok(cuda.cuLinkAddData(state, T.CU_JIT_INPUT_LIBRARY, other, len(other), b"lib.a", 0, [], []))
    fails(cuda.cuLinkComplete(state), R.CUDA_ERROR_NO_BINARY_FOR_GPU, "code=compute_80")
    ok(cuda.cuLinkDestroy(state))


@pytest.mark.skipif(not Path(PTXAS).exists(), reason="needs NVIDIA's ptxas to check the PTX independently")
def test_device_runtime_ptx_is_accepted_by_ptxas(tmp_path: Path) -> None:
    """The stand-in and a program linked with it are valid PTX for NVIDIA's assembler."""
    path = tmp_path / "linked.ptx"
    path.write_text(link_ptx([("phases", KERNEL_UNIT), ("devrt", DEVICE_RUNTIME_PTX)]))
    done = subprocess.run([PTXAS, "-arch=sm_80", str(path), "-o", str(tmp_path / "x.cubin")], capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
