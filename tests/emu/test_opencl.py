"""An OpenCL C kernel compiled by clang-22 for gfx942 (code object v5, no device libraries) and linked
by ld.lld-22: a work-group inclusive scan in local memory with barriers, plus a device-scope atomic."""

from __future__ import annotations

import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

SCAN = r"""
#define BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); __builtin_amdgcn_s_barrier(); \
                       __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
kernel void scan(global const int *in, global int *out, global int *total) {
    local int tmp[128];
    int t = __builtin_amdgcn_workitem_id_x();
    int g = __builtin_amdgcn_workgroup_id_x() * 128 + t;
    tmp[t] = in[g];
    BARRIER();
    for (int d = 1; d < 128; d <<= 1) {
        int v = t >= d ? tmp[t - d] : 0;
        BARRIER();
        tmp[t] += v;
        BARRIER();
    }
    out[g] = tmp[t];
    if (t == 127)
        __opencl_atomic_fetch_add((volatile global atomic_int *)total, tmp[t], memory_order_relaxed,
                                  memory_scope_device);
}
"""


def test_opencl_scan(llvm_tool: Callable[[str], str], tmp_path: Path) -> None:
    clang, lld = llvm_tool("clang-22"), llvm_tool("ld.lld-22")
    source, obj, hsaco = tmp_path / "scan.cl", tmp_path / "scan.o", tmp_path / "scan.hsaco"
    source.write_text(SCAN)
    subprocess.run(
        [
            clang,
            "-x",
            "cl",
            "-cl-std=CL2.0",
            "-target",
            "amdgcn-amd-amdhsa",
            "-mcpu=gfx942",
            "-nogpulib",
            "-O2",
            "-mcode-object-version=5",
            "-Wno-everything",
            "-c",
            str(source),
            "-o",
            str(obj),
        ],
        check=True,
        capture_output=True,
    )
    subprocess.run([lld, "-shared", str(obj), "-o", str(hsaco)], check=True, capture_output=True)
    program = load(hsaco.read_bytes(), "scan.hsaco")
    memory = DeviceMemory()
    data = np.random.default_rng(50).integers(-1000, 1000, 384).astype(np.int32)
    pin, pout, ptotal = memory.alloc(data.nbytes), memory.alloc(data.nbytes), memory.alloc(4)
    memory.write(pin, data.tobytes())
    launch(
        program, "scan", grid=(3,), block=(128,), kernarg=struct.pack("<3Q", pin, pout, ptotal), memory=memory
    )
    expected = np.cumsum(data.reshape(3, 128), axis=1).ravel()
    np.testing.assert_array_equal(np.frombuffer(memory.read(pout, data.nbytes), np.int32), expected)
    assert np.frombuffer(memory.read(ptotal, 4), np.int32)[0] == data.sum()
