"""Settable function and kernel attributes, and cache preferences: ``cuFuncSetAttribute``,
``cuKernelSetAttribute``, ``cuFuncSetCacheConfig``, ``cuKernelSetCacheConfig``,
``cuCtxSetCacheConfig``/``cuCtxGetCacheConfig``, ``cuFuncSetSharedMemConfig``.

CUDA lets two attributes be set: ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`` (at most the
device's shared memory minus the kernel's static use) and
``CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`` (-1 or a percentage 0..100); the value set is
what ``cuFuncGetAttribute`` then reads. The others are read-only: ``CUDA_ERROR_INVALID_VALUE``. Cache
configurations are preferences: checked, recorded for the getter, no other effect (gfx942's L1/LDS
split is fixed).

Invariant: a set value is recorded only after it was checked; a ``CUkernel``'s settings apply to its
function in every context (``FunctionRecord.settings`` of the function it resolves to).
"""

from __future__ import annotations

from ptx2gcn.runtime.driver.args import enum_member, integer, invalid
from ptx2gcn.runtime.driver.enums import CUfunc_cache, CUfunction_attribute
from ptx2gcn.runtime.driver.library import function_record, kernel_get_function
from ptx2gcn.runtime.driver.state import FunctionRecord, driver

F = CUfunction_attribute
SETTABLE = (F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, F.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)


def _set(function: FunctionRecord, attrib: object, value: object) -> None:
    attribute = enum_member(attrib, CUfunction_attribute, "attrib")
    number = integer(value, "value", 32, signed=True)
    if attribute not in SETTABLE:
        raise invalid(f"{attribute.name} is read-only (settable: {', '.join(a.name for a in SETTABLE)})")
    if attribute is F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        limit = function.module.context.backend.properties.shared_memory_per_block - function.info.shared_bytes
        if not 0 <= number <= limit:
            raise invalid(f"{attribute.name} = {number}: the kernel can have 0..{limit} bytes of dynamic shared memory")
    elif not (number == -1 or 0 <= number <= 100):
        raise invalid(f"{attribute.name} = {number}: a carve-out is -1 or a percentage 0..100")
    function.settings[int(attribute)] = number


def func_set_attribute(hfunc: object, attrib: object, value: object) -> None:
    _set(function_record(hfunc), attrib, value)


def kernel_set_attribute(attrib: object, val: object, kernel: object, dev: object) -> None:
    state = driver()
    state.initialised()
    state.check_device(integer(dev, "dev", 32, signed=True))
    _set(state.function(int(kernel_get_function(kernel))), attrib, val)


def func_set_cache_config(hfunc: object, config: object) -> None:
    function_record(hfunc)
    enum_member(config, CUfunc_cache, "config")


def kernel_set_cache_config(kernel: object, config: object, dev: object) -> None:
    state = driver()
    state.check_device(integer(dev, "dev", 32, signed=True))
    kernel_get_function(kernel)
    enum_member(config, CUfunc_cache, "config")


def ctx_set_cache_config(config: object) -> None:
    context = driver().require_current()
    context.cache_config = int(enum_member(config, CUfunc_cache, "config"))


def ctx_get_cache_config() -> int:
    return driver().require_current().cache_config


def func_set_shared_mem_config(hfunc: object, config: object) -> None:
    function_record(hfunc)
    if integer(config, "config") not in (0, 1, 2):  # CUsharedconfig: DEFAULT, FOUR_BYTE, EIGHT_BYTE
        raise invalid(f"config = {config} is not a CUsharedconfig value")
