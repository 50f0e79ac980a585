"""Driver-API modules and functions: ``cuModuleLoad*``, ``cuModuleUnload``, ``cuModuleGetFunction``,
``cuModuleGetGlobal``, ``cuFuncGetAttribute``.

Images arrive as cuda-python passes them: a buffer-protocol object (bytes, bytearray, numpy arrays),
an integer address (read as C would: NUL-terminated PTX, or a fatbin/ELF whose headers give its
size), or (convenience) a ``str`` of PTX. ``cuModuleLoadDataEx`` honours ``CU_JIT_ERROR_LOG_BUFFER``
/ ``CU_JIT_INFO_LOG_BUFFER`` (writable buffers or addresses, with their ``*_SIZE_BYTES``) and
``CU_JIT_OPTIMIZATION_LEVEL``; other JIT options are accepted and ignored.

Invariant: a module handle is valid from a successful load until ``cuModuleUnload`` or the context's
destruction; its function handles die with it. Failing loads register nothing.
"""

from __future__ import annotations

import ctypes
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.backends.protocol import ModuleCode
from ptx2gcn.runtime.driver.args import buffer_of, enum_member, handle, integer, invalid, name
from ptx2gcn.runtime.driver.enums import CUfunction_attribute, CUjit_option, CUmoduleLoadingMode, CUresult
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.host import writable
from ptx2gcn.runtime.driver.jit import module_source
from ptx2gcn.runtime.driver.jit_options import compile_options
from ptx2gcn.runtime.driver.module_units import ModuleUnitsCode, loading_mode
from ptx2gcn.runtime.driver.state import Context, FunctionRecord, ModuleRecord, driver
from ptx2gcn.runtime.driver.types import CUdeviceptr, CUfunction, CUmodule
from ptx2gcn.runtime.fatbin import CONTAINER_MAGIC, WRAPPER_MAGIC

_ELF_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")


def _image_at(address: int) -> bytes:
    """The image at a host address, sized as its own headers say (C's view of a ``void*`` image)."""
    if address == 0:
        raise invalid("image is a null pointer")
    magic = ctypes.string_at(address, 4)
    value = struct.unpack("<I", magic)[0]
    if value == WRAPPER_MAGIC:
        address = struct.unpack("<IIQQ", ctypes.string_at(address, 24))[2]
        value = struct.unpack("<I", ctypes.string_at(address, 4))[0]
    if value == CONTAINER_MAGIC:
        _magic, _version, header, body = struct.unpack("<IHHQ", ctypes.string_at(address, 16))
        return ctypes.string_at(address, header + body)
    if magic == b"\x7fELF":
        fields = _ELF_HEADER.unpack(ctypes.string_at(address, _ELF_HEADER.size))
        phoff, shoff, phentsize, phnum, shentsize, shnum = (
            fields[5],
            fields[6],
            fields[9],
            fields[10],
            fields[11],
            fields[12],
        )
        return ctypes.string_at(address, max(shoff + shentsize * shnum, phoff + phentsize * phnum, 64))
    return ctypes.string_at(address)


def image_bytes(image: object, what: str = "image") -> bytes:
    if image is None:
        raise invalid(f"{what} is None")
    if isinstance(image, str):
        return image.encode()
    if isinstance(image, ctypes.c_void_p):
        return _image_at(image.value or 0)
    if isinstance(image, int):
        return _image_at(integer(image, what, 64))
    view = buffer_of(image)
    if view is None:
        raise invalid(f"{what}: a {type(image).__name__} is not an image (bytes, a buffer or an address)")
    return view.tobytes()


def _load(data: bytes, source: str, options: CompileOptions | None = None, check_bodies: bool = False) -> CUmodule:
    """Load ``data`` into the current context; PTX is compiled with ``options`` (default: the
    driver's configured value)."""
    return CUmodule(load_into(driver().require_current(), data, source, options, check_bodies).handle)


_CONST = re.compile(
    r"^\s*(?:\.(?:visible|extern|weak)\s+)?\.const\s+(?:\.align\s+\d+\s+)?\.[bsuf](8|16|32|64)\s+"
    r"[A-Za-z_$%][\w$]*((?:\s*\[\s*\d*\s*\])*)",
    re.MULTILINE,
)


def const_bytes(ptx: str) -> int:
    """Bytes of the module's ``.const`` variables (``CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES``: what a
    kernel of the module may read from the constant bank; ptx2gcn keeps it in global memory)."""
    total = 0
    for bits, dims in _CONST.findall(ptx):
        count = 1
        for extent in re.findall(r"\[\s*(\d*)\s*\]", dims):
            count *= int(extent or 0)
        total += count * int(bits) // 8
    return total


def load_into(context: Context, data: bytes, source: str, options: CompileOptions | None = None,
              check_bodies: bool = False) -> ModuleRecord:
    """Load ``data`` into ``context`` and register the module (``cuLibrary*`` loads per context).
    PTX is split into units now (its declarations checked; with ``check_bodies``, all of it) and
    compiled per kernel on first use, or all now under ``CUDA_MODULE_LOADING=EAGER``
    (``ptx2gcn.runtime.driver.module_units``)."""
    state = driver()
    config = state.config
    backend = context.backend
    found = module_source(data, source, backend.code_format)
    if isinstance(found, ModuleCode):
        code = ModuleUnitsCode.loaded_now(backend, found)
    elif backend.code_format == "ptx":
        code = ModuleUnitsCode.loaded_now(backend, ModuleCode(found.source, found.text, None))
    else:
        code = ModuleUnitsCode.from_ptx(backend, found, options or config.options, config.compiler, config.cache,
                                        loading_mode(), check_bodies)
    constants = const_bytes(found.ptx or "") if isinstance(found, ModuleCode) else const_bytes(found.text)
    record = ModuleRecord(state.new_handle(), context, code.name, code, const_bytes=constants)
    with state.lock:
        state.modules[record.handle] = record
        context.modules.add(record.handle)
    return record


def module_load(fname: object) -> CUmodule:
    driver().require_current()
    if isinstance(fname, (bytes, bytearray)):
        fname = bytes(fname).split(b"\0", 1)[0].decode("utf-8", errors="surrogateescape")
    if not isinstance(fname, (str, Path)):
        raise invalid(f"fname must be a path (str or bytes), got {type(fname).__name__}")
    path = Path(fname)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CudaError(CUresult.CUDA_ERROR_FILE_NOT_FOUND, f"{path}: no such file") from None
    except OSError as error:
        raise CudaError(CUresult.CUDA_ERROR_FILE_NOT_FOUND, f"{path}: {error.strerror or error}") from None
    return _load(data, str(path))


def module_load_data(image: object) -> CUmodule:
    driver().require_current()
    return _load(image_bytes(image), "<module image>")


def module_load_fat_binary(fatCubin: object) -> CUmodule:
    driver().require_current()
    return _load(image_bytes(fatCubin, "fatCubin"), "<fatbin>")


def _log_target(
    options: dict[CUjit_option, object], buffer: CUjit_option, size: CUjit_option
) -> memoryview | None:
    if buffer not in options:
        return None
    length = integer(options.get(size, 0), size.name, 32)
    if length == 0:
        return None
    return writable(options[buffer], length, buffer.name)


def _write_log(target: memoryview | None, text: str) -> None:
    if target is None:
        return
    data = text.encode()[: len(target) - 1] + b"\0"
    target[: len(data)] = data


def _option_list(value: object) -> list[object] | None:
    """A JIT option list argument: a sequence, or None for none; else (not a list) None."""
    if value is None:
        return []
    return list(cast(Sequence[object], value)) if isinstance(value, Sequence) else None


@dataclass(frozen=True)
class JitRequest:
    """The JIT options of a load call: compile options and the log buffers to fill. A load with an
    error log checks every function body at once (the log exists only during the load; a lazy load
    otherwise checks declarations only, docs/jit.md)."""

    options: CompileOptions
    error_log: memoryview | None
    info_log: memoryview | None

    def failed(self, message: str) -> None:
        _write_log(self.error_log, message)

    def succeeded(self) -> None:
        _write_log(self.error_log, "")
        _write_log(self.info_log, "ptx2gcn: compiled for gfx942")


def jit_request(numOptions: object, options: object, optionValues: object) -> JitRequest:
    """Check a ``(numOptions, options, optionValues)`` triple as ``cuModuleLoadDataEx`` takes it."""
    count = integer(numOptions, "numOptions")
    keys, values = _option_list(options), _option_list(optionValues)
    if keys is None or values is None or len(keys) != count or len(values) != count:
        raise invalid(f"numOptions = {count}, but options and optionValues must be lists of that length")
    table = {enum_member(key, CUjit_option, "options[]"): value for key, value in zip(keys, values)}
    error_log = _log_target(
        table, CUjit_option.CU_JIT_ERROR_LOG_BUFFER, CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
    )
    info_log = _log_target(
        table, CUjit_option.CU_JIT_INFO_LOG_BUFFER, CUjit_option.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES
    )
    return JitRequest(compile_options(table, driver().config.options), error_log, info_log)


def module_load_data_ex(image: object, numOptions: object, options: object, optionValues: object) -> CUmodule:
    driver().require_current()
    request = jit_request(numOptions, options, optionValues)
    try:
        module = _load(image_bytes(image), "<module image>", request.options, request.error_log is not None)
    except CudaError as error:
        request.failed(error.message)
        raise
    request.succeeded()
    return module


def module_unload(hmod: object) -> None:
    state = driver()
    state.initialised()
    record = state.module(handle(hmod, CUmodule, "hmod"))
    record.code.unload()
    with state.lock:
        state.forget_module(record)


def module_get_function(hmod: object, name_: object) -> CUfunction:
    """The kernel's ``CUfunction``; its unit is compiled and loaded now if it is not yet (CUDA's
    lazy loading loads a kernel here), a compile failure being ``CUDA_ERROR_INVALID_PTX``."""
    state = driver()
    state.initialised()
    record = state.module(handle(hmod, CUmodule, "hmod"))
    kernel = name(name_, "name")
    existing = record.functions.get(kernel)
    if existing is not None:
        return CUfunction(existing)
    found = record.code.function(kernel)
    if found is None:
        known = ", ".join(sorted(record.code.kernel_names)) or "none"
        raise CudaError(
            CUresult.CUDA_ERROR_NOT_FOUND, f"{record.name}: no kernel named {kernel!r} (kernels: {known})"
        )
    loaded, info = found
    if record.const_bytes:
        info = replace(info, const_bytes=record.const_bytes)
    with state.lock:
        existing = record.functions.get(kernel)  # another thread may have got there first
        if existing is not None:
            return CUfunction(existing)
        function = FunctionRecord(state.new_handle(), record, info, loaded)
        state.functions[function.handle] = function
        record.functions[kernel] = function.handle
    return CUfunction(function.handle)


def module_get_global(hmod: object, name_: object) -> tuple[CUdeviceptr, int]:
    state = driver()
    state.initialised()
    record = state.module(handle(hmod, CUmodule, "hmod"))
    symbol = name(name_, "name")
    found = record.code.global_symbol(symbol)
    if found is None:
        raise CudaError(CUresult.CUDA_ERROR_NOT_FOUND, f"{record.name}: no global variable named {symbol!r}")
    address, size = found
    record.context.symbols[address] = size
    record.symbols.add(address)
    return CUdeviceptr(address), size


def module_get_loading_mode() -> CUmoduleLoadingMode:
    """``cuModuleGetLoadingMode``: ``CU_MODULE_EAGER_LOADING`` or ``CU_MODULE_LAZY_LOADING``, from
    ``CUDA_MODULE_LOADING`` as the next load will read it."""
    driver().initialised()
    return loading_mode()


F = CUfunction_attribute


def func_get_attribute(attrib: object, hfunc: object) -> int:
    attribute = enum_member(attrib, CUfunction_attribute, "attrib")
    state = driver()
    state.initialised()
    function = state.function(handle(hfunc, CUfunction, "hfunc"))
    info = function.info
    shared_limit = function.module.context.backend.properties.shared_memory_per_block
    values = {
        F.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: info.max_threads_per_block,
        F.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: info.shared_bytes,
        F.CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: info.const_bytes,
        F.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: info.local_bytes,
        F.CU_FUNC_ATTRIBUTE_NUM_REGS: info.registers,
        F.CU_FUNC_ATTRIBUTE_PTX_VERSION: info.ptx_version,
        F.CU_FUNC_ATTRIBUTE_BINARY_VERSION: info.binary_version,
        F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: max(0, shared_limit - info.shared_bytes),
    }
    return function.settings.get(int(attribute), values.get(attribute, 0))
