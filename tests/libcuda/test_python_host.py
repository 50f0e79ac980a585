"""``libcuda.so.1`` loaded into a Python process (the way cuda-bindings and numba-cuda load it): the
shim attaches to the running interpreter instead of starting one. The host script is run under
``ptx2gcn exec`` and finds the library by its soname, as those clients do."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

HOST_SCRIPT = r"""
import ctypes
lib = ctypes.CDLL("libcuda.so.1")
assert hasattr(lib, "p2g_slots"), "not ptx2gcn's libcuda"
assert lib.cuInit(0) == 0
version = ctypes.c_int()
assert lib.cuDriverGetVersion(ctypes.byref(version)) == 0
assert version.value == 13000, version.value

def proc(name, cuda_version):
    pfn, status = ctypes.c_void_p(), ctypes.c_int(-1)
    code = lib.cuGetProcAddress_v2(name.encode(), ctypes.byref(pfn), cuda_version, ctypes.c_uint64(0),
                                   ctypes.byref(status))
    return code, pfn.value, status.value

def address(symbol):
    return ctypes.cast(getattr(lib, symbol), ctypes.c_void_p).value

code, pfn, status = proc("cuDriverGetVersion", 13000)
assert (code, status) == (0, 0) and pfn == address("cuDriverGetVersion")
again = ctypes.c_int()
assert ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(pfn)(ctypes.addressof(again)) == 0
assert again.value == 13000
assert proc("cuCtxCreate", 12000)[1] == address("cuCtxCreate_v2")
assert proc("cuCtxCreate", 12050)[1] == address("cuCtxCreate_v4")
assert proc("cuMemAlloc", 13000)[1] == address("cuMemAlloc_v2")
assert proc("cuGetProcAddress", 13000)[1] == address("cuGetProcAddress_v2")
assert proc("cuCtxCreate", 3000) == (500, None, 2)        # CUDA_ERROR_NOT_FOUND, version too old
assert proc("cuNoSuchThing", 13000) == (500, None, 1)     # CUDA_ERROR_NOT_FOUND, unknown symbol

device, ctx = ctypes.c_int(), ctypes.c_void_p()
assert lib.cuDeviceGet(ctypes.byref(device), 0) == 0
assert lib.cuCtxCreate_v2(ctypes.byref(ctx), 0, device) == 0
pointer = ctypes.c_uint64()
assert lib.cuMemAlloc_v2(ctypes.byref(pointer), ctypes.c_size_t(64)) == 0 and pointer.value != 0
data = (ctypes.c_uint32 * 16)(*range(100, 116))
back = (ctypes.c_uint32 * 16)()
assert lib.cuMemcpyHtoD_v2(pointer, data, ctypes.c_size_t(64)) == 0
assert lib.cuMemcpyDtoH_v2(back, pointer, ctypes.c_size_t(64)) == 0
assert list(back) == list(range(100, 116))
assert lib.cuCtxDestroy_v2(ctx) == 0
print("python-host: ok")
"""


def test_python_host_attaches_to_its_interpreter(run_exec: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    done = run_exec(sys.executable, "-c", HOST_SCRIPT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "python-host: ok"


THREADS_SCRIPT = r"""
import ctypes, threading
lib = ctypes.CDLL("libcuda.so.1")
assert lib.cuInit(0) == 0
contexts = {}

def work(index):
    ctx, current = ctypes.c_void_p(), ctypes.c_void_p()
    assert lib.cuCtxCreate_v2(ctypes.byref(ctx), 0, 0) == 0
    for _ in range(50):  # other threads create, query and destroy meanwhile
        assert lib.cuCtxGetCurrent(ctypes.byref(current)) == 0
        assert current.value == ctx.value
    contexts[index] = ctx.value
    assert lib.cuCtxDestroy_v2(ctx) == 0

threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
assert len(set(contexts.values())) == 4, contexts
current = ctypes.c_void_p(1)
assert lib.cuCtxGetCurrent(ctypes.byref(current)) == 0 and not current.value  # the main thread has none
print("python threads: ok")
"""


def test_python_threads_each_keep_their_current_context(
    run_exec: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    done = run_exec(sys.executable, "-c", THREADS_SCRIPT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "python threads: ok"


FINALIZING_SCRIPT = r"""
import ctypes
import os

lib = ctypes.CDLL("libcuda.so.1")
assert lib.cuInit(0) == 0
device, ctx = ctypes.c_int(), ctypes.c_void_p()
assert lib.cuDeviceGet(ctypes.byref(device), 0) == 0
assert lib.cuCtxCreate_v2(ctypes.byref(ctx), 0, device) == 0
pointer = ctypes.c_uint64()
assert lib.cuMemAlloc_v2(ctypes.byref(pointer), ctypes.c_size_t(64)) == 0


class Holder:
    # Freed while the interpreter finalizes (module globals are cleared then), as cuda.core's C++
    # handles free their memory: releases succeed, anything else is CUDA_ERROR_DEINITIALIZED (4).
    def __del__(self, free=lib.cuMemFree_v2, alloc=lib.cuMemAlloc_v2, write=os.write, sys_module=__import__("sys")):
        out = ctypes.c_uint64()
        codes = (free(pointer), alloc(ctypes.byref(out), ctypes.c_size_t(64)), sys_module.is_finalizing())
        write(1, f"at exit: {codes}\n".encode())


holder = Holder()
print("python-host: allocated", flush=True)
"""


def test_release_calls_succeed_while_the_interpreter_finalizes(
    run_exec: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    done = run_exec(sys.executable, "-c", FINALIZING_SCRIPT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["python-host: allocated", "at exit: (0, 4, True)"], done.stdout
