"""ptx2gcn's NVRTC interposer (``runtime/libcuda/nvrtc_shim.py``) against a stand-in for NVIDIA's NVRTC.

The stand-in is a small C library written here whose answers are known: the interposer must forward
every call to it unchanged, answer ``nvrtcGetCUBIN(Size)`` with the stand-in's PTX (never its
"SASS"), skip itself when searching, and fail every call with NVRTC_ERROR_INTERNAL_ERROR, saying
why, when no NVRTC is found. Needs a C compiler (skipped without one, except under
``PTX2GCN_REQUIRE_LLVM_TOOLS=1``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ptx2gcn.runtime.libcuda.nvrtc_shim import FUNCTIONS, INTERPOSED, SONAME, interposer_library

STAND_IN = r"""
#include <stddef.h>
#include <string.h>
static const char ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n";
int nvrtcGetPTXSize(void *prog, size_t *size) { *size = sizeof ptx; return prog == (void *)0x1234 ? 0 : 5; }
int nvrtcGetPTX(void *prog, char *out) { memcpy(out, ptx, sizeof ptx); return prog == (void *)0x1234 ? 0 : 5; }
int nvrtcGetCUBINSize(void *prog, size_t *size) { (void)prog; *size = 4; return 0; }
int nvrtcGetCUBIN(void *prog, char *out) { (void)prog; memcpy(out, "SASS", 4); return 0; }
int nvrtcVersion(int *major, int *minor) { *major = 13; *minor = 5; return 0; }
int nvrtcCompileProgram(void *prog, int n, const char *const *options) {
    return prog == (void *)0x1234 && n == 2 && strcmp(options[1], "-arch=sm_80") == 0 ? 0 : 7;
}
int nvrtcSetPCHHeapSize(size_t size) { return size == ((size_t)1 << 40) ? 0 : 4; }
const char *nvrtcGetErrorString(int result) { return result ? "STAND_IN_ERROR" : "STAND_IN_SUCCESS"; }
"""

CHECK = r"""
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.nvrtcGetErrorString.restype = ctypes.c_char_p
prog = ctypes.c_void_p(0x1234)
major, minor = ctypes.c_int(), ctypes.c_int()
assert lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)) == 0 and (major.value, minor.value) == (13, 5)
options = (ctypes.c_char_p * 2)(b"-default-device", b"-arch=sm_80")
assert lib.nvrtcCompileProgram(prog, 2, options) == 0
assert lib.nvrtcCompileProgram(prog, 1, options) == 7
assert lib.nvrtcSetPCHHeapSize(ctypes.c_size_t(1 << 40)) == 0
size = ctypes.c_size_t()
assert lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)) == 0
cubin = ctypes.create_string_buffer(size.value)
assert lib.nvrtcGetCUBIN(prog, cubin) == 0
ptx = ctypes.create_string_buffer(size.value)
assert lib.nvrtcGetPTX(prog, ptx) == 0
assert cubin.raw == ptx.raw and cubin.raw.startswith(b".version 8.0") and cubin.raw.endswith(b"\0")
assert lib.nvrtcGetCUBINSize(ctypes.c_void_p(1), ctypes.byref(size)) == 5  # the PTX call's error, unchanged
assert lib.nvrtcGetErrorString(7) == b"STAND_IN_ERROR"
print("checked")
"""


@pytest.fixture(scope="module")
def compiler() -> str:
    found = shutil.which(os.environ.get("CC") or "cc")
    if not found:
        if os.environ.get("PTX2GCN_REQUIRE_LLVM_TOOLS") == "1":
            pytest.fail("no C compiler, and PTX2GCN_REQUIRE_LLVM_TOOLS=1")
        pytest.skip("no C compiler to build the NVRTC interposer")
    return found


def _run(interposer: Path, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CHECK, str(interposer)], capture_output=True, text=True,
                          env={**os.environ, **environment}, check=False)  # fmt: skip


def test_interposer_forwards_and_answers_cubin_with_ptx(compiler: str, tmp_path: Path) -> None:
    interposer = interposer_library(compiler, {"PTX2GCN_CACHE_DIR": str(tmp_path / "cache")})
    assert interposer.name == SONAME
    exported = subprocess.run(["nm", "-D", "--defined-only", str(interposer)], capture_output=True, text=True,
                              check=True).stdout.split()  # fmt: skip
    for symbol in [name for name, _ in FUNCTIONS] + list(INTERPOSED) + ["nvrtcGetErrorString"]:
        assert symbol in exported, symbol
    stand_in_c = tmp_path / "stand_in.c"
    stand_in_c.write_text(STAND_IN)
    stand_in = tmp_path / "real" / "libnvrtc.so.13"
    stand_in.parent.mkdir()
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(stand_in), str(stand_in_c)], check=True)
    done = _run(interposer, {"PTX2GCN_NVRTC": str(stand_in)})
    assert done.returncode == 0 and "checked" in done.stdout, done.stdout + done.stderr


def test_interposer_skips_itself_and_fails_every_call_when_no_nvrtc_is_found(compiler: str, tmp_path: Path) -> None:
    if Path("/usr/local/cuda/lib64/libnvrtc.so.13").exists():
        pytest.skip("a system NVRTC exists at /usr/local/cuda: the not-found path cannot be checked here")
    interposer = interposer_library(compiler, {"PTX2GCN_CACHE_DIR": str(tmp_path / "cache")})
    alone = subprocess.run(
        [sys.executable, "-c", "import ctypes,sys; print(ctypes.CDLL(sys.argv[1]).nvrtcGetPTXSize(None, None))",
         str(interposer)],
        capture_output=True, text=True, check=False,
        env={**os.environ, "PTX2GCN_NVRTC": str(interposer), "CUDA_HOME": str(tmp_path), "CUDA_PATH": "",
             "CONDA_PREFIX": ""},
    )  # fmt: skip
    assert alone.stdout.strip() == "11", alone.stdout + alone.stderr
    assert "libnvrtc.so.13 was not found (set PTX2GCN_NVRTC" in alone.stderr
