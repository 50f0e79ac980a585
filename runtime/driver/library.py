"""Context-independent code: ``cuLibrary*`` and ``cuKernel*`` (CUDA 12), as cuda.core uses them.

A library keeps its image and JIT options; it becomes a module in a context the first time that
context needs it (CUDA's lazy loading), and when it is loaded while a context is current it is
loaded into that context at once: the PTX is parsed and checked there, so a bad image fails
``cuLibraryLoadData`` itself with the JIT log filled, and each kernel is compiled when a
``CUfunction`` of it is first needed (``cuKernelGetFunction``, or a launch of the ``CUkernel``), or
all at the load under ``CUDA_MODULE_LOADING=EAGER`` (``ptx2gcn.runtime.driver.module_units``). A
``CUkernel`` names a kernel of a library; in a context it is that module's ``CUfunction``. As CUDA
allows, a ``CUkernel`` may be passed wherever a launch takes a ``CUfunction`` (``function_record``).
Library options (``CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE``,
``CU_LIBRARY_BINARY_IS_PRESERVED``) are accepted and change nothing: the image is always copied.

Invariant: a library's per-context modules are ordinary modules of their context (destroyed with it,
listed by ``cuLibraryGetModule``); a stale entry (context destroyed, module unloaded) is reloaded, never
used. ``cuLibraryUnload`` unloads every module it made and invalidates its kernels.
"""

from __future__ import annotations

from pathlib import Path

from ptx2gcn.runtime.driver.args import handle, integer, invalid, name
from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.jit import kernel_names
from ptx2gcn.runtime.driver.module import (
    func_get_attribute,
    image_bytes,
    jit_request,
    load_into,
    module_get_function,
    module_get_global,
    module_unload,
)
from ptx2gcn.runtime.driver.state import Context, FunctionRecord, KernelRecord, LibraryRecord, ModuleRecord, driver
from ptx2gcn.runtime.driver.types import CUdeviceptr, CUfunction, CUkernel, CUlibrary, CUmodule

_LIBRARY_OPTIONS = (0, 1)
"""CUlibraryOption values: HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE, BINARY_IS_PRESERVED."""


def _library_options(count_value: object, keys: object, values: object) -> None:
    count = integer(count_value, "numLibraryOptions")
    listed = [] if keys is None else list(keys) if isinstance(keys, (list, tuple)) else None
    given = [] if values is None else list(values) if isinstance(values, (list, tuple)) else None
    if listed is None or given is None or len(listed) != count or len(given) != count:
        raise invalid(
            f"numLibraryOptions = {count}, but libraryOptions and libraryOptionValues must be lists of that length"
        )
    for key in listed:
        if integer(key, "libraryOptions[]", 32) not in _LIBRARY_OPTIONS:
            raise invalid(f"libraryOptions[]: {key} is not a CUlibraryOption")


def _module_in(library: LibraryRecord, context: Context, check_bodies: bool = False) -> ModuleRecord:
    state = driver()
    existing = library.modules.get(context.handle)
    if existing is not None and existing in state.modules:
        return state.modules[existing]
    record = load_into(context, library.data, library.source, library.options, check_bodies)
    library.modules[context.handle] = record.handle
    return record


Triple = tuple[object, object, object]


def _load(data: bytes, source: str, jit: Triple, library_options: Triple) -> CUlibrary:
    state = driver()
    state.initialised()
    request = jit_request(*jit)
    _library_options(*library_options)
    record = LibraryRecord(state.new_handle(), data, source, request.options)
    context = state.current()
    if context is not None:
        try:
            _module_in(record, state.require_current(), request.error_log is not None)
        except CudaError as error:
            request.failed(error.message)
            raise
        request.succeeded()
    with state.lock:
        state.libraries[record.handle] = record
    return CUlibrary(record.handle)


def library_load_data(
    code: object,
    jitOptions: object,
    jitOptionsValues: object,
    numJitOptions: object,
    libraryOptions: object,
    libraryOptionValues: object,
    numLibraryOptions: object,
) -> CUlibrary:
    return _load(
        image_bytes(code, "code"),
        "<library image>",
        (numJitOptions, jitOptions, jitOptionsValues),
        (numLibraryOptions, libraryOptions, libraryOptionValues),
    )


def library_load_from_file(
    fileName: object,
    jitOptions: object,
    jitOptionsValues: object,
    numJitOptions: object,
    libraryOptions: object,
    libraryOptionValues: object,
    numLibraryOptions: object,
) -> CUlibrary:
    path = Path(name(fileName, "fileName"))
    try:
        data = path.read_bytes()
    except OSError as error:
        raise CudaError(CUresult.CUDA_ERROR_FILE_NOT_FOUND, f"{path}: {error.strerror or error}") from None
    jit = (numJitOptions, jitOptions, jitOptionsValues)
    return _load(data, str(path), jit, (numLibraryOptions, libraryOptions, libraryOptionValues))


def _library(value: object) -> LibraryRecord:
    state = driver()
    state.initialised()
    return state.library(handle(value, CUlibrary, "library"))


def library_unload(library: object) -> None:
    record = _library(library)
    state = driver()
    for module in list(record.modules.values()):
        if module in state.modules:
            module_unload(CUmodule(module))
    with state.lock:
        for kernel in record.kernels.values():
            state.kernels.pop(kernel, None)
        state.libraries.pop(record.handle, None)


def _here(record: LibraryRecord) -> ModuleRecord:
    """The library's module in the current context (loaded now if needed)."""
    return _module_in(record, driver().require_current())


def library_get_module(library: object) -> CUmodule:
    return CUmodule(_here(_library(library)).handle)


def library_get_kernel(library: object, name_: object) -> CUkernel:
    record = _library(library)
    kernel = name(name_, "name")
    existing = record.kernels.get(kernel)
    if existing is not None:
        return CUkernel(existing)
    # Context-independent, as in CUDA: with no current context the names come from the image itself.
    if driver().current() is not None:
        names = set(_here(record).code.kernel_names)
    else:
        names = set(kernel_names(record.data, record.source))
    if kernel not in names:
        known = ", ".join(sorted(names)) or "none"
        raise CudaError(CUresult.CUDA_ERROR_NOT_FOUND, f"library: no kernel named {kernel!r} (kernels: {known})")
    state = driver()
    entry = KernelRecord(state.new_handle(), record, kernel)
    with state.lock:
        state.kernels[entry.handle] = entry
        record.kernels[kernel] = entry.handle
    return CUkernel(entry.handle)


def library_get_kernel_count(lib: object) -> int:
    return len(_here(_library(lib)).code.kernel_names)


def library_get_global(library: object, name_: object) -> tuple[CUdeviceptr, int]:
    return module_get_global(CUmodule(_here(_library(library)).handle), name_)


def _kernel(value: object) -> KernelRecord:
    state = driver()
    state.initialised()
    return state.kernel(handle(value, CUkernel, "kernel"))


def kernel_get_function(kernel: object) -> CUfunction:
    record = _kernel(kernel)
    return module_get_function(CUmodule(_here(record.library).handle), record.name)


def kernel_get_library(kernel: object) -> CUlibrary:
    return CUlibrary(_kernel(kernel).library.handle)


def kernel_get_attribute(attrib: object, kernel: object, dev: object) -> int:
    state = driver()
    state.initialised()
    state.check_device(integer(dev, "dev", 32, signed=True))
    return func_get_attribute(attrib, kernel_get_function(kernel))


def function_record(f: object) -> FunctionRecord:
    """The function a launch's ``f`` names: a ``CUfunction``, or a ``CUkernel`` in the current context."""
    state = driver()
    if isinstance(f, (CUkernel, CUfunction)):
        value = int(f)
    else:
        value = handle(f, CUfunction, "f")
    if value in state.kernels:
        value = int(kernel_get_function(CUkernel(value)))
    return state.function(value)
