"""cuLink*: PTX units linked into one PTX module (an ``.extern`` function resolved across units), the
result loaded and launched; inputs without PTX make the link fail naming the flag that embeds PTX;
CUDA's codes."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn import cuda
from ptx2gcn.runtime.driver.ptx_link import PtxLinkError, link_ptx
from tests.driver.conftest import KERNELS_PTX, fails, ok

R = cuda.CUresult
T = cuda.CUjitInputType

KERNEL_UNIT = """
.version 7.0
.target sm_70
.address_size 64
.extern .func (.param .b32 r) add_seven(.param .b32 a);
.visible .entry call_helper(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  { .param .b32 pa; .param .b32 pr;
    st.param.b32 [pa], %r1;
    call.uni (pr), add_seven, (pa);
    ld.param.b32 %r2, [pr]; }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
"""

HELPER_UNIT = """
// a library unit: one visible function
.version 7.8
.target sm_80
.address_size 64
.visible .func (.param .b32 r) add_seven(.param .b32 a)
{
  .reg .b32 %x<3>;
  ld.param.b32 %x1, [a];
  add.s32 %x2, %x1, 7;
  st.param.b32 [r], %x2;
  ret;
}
"""


def _launch_call_helper(image: int, size: int) -> np.ndarray:
    module = ok(cuda.cuModuleLoadData(ctypes.string_at(image, size)))
    function = ok(cuda.cuModuleGetFunction(module, b"call_helper"))
    out = ok(cuda.cuMemAlloc(4 * 64))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 64, 1, 1, 0, 0, ((out,), (None,)), 0))
    result = np.zeros(64, dtype=np.int32)
    ok(cuda.cuMemcpyDtoH(result, out, 4 * 64))
    return result


def test_two_ptx_units_link_load_and_run(context: cuda.CUcontext, tmp_path: Path) -> None:
    info = bytearray(256)
    keys = [cuda.CUjit_option.CU_JIT_INFO_LOG_BUFFER, cuda.CUjit_option.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES]
    state = ok(cuda.cuLinkCreate(2, keys, [info, len(info)]))
    kernel = KERNEL_UNIT.encode()
    ok(cuda.cuLinkAddData(state, T.CU_JIT_INPUT_PTX, kernel, len(kernel), b"kernel.ptx", 0, [], []))
    (tmp_path / "helper.ptx").write_text(HELPER_UNIT)
    ok(cuda.cuLinkAddFile(state, T.CU_JIT_INPUT_PTX, str(tmp_path / "helper.ptx").encode(), 0, [], []))
    image, size = ok(cuda.cuLinkComplete(state))
    text = ctypes.string_at(image, size).rstrip(b"\0").decode()
    assert text.startswith(".version 7.8\n.target sm_80\n") and ".extern" not in text
    assert info.rstrip(b"\0")  # the info log was written
    assert _launch_call_helper(image, size).tolist() == [i + 7 for i in range(64)]
    ok(cuda.cuLinkDestroy(state))
    fails(cuda.cuLinkComplete(state), R.CUDA_ERROR_INVALID_HANDLE, "link state")


@pytest.mark.skipif(shutil.which("ptxas") is None and not Path("/usr/local/cuda/bin/ptxas").exists(),
                    reason="needs NVIDIA's ptxas to check the linked PTX independently")  # fmt: skip
def test_linked_ptx_is_accepted_by_ptxas(tmp_path: Path) -> None:
    """The linked module is valid PTX for NVIDIA's own assembler (declare-before-use, no .extern
    left for a defined function), not only for ptx2gcn's front end."""
    path = tmp_path / "linked.ptx"
    path.write_text(link_ptx([("kernel", KERNEL_UNIT), ("helper", HELPER_UNIT)]))
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    done = subprocess.run([ptxas, "-arch=sm_80", str(path), "-o", str(tmp_path / "x.cubin")], capture_output=True)
    assert done.returncode == 0, done.stderr.decode()


def test_link_rules() -> None:
    weak = HELPER_UNIT.replace(".visible .func", ".weak .func").replace("7;", "100;")
    linked = link_ptx([("k", KERNEL_UNIT), ("w", weak), ("h", HELPER_UNIT)])
    assert linked.count("add.s32 %x2, %x1, 7;") == 1 and "100;" not in linked  # .visible replaces .weak
    with pytest.raises(PtxLinkError, match="duplicate definition of 'add_seven'"):
        link_ptx([("a", HELPER_UNIT), ("b", HELPER_UNIT)])
    assert link_ptx([("only", KERNEL_UNIT)]) == KERNEL_UNIT  # one unit links to itself
    assert ".extern .func" in link_ptx([("k", KERNEL_UNIT), ("other", KERNELS_PTX.read_text())])
    # a declaration that returns a value its definition does not (numba-cuda 0.30.4's void C-ABI
    # declarations): nvlink rejects the pair ("Prototype doesn't match"), and so does this link
    void = HELPER_UNIT.replace("(.param .b32 r) add_seven", "add_seven").replace("st.param.b32 [r], %x2;", "")
    with pytest.raises(PtxLinkError, match=r"prototype of 'add_seven' in k \(1 result\(s\), 1 parameter\(s\)\) "
                                           r"does not match its definition in v \(0 result\(s\), 1 parameter"):
        link_ptx([("k", KERNEL_UNIT), ("v", void)])


def test_inputs_without_ptx_fail_the_link_with_the_flag_that_embeds_ptx(context: cuda.CUcontext) -> None:
    errors = bytearray(512)
    keys = [cuda.CUjit_option.CU_JIT_ERROR_LOG_BUFFER, cuda.CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]
    state = ok(cuda.cuLinkCreate(2, keys, [errors, len(errors)]))
    cubin = b"\x7fELF\x02\x01\x01\x33" + bytes(56)  # an NVIDIA cubin's ELF identification (ELFOSABI_CUDA)
    ok(cuda.cuLinkAddData(state, T.CU_JIT_INPUT_CUBIN, cubin, len(cubin), b"k.cubin", 0, [], []))
    assert b"code=compute_80" in bytes(errors)  # accepted, the reason logged at once
    ok(cuda.cuLinkAddData(state, T.CU_JIT_INPUT_NVVM, b"BC\xc0\xde", 4, b"x.ltoir", 0, [], []))
    fails(cuda.cuLinkComplete(state), R.CUDA_ERROR_NO_BINARY_FOR_GPU, "k.cubin: a CU_JIT_INPUT_CUBIN input")
    ok(cuda.cuLinkDestroy(state))
    state = ok(cuda.cuLinkCreate(0, [], []))
    ok(cuda.cuLinkAddData(state, T.CU_JIT_INPUT_NVVM, b"BC\xc0\xde", 4, b"x.ltoir", 0, [], []))
    fails(cuda.cuLinkComplete(state), R.CUDA_ERROR_NOT_SUPPORTED, "nvJitLink")
    ok(cuda.cuLinkDestroy(state))
    state = ok(cuda.cuLinkCreate(0, [], []))
    fails(cuda.cuLinkAddData(state, T.CU_JIT_INPUT_PTX, b"not ptx", 7, b"x", 0, [], []), R.CUDA_ERROR_INVALID_PTX)
    fails(cuda.cuLinkAddData(state, 42, b"x", 1, b"x", 0, [], []), R.CUDA_ERROR_INVALID_VALUE, "CUjitInputType")
    fails(cuda.cuLinkAddFile(state, T.CU_JIT_INPUT_PTX, b"/no/such.ptx", 0, [], []), R.CUDA_ERROR_FILE_NOT_FOUND)
    fails(cuda.cuLinkComplete(state), R.CUDA_ERROR_INVALID_PTX, "nothing to link")
    ok(cuda.cuLinkDestroy(state))


def test_link_needs_a_context(driver: None) -> None:
    ok(cuda.cuInit(0))
    fails(cuda.cuLinkCreate(0, [], []), R.CUDA_ERROR_INVALID_CONTEXT)


def test_initialised_variables_link_and_run(context: cuda.CUcontext) -> None:
    """A module-scope array with a braced initializer (``= {...};``, as NVRTC writes string constants)
    is one statement, kept whole and before the functions that use it."""
    helper = HELPER_UNIT.replace(
        ".visible .func", ".global .align 4 .b32 table[2] = {7, 9};\n.visible .func"
    ).replace(
        "add.s32 %x2, %x1, 7;",
        ".reg .b64 %t;\n  mov.u64 %t, table;\n  ld.global.u32 %x2, [%t];\n  add.s32 %x2, %x2, %x1;",
    )
    linked = link_ptx([("kernel", KERNEL_UNIT), ("helper", helper)])
    assert linked.index("table[2] = {7, 9};") < linked.index(".entry call_helper")
    image = ctypes.create_string_buffer(linked.encode())
    assert _launch_call_helper(ctypes.addressof(image), len(image)).tolist() == [i + 7 for i in range(64)]


MALLOC_UNIT = """
.version 7.0
.target sm_70
.address_size 64
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);
.extern .func free(.param .b64 free_param_0);
.visible .entry use_heap(.param .u64 out, .param .u64 bytes)
{
  .reg .b32 %r<3>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd6, [bytes];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  { .param .b64 size; .param .b64 got;
    st.param.b64 [size], %rd6;
    call.uni (got), malloc, (size);
    ld.param.b64 %rd2, [got]; }
  st.u32 [%rd2], %r1;
  ld.u32 %r2, [%rd2];
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u64 [%rd4], %rd2;
  st.global.u32 [%rd4+8], %r2;
  { .param .b64 p;
    st.param.b64 [p], %rd2;
    call.uni free, (p); }
  ret;
}
"""


def test_device_malloc_and_free_come_from_the_device_heap(context: cuda.CUcontext) -> None:
    """CUDA's built-in ``malloc``/``free`` (declared ``.extern``, defined nowhere) link to the device heap:
    each thread gets its own 16-byte-aligned block it can use."""
    state = ok(cuda.cuLinkCreate(0, [], []))
    ok(cuda.cuLinkAddData(state, T.CU_JIT_INPUT_PTX, MALLOC_UNIT.encode(), len(MALLOC_UNIT), b"heap.ptx", 0, [], []))
    image, size = ok(cuda.cuLinkComplete(state))
    module = ok(cuda.cuModuleLoadData(ctypes.string_at(image, size)))
    function = ok(cuda.cuModuleGetFunction(module, b"use_heap"))
    out = ok(cuda.cuMemAlloc(16 * 64))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 64, 1, 1, 0, 0, ((out, 24), (None, ctypes.c_uint64)), 0))
    result = np.zeros((64, 2), dtype=np.uint64)
    ok(cuda.cuMemcpyDtoH(result, out, result.nbytes))
    pointers = result[:, 0].astype(np.int64)
    assert (result[:, 1] & 0xFFFFFFFF).tolist() == list(range(64))  # each thread read back its own value
    assert len(set(pointers.tolist())) == 64 and (pointers % 16 == 0).all() and (pointers != 0).all()
    assert sorted(np.diff(np.sort(pointers)).tolist())[0] >= 32  # 24 bytes rounded up to 32: no overlap
    ok(cuda.cuLinkDestroy(state))


def test_file_indices_are_renumbered_across_units(context: cuda.CUcontext) -> None:
    """Both units number their ``.file`` from 1 (as NVVM and NVRTC write debug lines): the linked module
    gives each file its own index and each ``.loc`` follows its unit's file; it compiles and runs."""
    kernel = KERNEL_UNIT.replace(".address_size 64\n", '.address_size 64\n.file 1 "kernel.py"\n').replace(
        "  mov.u32 %r1, %tid.x;", "  .loc 1 10 0\n  mov.u32 %r1, %tid.x;"
    )
    helper = HELPER_UNIT.replace(".address_size 64\n", '.address_size 64\n.file 1 "helper.cu"\n').replace(
        "  add.s32 %x2, %x1, 7;", "  .loc 1 20 0\n  add.s32 %x2, %x1, 7;"
    )
    linked = link_ptx([("kernel", kernel), ("helper", helper)])
    assert '.file 1 "kernel.py"' in linked and '.file 2 "helper.cu"' in linked
    assert ".loc 1 10 0" in linked and ".loc 2 20 0" in linked
    image = ctypes.create_string_buffer(linked.encode())
    assert _launch_call_helper(ctypes.addressof(image), len(image)).tolist() == [i + 7 for i in range(64)]
