"""From a module image to the code a backend loads: image sniffing, PTX selection, JIT via the cache.

``module_code(data, name, options, backend_format)`` accepts what ``cuModuleLoadData`` may be handed:
PTX text, a fatbin container, an ELF holding fatbins (host object, executable, shared library), or
(ptx2gcn's extension) an AMDGPU code object. PTX is compiled with the ``CompileOptions`` value the
caller built once (``ptx2gcn.runtime.driver.jit_options`` for ``cuModuleLoadDataEx``) by the public
entry point ``ptx2gcn.compile`` (or the compiler the driver was configured with) through the JIT
cache, whose key holds that whole value; the ``cuda`` backend gets the PTX.

Invariant: the result or a ``CudaError`` with CUDA's code for the case: unreadable or unknown images
``CUDA_ERROR_INVALID_IMAGE``; fatbins without PTX and NVIDIA cubins ``CUDA_ERROR_NO_BINARY_FOR_GPU``;
PTX the compiler rejects ``CUDA_ERROR_INVALID_PTX`` with the rendered diagnostic as the message (what
``CU_JIT_ERROR_LOG_BUFFER`` receives); no compiler in this build ``CUDA_ERROR_JIT_COMPILER_NOT_FOUND``.
This module is the runtime's only way into the compiler, and only through ``ptx2gcn.compile``
(tests/unit/test_import_graph.py).
"""

from __future__ import annotations

import re
from pathlib import Path

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.backends.protocol import ModuleCode
from ptx2gcn.runtime.cache.jit_cache import CacheKey, JitCache
from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.driver.errors import CudaError, plain
from ptx2gcn.runtime.driver.state import Compiler
from ptx2gcn.runtime.fatbin import FatbinError, ImageKind, ptx_modules, read_fatbin, sniff_image


def default_compiler(ptx: str, source: str, options: CompileOptions) -> bytes:
    """The code object's bytes from ``ptx2gcn.compile`` (imported on the first JIT compilation, so
    a program that only loads code objects never loads the compiler)."""
    try:
        from ptx2gcn import compile  # noqa: A004
    except ImportError:
        raise CudaError(
            CUresult.CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
            "this ptx2gcn build has no PTX compiler (ptx2gcn.compiler is missing)",
        ) from None
    path = Path(source)
    given: str | Path = path if path.is_file() and path.read_text(errors="replace") == ptx else ptx
    return compile(given, options).data


def compile_ptx(
    ptx: str, source: str, options: CompileOptions, compiler: Compiler | None = None, cache: JitCache | None = None
) -> bytes:
    """The code object for ``ptx`` compiled with ``options``, from the cache or freshly compiled."""
    build = compiler or default_compiler
    cache = cache or _shared_cache()
    key = CacheKey.for_options(ptx, options)
    try:
        return cache.get_or_build(key, lambda: build(ptx, source, options))
    except Ptx2GcnError as error:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_PTX, error.render().rstrip("\n"), error) from None


_cache: JitCache | None = None


def _shared_cache() -> JitCache:
    global _cache
    if _cache is None:
        _cache = JitCache()
    return _cache


def _entry_pattern(kernel: str) -> re.Pattern[str]:
    return re.compile(rf"\.entry\s+{re.escape(kernel)}\s*\(")


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_ENTRY = re.compile(r"\.entry\s+([A-Za-z_$%][\w$]*)\s*\(")


def entry_names(data: bytes, name: str) -> list[str]:
    """The kernel (``.entry``) names of a PTX or fatbin image, read from its PTX without compiling
    it (what a context-independent ``cuLibraryGetKernel`` needs); every PTX module of a fatbin."""
    kind = sniff_image(data)
    if kind is ImageKind.PTX:
        texts = [data.split(b"\0", 1)[0].decode("utf-8", errors="replace")]
    elif kind in (ImageKind.FATBIN, ImageKind.ELF_HOST):
        try:
            texts = [module.ptx_text() for module in ptx_modules(read_fatbin(data, name))]
        except FatbinError as error:
            raise CudaError(CUresult.CUDA_ERROR_INVALID_IMAGE, plain(error), error) from None
    else:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_IMAGE, f"{name}: no PTX to read kernel names from")
    return [m.group(1) for text in texts for m in _ENTRY.finditer(_COMMENT.sub(" ", text))]


def _ptx_of_fatbin(data: bytes, name: str, kernel: str | None) -> tuple[str, str]:
    try:
        modules = ptx_modules(read_fatbin(data, name))
    except FatbinError as error:
        message = plain(error)
        code = (
            CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU
            if "no PTX" in message
            else CUresult.CUDA_ERROR_INVALID_IMAGE
        )
        raise CudaError(code, message, error) from None
    if len(modules) > 1 and kernel is not None:
        # An executable or library holds one module per translation unit: take the kernel's.
        modules = [m for m in modules if _entry_pattern(kernel).search(m.ptx_text())] or modules
    if len(modules) != 1:
        raise CudaError(
            CUresult.CUDA_ERROR_INVALID_IMAGE,
            f"{name}: holds {len(modules)} fatbin modules; a module load takes one "
            "(load each translation unit's container separately)",
        )
    module = modules[0]
    return module.ptx_text(), f"{name} ({module.entry.arch_name} PTX)"


def module_code(
    data: bytes,
    name: str,
    options: CompileOptions,
    backend_format: str,
    kernel: str | None = None,
    *,
    compiler: Compiler | None = None,
    cache: JitCache | None = None,
) -> ModuleCode:
    """The code for ``data``, PTX compiled with ``options`` (by ``compiler``, default
    ``ptx2gcn.compile``, through ``cache``, default the process's shared JIT cache). ``kernel`` (a
    tool's choice, not CUDA's) picks, among the modules of a fatbin holding several translation
    units, the one that defines it."""
    kind = sniff_image(data)
    if kind is ImageKind.PTX:
        text = data.split(b"\0", 1)[0].decode("utf-8", errors="replace")
        source = name
    elif kind in (ImageKind.FATBIN, ImageKind.ELF_HOST):
        text, source = _ptx_of_fatbin(data, name, kernel)
    elif kind is ImageKind.ELF_AMDGPU:
        if backend_format == "ptx":
            raise CudaError(
                CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU,
                f"{name}: an AMDGPU code object cannot run on the cuda backend",
            )
        return ModuleCode(name, None, data)
    elif kind is ImageKind.ELF_CUBIN:
        raise CudaError(
            CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU,
            f"{name}: an NVIDIA cubin holds SASS machine code, which ptx2gcn cannot recompile; "
            "load PTX or a fatbin with PTX (nvcc -gencode arch=compute_XX,code=compute_XX)",
        )
    else:
        raise CudaError(
            CUresult.CUDA_ERROR_INVALID_IMAGE,
            f"{name}: not PTX, a fatbin or a code object ({kind.value} image)",
        )
    if backend_format == "ptx":
        return ModuleCode(source, text, None)
    return ModuleCode(source, text, compile_ptx(text, source, options, compiler, cache))
