"""ptx2gcn's stand-in for CUDA's device runtime library (``libcudadevrt.a``) in ``cuLink*`` links.

CUDA ships its device runtime as an archive of cubins (no PTX), which ptx2gcn cannot recompile. The
part of it that compiled device code calls by name without the library's own headers inlining it is
the cooperative-groups grid interface that numba-cuda's ``this_grid()``/``sync()`` and
``nvcc -rdc`` programs call (declared in CUDA's ``cuda_device_runtime_api.h``):

- ``cudaCGGetIntrinsicHandle(scope)`` -> u64: for ``cudaCGScopeGrid`` (1), the grid's sync
  workspace (the address CUDA's driver defines in ``%envreg1``:``%envreg2``, which ptx2gcn passes as
  ``hidden_multigrid_sync_arg``; docs/launch-abi.md, "Cooperative launches"); 0 for other scopes and
  for launches that are not cooperative;
- ``cudaCGSynchronize(handle, flags)`` / ``cudaCGSynchronizeGrid(handle, flags)`` -> cudaError_t:
  a barrier over every thread of the grid; traps when ``handle`` is 0 (a launch that is not
  cooperative), as the inlined ``grid.sync()`` does;
- ``cudaCGGetSize(&threads, &grids, handle)`` / ``cudaCGGetRank(&rank, &grid_rank, handle)``: the
  grid's thread count and the calling thread's flat rank in it; one grid (count 1, rank 0). Null
  output pointers are skipped.

The barrier counts arrivals in the u32 at workspace + 4, as the launch ABI documents: after a block
barrier, each block's first thread adds 1 (block (0,0,0) adds ``0x80000001 - blocks``), so once every
block has arrived the sum has grown by exactly ``0x80000000`` and its top bit has flipped; each
leader waits for that flip (sleeping between polls), then a second block barrier releases its block. Successive barriers
flip the bit back and forth from the zeroed workspace, with no reset.

``is_device_runtime`` recognises the library by its member object (``cuda_device_runtime.o``) in an
``ar`` archive, whatever the file is called. The definitions are ``.weak``: a unit that defines one
of these names itself wins the link.

Invariant: ``DEVICE_RUNTIME_PTX`` is self-contained PTX (its own header) written from the documented
interface and the launch ABI above; it reads no state but the special registers and the workspace.
"""

from __future__ import annotations

DEVICE_RUNTIME_MEMBER = b"cuda_device_runtime.o"
"""The object file CUDA's ``libcudadevrt.a`` archives."""

_GRID_SCOPE = 1
_TOP_BIT = 0x80000000
_BACKOFF_NS = 100
"""A waiting leader sleeps between polls (``s_sleep``: lets the other waves run)."""

DEVICE_RUNTIME_PTX = f"""
// ptx2gcn's device runtime: the cooperative-groups grid functions of CUDA's libcudadevrt
// (runtime/driver/device_runtime.py).
.version 7.0
.target sm_70
.address_size 64

.weak .func (.param .b64 handle) cudaCGGetIntrinsicHandle(.param .b32 scope)
{{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u32 %r1, [scope];
  mov.u32 %r2, %envreg1;
  mov.u32 %r3, %envreg2;
  mov.b64 %rd1, {{%r3, %r2}};
  setp.ne.u32 %p1, %r1, {_GRID_SCOPE};
  selp.b64 %rd2, 0, %rd1, %p1;
  st.param.b64 [handle], %rd2;
  ret;
}}

.weak .func (.param .b32 status) cudaCGSynchronize(.param .b64 handle, .param .b32 flags)
{{
  .reg .b32 %r<16>;
  .reg .b64 %rd<3>;
  .reg .pred %p<6>;
  ld.param.u64 %rd1, [handle];
  setp.eq.u64 %p1, %rd1, 0;
  @%p1 trap;
  barrier.sync 0;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %tid.z;
  or.b32 %r1, %r1, %r2;
  or.b32 %r1, %r1, %r3;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra RELEASE;
  mov.u32 %r4, %nctaid.x;
  mov.u32 %r5, %nctaid.y;
  mov.u32 %r6, %nctaid.z;
  mul.lo.u32 %r4, %r4, %r5;
  mul.lo.u32 %r4, %r4, %r6;
  mov.u32 %r7, %ctaid.x;
  mov.u32 %r8, %ctaid.y;
  mov.u32 %r9, %ctaid.z;
  or.b32 %r7, %r7, %r8;
  or.b32 %r7, %r7, %r9;
  setp.eq.u32 %p3, %r7, 0;
  sub.u32 %r10, {_TOP_BIT + 1}, %r4;
  selp.u32 %r11, %r10, 1, %p3;
  add.u64 %rd2, %rd1, 4;
  atom.acq_rel.gpu.global.add.u32 %r12, [%rd2], %r11;
WAIT:
  ld.acquire.gpu.global.u32 %r13, [%rd2];
  xor.b32 %r14, %r13, %r12;
  and.b32 %r15, %r14, {_TOP_BIT};
  setp.ne.u32 %p4, %r15, 0;
  @%p4 bra RELEASE;
  nanosleep.u32 {_BACKOFF_NS};
  bra.uni WAIT;
RELEASE:
  barrier.sync 0;
  st.param.b32 [status], 0;
  ret;
}}

.weak .func (.param .b32 status) cudaCGSynchronizeGrid(.param .b64 handle, .param .b32 flags)
{{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [handle];
  ld.param.u32 %r1, [flags];
  {{
  .param .b64 p0;
  .param .b32 p1;
  .param .b32 r0;
  st.param.b64 [p0], %rd1;
  st.param.b32 [p1], %r1;
  call.uni (r0), cudaCGSynchronize, (p0, p1);
  ld.param.b32 %r2, [r0];
  }}
  st.param.b32 [status], %r2;
  ret;
}}

.weak .func (.param .b32 status) cudaCGGetSize(.param .b64 threads, .param .b64 grids, .param .b64 handle)
{{
  .reg .b32 %r<8>;
  .reg .b64 %rd<3>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [threads];
  ld.param.u64 %rd2, [grids];
  mov.u32 %r1, %ntid.x;
  mov.u32 %r2, %ntid.y;
  mov.u32 %r3, %ntid.z;
  mov.u32 %r4, %nctaid.x;
  mov.u32 %r5, %nctaid.y;
  mov.u32 %r6, %nctaid.z;
  mul.lo.u32 %r7, %r1, %r2;
  mul.lo.u32 %r7, %r7, %r3;
  mul.lo.u32 %r7, %r7, %r4;
  mul.lo.u32 %r7, %r7, %r5;
  mul.lo.u32 %r7, %r7, %r6;
  setp.eq.u64 %p1, %rd1, 0;
  @!%p1 st.u32 [%rd1], %r7;
  setp.eq.u64 %p2, %rd2, 0;
  @!%p2 st.u32 [%rd2], 1;
  st.param.b32 [status], 0;
  ret;
}}

.weak .func (.param .b32 status) cudaCGGetRank(.param .b64 rank, .param .b64 grid_rank, .param .b64 handle)
{{
  .reg .b32 %r<12>;
  .reg .b64 %rd<3>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [rank];
  ld.param.u64 %rd2, [grid_rank];
  mov.u32 %r1, %ctaid.z;
  mov.u32 %r2, %nctaid.y;
  mov.u32 %r3, %ctaid.y;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  mov.u32 %r5, %nctaid.x;
  mov.u32 %r6, %ctaid.x;
  mad.lo.u32 %r4, %r4, %r5, %r6;
  mov.u32 %r1, %tid.z;
  mov.u32 %r2, %ntid.y;
  mov.u32 %r3, %tid.y;
  mad.lo.u32 %r7, %r1, %r2, %r3;
  mov.u32 %r8, %ntid.x;
  mov.u32 %r9, %tid.x;
  mad.lo.u32 %r7, %r7, %r8, %r9;
  mov.u32 %r10, %ntid.z;
  mul.lo.u32 %r10, %r10, %r2;
  mul.lo.u32 %r10, %r10, %r8;
  mad.lo.u32 %r11, %r4, %r10, %r7;
  setp.eq.u64 %p1, %rd1, 0;
  @!%p1 st.u32 [%rd1], %r11;
  setp.eq.u64 %p2, %rd2, 0;
  @!%p2 st.u32 [%rd2], 0;
  st.param.b32 [status], 0;
  ret;
}}
"""
"""The PTX unit a link gets in place of ``libcudadevrt.a``."""


def _member_names(data: bytes) -> list[bytes]:
    """The member names of an ``ar`` archive (System V/GNU: ``/N`` names index the ``//`` table)."""
    names: list[bytes] = []
    table = b""
    offset = 8
    while offset + 60 <= len(data):
        header = data[offset : offset + 60]
        try:
            size = int(header[48:58].strip() or b"0")
        except ValueError:
            return names
        raw = header[:16].rstrip(b" ")
        body = data[offset + 60 : offset + 60 + size]
        if raw == b"//":
            table = body
        elif raw[:1] == b"/" and raw[1:].isdigit():
            start = int(raw[1:])
            names.append(table[start:].split(b"\n", 1)[0].rstrip(b"/"))
        elif raw not in (b"/", b"/SYM64/"):
            names.append(raw.rstrip(b"/"))
        offset += 60 + size + (size & 1)
    return names


def is_device_runtime(data: bytes) -> bool:
    """Whether ``data`` is CUDA's device runtime library (an ``ar`` archive of ``cuda_device_runtime.o``)."""
    return data[:8] == b"!<arch>\n" and DEVICE_RUNTIME_MEMBER in _member_names(data)
