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
This module is the runtime's only way into the compiler, and only through ``ptx2gcn.compile`` and
``ptx2gcn.split_units`` (tests/unit/test_import_graph.py).

The lazy JIT (``ptx2gcn.runtime.driver.module_units``) uses the rest: ``module_source`` (the PTX of
an image, or its precompiled code), ``split_module`` (the module's compilation units, its
declarations parsed and checked now, the plan kept in the JIT cache), ``unit_text`` (one unit's PTX,
line numbers kept) and ``compile_many`` (several units at once, in worker processes when more than
one needs compiling: ``ptx2gcn.runtime.driver.jit_pool``); ``kernel_code`` compiles one kernel's
unit for a tool. Each unit is its own cache entry, keyed by its text and the whole
``CompileOptions``, and compiled by the same ``ptx2gcn.compile`` call in or out of process, so a
unit's bytes never depend on how it was compiled.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.backends.protocol import ModuleCode
from ptx2gcn.runtime.cache.jit_cache import CacheKey, JitCache
from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.driver.errors import CudaError, plain
from ptx2gcn.runtime.fatbin import FatbinError, ImageKind, ptx_modules, read_fatbin, sniff_image

Compiler = Callable[[str, str, CompileOptions], bytes]
"""(PTX text, source name, options) -> code object bytes."""


def default_compiler(ptx: str, source: str, options: CompileOptions) -> bytes:
    """The code object's bytes from ``ptx2gcn.compile`` (imported on the first JIT compilation, so
    a program that only loads code objects never loads the compiler); diagnostics name ``source``
    (the name never changes the bytes)."""
    try:
        from ptx2gcn import compile  # noqa: A004
    except ImportError:
        raise CudaError(
            CUresult.CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
            "this ptx2gcn build has no PTX compiler (ptx2gcn.compiler is missing)",
        ) from None
    return compile(ptx, options, name=source).data


def _rendered(error: Ptx2GcnError) -> CudaError:
    return CudaError(CUresult.CUDA_ERROR_INVALID_PTX, error.render().rstrip("\n"), error)


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
        raise _rendered(error) from None


_cache: JitCache | None = None


def _shared_cache() -> JitCache:
    global _cache
    if _cache is None:
        _cache = JitCache()
    return _cache


def _entry_pattern(kernel: str) -> re.Pattern[str]:
    return re.compile(rf"\.entry\s+{re.escape(kernel)}\s*\(")


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


@dataclass(frozen=True, slots=True)
class PtxSource:
    """The PTX of a module image: its text and the name diagnostics use."""

    text: str
    source: str


def module_source(
    data: bytes, name: str, backend_format: str, kernel: str | None = None
) -> PtxSource | ModuleCode:
    """The PTX ``data`` holds (PTX text, a fatbin, an ELF holding fatbins), or, for an AMDGPU code
    object, the code itself; ``CudaError`` as ``module_code`` says."""
    kind = sniff_image(data)
    if kind is ImageKind.PTX:
        return PtxSource(data.split(b"\0", 1)[0].decode("utf-8", errors="replace"), name)
    if kind in (ImageKind.FATBIN, ImageKind.ELF_HOST):
        return PtxSource(*_ptx_of_fatbin(data, name, kernel))
    if kind is ImageKind.ELF_AMDGPU:
        if backend_format == "ptx":
            raise CudaError(
                CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU,
                f"{name}: an AMDGPU code object cannot run on the cuda backend",
            )
        return ModuleCode(name, None, data)
    if kind is ImageKind.ELF_CUBIN:
        raise CudaError(
            CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU,
            f"{name}: an NVIDIA cubin holds SASS machine code, which ptx2gcn cannot recompile; "
            "load PTX or a fatbin with PTX (nvcc -gencode arch=compute_XX,code=compute_XX)",
        )
    raise CudaError(
        CUresult.CUDA_ERROR_INVALID_IMAGE,
        f"{name}: not PTX, a fatbin or a code object ({kind.value} image)",
    )


@dataclass(frozen=True, slots=True)
class UnitPlan:
    """One compilation unit of a module (``ptx2gcn.frontend.units.Unit`` as plain data)."""

    kernels: tuple[str, ...]
    globals: tuple[str, ...]
    ranges: tuple[tuple[int, int], ...]


SPLIT_FORMAT = "split-units/1"
"""The cache key's options for a stored unit plan (bump when the plan's JSON changes); ``/bodies``
is appended for a split that checked the function bodies too."""


def _split(text: str, source: str, check_bodies: bool) -> bytes:
    try:
        from ptx2gcn import split_units
    except ImportError:
        raise CudaError(
            CUresult.CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
            "this ptx2gcn build has no PTX compiler (ptx2gcn.frontend is missing)",
        ) from None
    plan = split_units(text, source, check_bodies=check_bodies)
    return json.dumps(plan.to_json(), separators=(",", ":")).encode()


def split_module(
    text: str, source: str, cache: JitCache | None = None, *, check_bodies: bool = False
) -> tuple[UnitPlan, ...]:
    """The compilation units of the PTX module ``text``, its declarations (with ``check_bodies``, all
    of it) parsed and checked now: an error is ``CUDA_ERROR_INVALID_PTX`` with the rendered
    diagnostic. The plan is kept in the JIT cache (keyed by the text and the compiler's identity),
    so loading a module again costs a lookup, not a parse."""
    cache = cache or _shared_cache()
    key = CacheKey.for_ptx(text, "any", SPLIT_FORMAT + ("/bodies" if check_bodies else ""))
    try:
        payload = cache.get_or_build(key, lambda: _split(text, source, check_bodies))
    except Ptx2GcnError as error:
        raise _rendered(error) from None
    units = json.loads(payload)["units"]
    return tuple(
        UnitPlan(tuple(u["kernels"]), tuple(u["globals"]), tuple((a, b) for a, b in u["ranges"])) for u in units
    )


def kernel_names(data: bytes, name: str) -> list[str]:
    """The kernels a module image defines, found without compiling it (what a context-independent
    ``cuLibraryGetKernel`` needs): from the unit split of its PTX (cached), or from an AMDGPU code
    object's metadata."""
    found = module_source(data, name, "hsaco")
    if isinstance(found, PtxSource):
        return [kernel for unit in split_module(found.text, found.source) for kernel in unit.kernels]
    from ptx2gcn.link.codeobject import read_code_object

    return list(read_code_object(found.hsaco or b"", name).kernels)


def unit_text(text: str, ranges: Sequence[tuple[int, int]]) -> str:
    """The PTX of a unit: its ranges of ``text``, and of everything between them only the newlines
    (a blank where there are none), so every line keeps its number in the module."""
    parts: list[str] = []
    previous = 0
    for start, end in ranges:
        gap = text.count("\n", previous, start)
        parts.append("\n" * gap if gap else (" " if previous else ""))
        parts.append(text[start:end])
        previous = end
    parts.append("\n")
    return "".join(parts)


def compile_in_worker(ptx: str, source: str, options: CompileOptions) -> tuple[bytes | None, int, str]:
    """``default_compiler`` as a worker process runs it: (code, 0, "") or (None, CUresult, message),
    plain values that cross the process boundary."""
    try:
        return default_compiler(ptx, source, options), 0, ""
    except Ptx2GcnError as error:
        failure = _rendered(error)
    except CudaError as error:
        failure = error
    return None, int(failure.result), failure.message


def compile_many(
    jobs: Sequence[tuple[str, str]],
    options: CompileOptions,
    compiler: Compiler | None = None,
    cache: JitCache | None = None,
    workers: int = 1,
) -> list[bytes | CudaError]:
    """The code of each ``(ptx, source)`` job, or the ``CudaError`` its compile gave, in job order.
    Cache hits are served here; the misses are compiled by up to ``workers`` processes when there
    are two or more of them, the compiler is ``ptx2gcn.compile`` and a Python interpreter to start
    workers with exists (otherwise, and for a custom compiler, they run here, one after another).
    Every result is cached as it would be by ``compile_ptx``."""
    from ptx2gcn.runtime.driver.jit_pool import available, run_in_workers

    cache = cache or _shared_cache()
    keys = [CacheKey.for_options(ptx, options) for ptx, _source in jobs]
    results: list[bytes | CudaError | None] = [cache.lookup(key) for key in keys]
    missing = [i for i, found in enumerate(results) if found is None]
    if compiler is None and workers > 1 and len(missing) > 1 and available():
        try:
            outcomes = run_in_workers(compile_in_worker, [(*jobs[i], options) for i in missing], workers)
        except RuntimeError as error:  # a worker died: no result for any of these jobs
            outcomes = [(None, int(CUresult.CUDA_ERROR_UNKNOWN), str(error))] * len(missing)
        for i, (code, result, message) in zip(missing, outcomes, strict=True):
            if code is None:
                results[i] = CudaError(CUresult(result), message)
            else:
                cache.insert(keys[i], code)
                results[i] = code
    else:
        for i in missing:
            try:
                results[i] = compile_ptx(*jobs[i], options, compiler, cache)
            except CudaError as error:
                results[i] = error
    return [r for r in results if r is not None]


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
    found = module_source(data, name, backend_format, kernel)
    if isinstance(found, ModuleCode):
        return found
    if backend_format == "ptx":
        return ModuleCode(found.source, found.text, None)
    return ModuleCode(found.source, found.text, compile_ptx(found.text, found.source, options, compiler, cache))


def kernel_code(
    data: bytes,
    name: str,
    options: CompileOptions,
    backend_format: str,
    kernel: str,
    *,
    compiler: Compiler | None = None,
    cache: JitCache | None = None,
) -> ModuleCode:
    """``module_code`` for a tool that launches one kernel (``ptx2gcn run``): of PTX, only the unit
    holding ``kernel`` is compiled, as the driver's lazy loading would (the whole module when no unit
    holds it, so the caller reports the missing kernel as for any module)."""
    found = module_source(data, name, backend_format, kernel)
    if isinstance(found, ModuleCode) or backend_format == "ptx":
        return module_code(data, name, options, backend_format, kernel, compiler=compiler, cache=cache)
    plans = split_module(found.text, found.source, cache)
    unit = next((p for p in plans if kernel in p.kernels), None)
    text = found.text if unit is None else unit_text(found.text, unit.ranges)
    return ModuleCode(found.source, text, compile_ptx(text, found.source, options, compiler, cache))
