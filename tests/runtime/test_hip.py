"""The HIP backend: a clear error with the real ``libamdhip64`` whether or not it (or a GPU) is there,
the full ctypes call path against a host-side fake HIP library built from data/fake_hip.c, and
(``-m gpu``) a real launch on an AMD GPU."""

from __future__ import annotations

import ctypes
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.runtime.backends.hip import HipFactory, HipModule
from ptx2gcn.runtime.backends.hip_ctypes import HipDevice, HipError, library_candidates
from ptx2gcn.runtime.backends.protocol import BackendError, KernelInfo
from ptx2gcn.runtime.cache.jit_cache import CacheConfig, JitCache
from ptx2gcn.runtime.cases.case import load_case
from ptx2gcn.runtime.cases.run import run_case
from ptx2gcn.runtime.kernargs import ParamSlot
from tests.runtime.toolchain import DATA

FAKE_ELF = b"\x7fELF" + bytes(14) + (224).to_bytes(2, "little") + bytes(44)  # e_machine = EM_AMDGPU


def _real_hip_loads() -> bool:
    for candidate in library_candidates():
        try:
            ctypes.CDLL(candidate)
            return True
        except OSError:
            continue
    return False


def _has_amd_gpu() -> bool:
    try:
        HipDevice.open()
    except HipError:
        return False
    return True


def test_real_library_reports_what_is_missing() -> None:
    """Passes with and without libamdhip64 installed; on a machine with an AMD GPU it opens it."""
    if not _real_hip_loads():
        with pytest.raises(
            HipError, match=r"HIP runtime not found \(tried libamdhip64.so, .*\); install ROCm"
        ):
            HipDevice.open()
    elif not Path("/dev/kfd").exists():
        with pytest.raises(
            HipError, match=r"^error: no AMD GPU found: hipGetDeviceCount returned hipError\w+ \(\d+"
        ):
            HipDevice.open()
    else:  # a ROCm machine: HIP finds the device
        assert HipDevice.open().name()


def test_explicit_missing_library() -> None:
    with pytest.raises(HipError, match=r"HIP runtime not found \(tried /nonexistent/libamdhip64.so \("):
        HipDevice.open(library="/nonexistent/libamdhip64.so")


def test_library_without_hip_symbols() -> None:
    with pytest.raises(HipError, match=r"libc.so.6 is not a usable HIP runtime: it lacks hipInit"):
        HipDevice.open(library="libc.so.6")


def test_no_device(fake_hip: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_HIP_DEVICES", "0")
    with pytest.raises(HipError) as info:
        HipDevice.open(library=fake_hip)
    assert str(info.value) == (
        "error: no AMD GPU found: hipGetDeviceCount returned hipErrorNoDevice "
        "(100: no ROCm-capable device is detected) (hipInit returned hipErrorInvalidDevice (101))"
    )
    monkeypatch.setenv("FAKE_HIP_DEVICES", "1")
    with pytest.raises(HipError, match="AMD GPU 3 requested, but HIP sees 1 device"):
        HipDevice.open(3, library=fake_hip)


def test_memory_and_module_calls(fake_hip: str) -> None:
    device = HipDevice.open(library=fake_hip)
    assert device.name() == "Fake gfx942"
    address = device.malloc(64)
    device.copy_to_device(address, bytes(range(64)))
    assert device.copy_from_device(address, 64) == bytes(range(64))
    device.free(address)
    with pytest.raises(HipError, match=r"hipModuleLoadData failed: hipErrorInvalidImage \(200\)"):
        device.load_module(b"not an ELF")
    x86_elf = FAKE_ELF[:18] + (62).to_bytes(2, "little") + FAKE_ELF[20:]
    with pytest.raises(
        HipError,
        match=r"hipErrorNoBinaryForGpu \(209\): the code object was built for another "
        r"GPU architecture than this Fake gfx942",
    ):
        device.load_module(x86_elf)
    module = device.load_module(FAKE_ELF)
    with pytest.raises(HipError, match=r"hipModuleGetFunction failed: hipErrorNotFound \(500\)"):
        device.get_function(module, "missing_kernel")
    device.unload_module(module)
    with pytest.raises(HipError, match=r"grid must be 1 to 3 positive 32-bit integers"):
        device.launch(device.get_function(device.load_module(FAKE_ELF), "add_scalar"), [0], [1], bytes(16))


def test_cooperative_launch_errors(fake_hip: str) -> None:
    """HIP's own refusal of a cooperative grid too large to be resident is kind ``cooperative``
    (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE); a HIP runtime without hipModuleLaunchCooperativeKernel
    (ROCm 5.2) says so, kind ``unsupported``."""
    backend = HipFactory(fake_hip).open(0)
    module = backend.device.load_module(FAKE_ELF)
    function = backend.device.get_function(module, "add_scalar")
    slots = (ParamSlot(0, 8, 8), ParamSlot(8, 4, 4), ParamSlot(12, 4, 4))
    info = KernelInfo("add_scalar", slots, 16, 1024, 0, 0, 8)
    record = HipModule(module, {"add_scalar": info}, {"add_scalar": function})
    data = (ctypes.c_uint32 * 4)(1, 2, 3, 4)
    parameters = ctypes.addressof(data).to_bytes(8, "little") + (4).to_bytes(4, "little") + (5).to_bytes(4, "little")
    backend.launch(record, "add_scalar", (8, 1, 1), (256, 1, 1), 0, parameters, cooperative=True)
    assert list(data) == [6, 7, 8, 9]  # the values reached the fake through the kernelParams pointers
    with pytest.raises(BackendError, match=r"hipErrorCooperativeLaunchTooLarge \(720\)") as info_too_large:
        backend.launch(record, "add_scalar", (9, 1, 1), (256, 1, 1), 0, parameters, cooperative=True)
    assert info_too_large.value.kind == "cooperative"
    assert backend.max_active_blocks(record, "add_scalar", 512, 0) == 1
    backend.device.hip.has = lambda name: name != "hipModuleLaunchCooperativeKernel"  # type: ignore[method-assign]
    with pytest.raises(BackendError, match="lacks hipModuleLaunchCooperativeKernel") as info_missing:
        backend.launch(record, "add_scalar", (1, 1, 1), (64, 1, 1), 0, parameters, cooperative=True)
    assert info_missing.value.kind == "unsupported"


def _add_scalar_case(folder: Path, args: str) -> Path:
    (folder / "add_scalar.ptx").write_bytes((DATA / "add_scalar.ptx").read_bytes())
    case = folder / "case.toml"
    case.write_text(f'ptx = "add_scalar.ptx"\nkernel = "add_scalar"\ngrid = [2]\nblock = [64, 1, 1]\n{args}')
    return case


def test_run_case_packs_and_launches(fake_hip: str, tmp_path: Path) -> None:
    """``ptx2gcn run`` on the hip backend: buffers allocated and filled, the parameter buffer packed from
    the code object's own metadata, the launch shape passed through, everything released."""
    data = np.arange(100, dtype=np.uint32) * 7
    np.save(tmp_path / "data.npy", data)
    np.save(tmp_path / "expected.npy", data + 1000)
    case = load_case(
        _add_scalar_case(
            tmp_path,
            'shared_bytes = 256\n[[args]]\nname = "data"\nbuffer = "u32"\ndata = "data.npy"\n'
            '[[args]]\nscalar = "u32"\nvalue = 100\n[[args]]\nscalar = "u32"\nvalue = 1000\n'
            '[expect]\ndata = "expected.npy"\n',
        )
    )
    lib = ctypes.CDLL(fake_hip)
    live_before = (lib.fake_live(0), lib.fake_live(1))
    result = run_case(case, factory=HipFactory(fake_hip), cache=JitCache(CacheConfig(enabled=False)))
    assert result.backend == "hip"
    report = result.check()
    assert report.ok, report.render()
    launch = (ctypes.c_uint * 8)()
    lib.fake_last_launch(launch)
    assert list(launch) == [2, 1, 1, 64, 1, 1, 256, 16]  # grid, block, shared bytes, parameter bytes
    assert (lib.fake_live(0), lib.fake_live(1)) == live_before  # buffers freed, module unloaded


def test_run_case_releases_on_failure(fake_hip: str, tmp_path: Path) -> None:
    case = load_case(_add_scalar_case(tmp_path, '[[args]]\nname = "d"\nbuffer = "u32"\ncount = 4\n'))
    lib = ctypes.CDLL(fake_hip)
    live_before = (lib.fake_live(0), lib.fake_live(1))
    with pytest.raises(Ptx2GcnError, match="the kernel takes 3 parameter"):
        run_case(case, factory=HipFactory(fake_hip), cache=JitCache(CacheConfig(enabled=False)))
    assert (lib.fake_live(0), lib.fake_live(1)) == live_before


ADD_ONE_LL = """
define amdgpu_kernel void @add_one(ptr addrspace(1) %data, i32 %n) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %in = icmp ult i32 %tid, %n
  br i1 %in, label %body, label %done
body:
  %p = getelementptr i32, ptr addrspace(1) %data, i32 %tid
  %v = load i32, ptr addrspace(1) %p
  %w = add i32 %v, 1
  store i32 %w, ptr addrspace(1) %p
  br label %done
done:
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"""


@pytest.mark.gpu
def test_real_gpu_launch(tmp_path: Path, llvm_tool: Callable[[str], str]) -> None:
    if not _has_amd_gpu():
        pytest.skip("no AMD GPU")
    from ptx2gcn.emit.target import emit_object
    from ptx2gcn.options import CompileOptions

    lld = llvm_tool("ld.lld-22")
    (tmp_path / "k.o").write_bytes(emit_object(ADD_ONE_LL, CompileOptions()))
    subprocess.run([lld, "-shared", "-o", str(tmp_path / "k.hsaco"), str(tmp_path / "k.o")], check=True)
    device = HipDevice.open()
    module = device.load_module((tmp_path / "k.hsaco").read_bytes())
    function = device.get_function(module, "add_one")
    address = device.malloc(64 * 4)
    device.copy_to_device(address, np.arange(64, dtype=np.uint32).tobytes())
    device.launch(function, [1], [64], address.to_bytes(8, "little") + (60).to_bytes(4, "little") + bytes(4))
    device.synchronize()
    result = np.frombuffer(device.copy_from_device(address, 64 * 4), np.uint32)
    assert result.tolist() == [i + 1 for i in range(60)] + [60, 61, 62, 63]
