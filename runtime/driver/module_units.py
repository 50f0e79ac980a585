"""A module's code in one context, compiled unit by unit on first use: the lazy JIT.

``ModuleUnitsCode.from_ptx`` splits a PTX module into compilation units
(``ptx2gcn.frontend.units``: one kernel each, or the kernels that share module-scope data together)
and compiles nothing; ``function(name)`` compiles and loads the unit of that kernel the first time
it is asked for, ``global_symbol(name)`` the unit that owns that variable, ``load_all()`` every unit
(in parallel worker processes, ``jit.compile_many``). A precompiled image (an AMDGPU code object) or
a backend that takes PTX itself (``cuda``) is one unit, loaded at once.

When units are compiled is CUDA's module loading mode (``loading_mode``), read from
``CUDA_MODULE_LOADING`` at each load:

- ``LAZY`` (the default, as in CUDA since 12.2 on Linux): the load parses and checks the module's
  declarations (an error there fails the load with ``CUDA_ERROR_INVALID_PTX``, as an eager load
  would; a load that asks for an error log, ``CU_JIT_ERROR_LOG_BUFFER``, checks the function bodies
  too); each kernel is compiled when ``cuModuleGetFunction`` (or a launch of a ``CUkernel``) first
  needs it, which is where CUDA's lazy loading loads a kernel. A kernel that does not parse or that
  the compiler cannot translate fails there, with ``CUDA_ERROR_INVALID_PTX`` and the located
  diagnostic, as the whole load would have failed in eager mode (docs/jit.md).
- ``EAGER``: every unit is compiled (in parallel) and loaded during the load call; the first
  failing unit, in source order, fails the load.

Invariant: a unit is compiled and loaded at most once per module (a lock per module); a kernel's
``CUfunction`` runs the code compiled from its own unit, whose data (globals) is the one copy the
host sees through ``cuModuleGetGlobal``; ``unload`` unloads every unit that was loaded.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.backends.protocol import Backend, BackendError, KernelInfo, LoadedModule, ModuleCode
from ptx2gcn.runtime.cache.jit_cache import JitCache
from ptx2gcn.runtime.driver.enums import CUmoduleLoadingMode, CUresult
from ptx2gcn.runtime.driver.errors import CudaError, from_backend, plain
from ptx2gcn.runtime.driver.jit import Compiler, PtxSource, UnitPlan, compile_many, split_module, unit_text
from ptx2gcn.runtime.driver.jit_pool import jit_workers

LoadingMode = CUmoduleLoadingMode


def loading_mode(environ: Mapping[str, str] | None = None) -> LoadingMode:
    """``CUDA_MODULE_LOADING``: ``EAGER`` or ``LAZY`` (any case); unset, empty or anything else is
    ``LAZY``, CUDA's default."""
    env = os.environ if environ is None else environ
    eager = env.get("CUDA_MODULE_LOADING", "").strip().upper() == "EAGER"
    return LoadingMode.CU_MODULE_EAGER_LOADING if eager else LoadingMode.CU_MODULE_LAZY_LOADING


def _backend(action: Callable[[], object]) -> object:
    try:
        return action()
    except BackendError as error:
        raise from_backend(error.kind, plain(error)) from None


@dataclass(eq=False)
class _Unit:
    kernels: tuple[str, ...]
    globals: tuple[str, ...] | None
    """The variables this unit defines; None when unknown before loading (precompiled code)."""
    ranges: tuple[tuple[int, int], ...] | None
    """The unit's ranges of the module's PTX (``jit.unit_text``), None when ``loaded`` was given."""
    loaded: LoadedModule | None = None
    infos: dict[str, KernelInfo] = field(default_factory=dict[str, KernelInfo])


@dataclass(frozen=True)
class _Build:
    """How this module's units are compiled."""

    source: str
    text: str
    """The whole module's PTX."""
    options: CompileOptions
    compiler: Compiler | None
    cache: JitCache | None
    workers: int


class ModuleUnitsCode:
    """The code of one loaded module in one context (see the module docstring)."""

    def __init__(self, backend: Backend, name: str, units: list[_Unit], build: _Build | None) -> None:
        self.backend = backend
        self.name = name
        self._units = units
        self._build = build
        self._lock = threading.RLock()
        self._by_kernel = {k: unit for unit in units for k in unit.kernels}

    # -- construction -----------------------------------------------------------------------------
    @classmethod
    def loaded_now(cls, backend: Backend, code: ModuleCode) -> ModuleUnitsCode:
        """One unit, loaded now: a code object, or PTX for a backend that compiles it itself."""
        unit = _Unit((), None, None)
        cls._load_into(backend, unit, code)
        unit.kernels = tuple(unit.infos)
        return cls(backend, code.name, [unit], None)

    @classmethod
    def from_ptx(cls, backend: Backend, ptx: PtxSource, options: CompileOptions, compiler: Compiler | None,
                 cache: JitCache | None, mode: LoadingMode, check_bodies: bool = False) -> ModuleUnitsCode:
        """The units of ``ptx`` (its declarations, with ``check_bodies`` all of it, parsed and checked
        now); all compiled now when ``mode`` is EAGER."""
        plans: Sequence[UnitPlan] = split_module(ptx.text, ptx.source, cache, check_bodies=check_bodies)
        units = [_Unit(p.kernels, p.globals, p.ranges) for p in plans]
        try:
            workers = jit_workers()
        except ValueError as error:
            raise CudaError(CUresult.CUDA_ERROR_INVALID_VALUE, str(error)) from None
        build = _Build(ptx.source, ptx.text, options, compiler, cache, workers)
        code = cls(backend, ptx.source, units, build)
        if mode is LoadingMode.CU_MODULE_EAGER_LOADING:
            try:
                code.load_all()
            except CudaError:
                code.unload()
                raise
        return code

    # -- queries ----------------------------------------------------------------------------------
    @property
    def kernel_names(self) -> tuple[str, ...]:
        return tuple(self._by_kernel)

    def function(self, name: str) -> tuple[LoadedModule, KernelInfo] | None:
        """The loaded code and launch information of kernel ``name`` (its unit compiled and loaded
        now if needed), or None when the module has no such kernel."""
        unit = self._by_kernel.get(name)
        if unit is None:
            return None
        self._ensure([unit])
        assert unit.loaded is not None
        return unit.loaded, unit.infos[name]

    def global_symbol(self, name: str) -> tuple[int, int] | None:
        """(address, size) of module variable ``name`` (its unit loaded now if needed), or None."""
        for unit in self._units:
            if unit.globals is None or name in unit.globals:
                self._ensure([unit])
                found = _backend(lambda u=unit: self.backend.global_symbol(u.loaded, name))
                if found is not None:
                    return found  # type: ignore[return-value]
        return None

    # -- loading ----------------------------------------------------------------------------------
    def load_all(self) -> None:
        """Compile (in parallel) and load every unit not loaded yet."""
        self._ensure(self._units)

    def _ensure(self, units: Sequence[_Unit]) -> None:
        with self._lock:
            missing = [u for u in units if u.loaded is None]
            if not missing:
                return
            build = self._build
            assert build is not None
            jobs = [(unit_text(build.text, u.ranges or ()), build.source) for u in missing]
            results = compile_many(jobs, build.options, build.compiler, build.cache, build.workers)
            first: CudaError | None = None
            for unit, (text, _), result in zip(missing, jobs, results, strict=True):
                if isinstance(result, CudaError):
                    first = first or result
                    continue
                self._load_into(self.backend, unit, ModuleCode(build.source, text, result))
            if first is not None:
                raise first

    @staticmethod
    def _load_into(backend: Backend, unit: _Unit, code: ModuleCode) -> None:
        loaded = _backend(lambda: backend.load(code))
        infos = dict(_backend(lambda: backend.kernels(loaded)))  # type: ignore[call-overload]
        unit.loaded = loaded
        unit.infos = infos

    def unload(self) -> None:
        """Unload every loaded unit (the module's handle is going away)."""
        with self._lock:
            for unit in self._units:
                if unit.loaded is not None:
                    loaded = unit.loaded
                    _backend(lambda u=loaded: self.backend.unload(u))
                    unit.loaded = None
