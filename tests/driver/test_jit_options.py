"""One options value from the driver API: ``cuModuleLoadDataEx``'s JIT options become the
``CompileOptions`` the module is compiled with, and the JIT cache key holds that whole value."""

from __future__ import annotations

import ctypes
import dataclasses
from collections.abc import Iterator

import numpy as np
import pytest

from ptx2gcn import cuda
from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.cache.jit_cache import CacheConfig, CacheKey, JitCache
from ptx2gcn.runtime.driver.enums import CUjit_option
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.jit import default_compiler
from ptx2gcn.runtime.driver.jit_options import compile_options
from ptx2gcn.runtime.driver.state import DriverConfig, reset
from tests.driver.conftest import KERNELS_PTX, ok

J = CUjit_option
BASE = CompileOptions()


def test_optimisation_level_and_line_info_set_their_fields() -> None:
    assert compile_options({J.CU_JIT_OPTIMIZATION_LEVEL: 1}, BASE) == CompileOptions(opt=1)
    assert compile_options({J.CU_JIT_OPTIMIZATION_LEVEL: 4}, BASE).opt == 3  # CUDA's default, 4
    assert compile_options({J.CU_JIT_OPTIMIZATION_LEVEL: ctypes.c_uint(0)}, BASE).opt == 0
    assert compile_options({J.CU_JIT_GENERATE_LINE_INFO: 1}, BASE).locations is True
    assert compile_options({J.CU_JIT_GENERATE_LINE_INFO: 0}, CompileOptions(locations=True)).locations is False


def test_options_without_meaning_for_ptx_leave_the_value_alone() -> None:
    """CU_JIT_FTZ/PREC_DIV/PREC_SQRT/FMA apply only to LTO-IR in CUDA (cuda.h 13.0)."""
    base = CompileOptions(arch="gfx90a", opt=2)
    table = {J.CU_JIT_FTZ: 1, J.CU_JIT_PREC_DIV: 0, J.CU_JIT_PREC_SQRT: 0, J.CU_JIT_FMA: 0,
             J.CU_JIT_TARGET: 90}
    assert compile_options(table, base) is base


def test_max_registers_sets_the_register_ceiling() -> None:
    assert compile_options({J.CU_JIT_MAX_REGISTERS: 40}, BASE) == CompileOptions(max_registers=40)
    assert compile_options({J.CU_JIT_MAX_REGISTERS: 0}, CompileOptions(max_registers=40)).max_registers is None
    with pytest.raises(ValueError, match="max_registers"):
        CompileOptions(max_registers=-1)


def test_a_non_integer_level_is_an_invalid_value() -> None:
    with pytest.raises(CudaError) as caught:
        compile_options({J.CU_JIT_OPTIMIZATION_LEVEL: "high"}, BASE)
    assert caught.value.result == cuda.CUresult.CUDA_ERROR_INVALID_VALUE
    assert "CU_JIT_OPTIMIZATION_LEVEL" in caught.value.message


def _differing(field: dataclasses.Field[object]) -> object:
    """A valid value of ``field`` other than the default."""
    other = {"arch": "gfx90a", "opt": 1, "kernels": ("k",), "locations": True, "mma": "exact",
             "passes": ("dce",), "verify_each": True, "print_after": frozenset({"cse"}), "print_locs": True,
             "dump_dir": "/tmp/dump", "max_registers": 40}
    return other[field.name]


def test_every_field_changes_the_cache_key() -> None:
    """The key holds the whole value: a field added to CompileOptions without a value here fails."""
    ptx = KERNELS_PTX.read_text()
    base = CacheKey.for_options(ptx, BASE)
    for field in dataclasses.fields(CompileOptions):
        changed = dataclasses.replace(BASE, **{field.name: _differing(field)})
        assert CacheKey.for_options(ptx, changed).digest != base.digest, field.name
    assert CacheKey.for_options(ptx, CompileOptions(opt=3)).digest == base.digest


@pytest.fixture
def recording_driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[CompileOptions]]:
    """A driver whose JIT compiler records the options of every compilation (then compiles)."""
    seen: list[CompileOptions] = []

    def compiler(ptx: str, source: str, options: CompileOptions) -> bytes:
        seen.append(options)
        return default_compiler(ptx, source, options)

    cache = JitCache(CacheConfig(directory=tmp_path_factory.mktemp("jit-options")))
    reset(DriverConfig(backend="emulator", cache=cache, compiler=compiler,
                       options=CompileOptions(verify_each=True)))
    ok(cuda.cuInit(0))
    context = ok(cuda.cuCtxCreate(None, 0, ok(cuda.cuDeviceGet(0))))
    yield seen
    ok(cuda.cuCtxDestroy(context))
    reset()


def test_module_load_data_ex_compiles_with_the_jit_options(recording_driver: list[CompileOptions]) -> None:
    ptx = KERNELS_PTX.read_bytes()
    first = ok(cuda.cuModuleLoadDataEx(ptx, 2, [J.CU_JIT_OPTIMIZATION_LEVEL, J.CU_JIT_FTZ], [1, 1]))
    second = ok(cuda.cuModuleLoadDataEx(ptx, 1, [J.CU_JIT_OPTIMIZATION_LEVEL], [1]))
    module = ok(cuda.cuModuleLoadData(ptx))  # the driver's own value
    assert recording_driver == []  # lazy loading: kernels compile when first asked for
    ok(cuda.cuModuleGetFunction(first, b"vector_add"))
    ok(cuda.cuModuleGetFunction(second, b"vector_add"))  # same options: a cache hit
    # The module compiled with the driver's value runs (vector_add, checked against numpy).
    function = ok(cuda.cuModuleGetFunction(module, b"vector_add"))
    assert recording_driver == [CompileOptions(opt=1, verify_each=True), CompileOptions(verify_each=True)]
    a, b = np.random.default_rng(7).random((2, 64), dtype=np.float32)
    pointers = [ok(cuda.cuMemAlloc(256)) for _ in range(3)]
    ok(cuda.cuMemcpyHtoD(pointers[0], a, 256))
    ok(cuda.cuMemcpyHtoD(pointers[1], b, 256))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 64, 1, 1, 0, 0, ((*pointers, 64), (None, None, None, ctypes.c_int)), 0))
    out = np.zeros(64, dtype=np.float32)
    ok(cuda.cuMemcpyDtoH(out, pointers[2], 256))
    assert np.array_equal(out, a + b)
