"""Run one launch case (``runtime/cases/case.py`` format) on a backend: ``ptx2gcn run CASE.toml``.

The case's code (PTX, fatbin or code object) goes through the same path as ``cuModuleLoadData``
(``ptx2gcn.runtime.driver.jit``: PTX selection, JIT cache; of PTX only the launched kernel's unit is
compiled, as the lazy JIT does, docs/jit.md), the buffers are allocated and filled,
the parameter buffer is packed from the kernel's own metadata, the kernel runs (its device ``printf``
output goes to stdout, a failed ``assert`` to stderr: ``ptx2gcn.runtime.backends.messages``), and
every buffer's final contents come back as arrays of its element type.

Invariant: ``run_case`` returns a ``CaseRun`` or raises ``Ptx2GcnError`` (located compile
diagnostics, case-file errors, backend faults with the emulator's site); device memory and the module
are released either way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy.typing as npt

from ptx2gcn.diagnostics import Ptx2GcnError, SourceFile, Span
from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.backends.emulator import EmulatorFactory
from ptx2gcn.runtime.backends.messages import DeviceMessages, launch_with_messages
from ptx2gcn.runtime.backends.protocol import (
    Backend,
    BackendFactory,
    KernelInfo,
    LaunchResult,
    ModuleCode,
    select_backend,
)
from ptx2gcn.runtime.cache.jit_cache import JitCache
from ptx2gcn.runtime.cases.case import Case, CaseError, CheckReport
from ptx2gcn.runtime.cases.locate import field_span
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.jit import kernel_code
from ptx2gcn.runtime.driver.state import Compiler


@dataclass(frozen=True, slots=True)
class CaseRun:
    case: Case
    backend: str
    outputs: dict[str, npt.NDArray[Any]]
    launch: LaunchResult

    def check(self) -> CheckReport:
        return self.case.check(self.outputs)


def open_backend(
    name: str | None, trace: Callable[[str], None] | None = None, factory: BackendFactory | None = None
) -> tuple[str, Backend]:
    """Device 0 of ``factory``, else of the backend ``name`` selects (``select_backend``)."""
    factory = factory or select_backend(name)
    if trace is not None:
        if not isinstance(factory, EmulatorFactory):
            raise Ptx2GcnError.at(None, f"tracing needs the emulator backend, not {factory.name}")
        factory = EmulatorFactory(trace)
    factory.device_count()
    return factory.name, factory.open(0)


def _error(case: Case, message: str) -> Ptx2GcnError:
    return Ptx2GcnError.at(Span.unknown(str(case.source)), message)


def _code(case: Case, backend: Backend, options: CompileOptions, compiler: Compiler | None,
          cache: JitCache | None) -> ModuleCode:
    try:
        data = case.source.read_bytes()
        return kernel_code(data, str(case.source), options, backend.code_format, case.kernel,
                           compiler=compiler, cache=cache)
    except CudaError as error:
        raise (error.diagnostic or _error(case, error.message)) from None
    except OSError as error:
        raise _error(case, f"cannot read: {error.strerror or error}") from None


def _kernel(case: Case, kernels: Mapping[str, KernelInfo]) -> KernelInfo:
    info = kernels.get(case.kernel)
    if info is None:
        source = SourceFile(str(case.path), case.path.read_text(encoding="utf-8"))
        known = ", ".join(sorted(kernels)) or "none"
        raise CaseError.located(
            field_span(source, "kernel"),
            f"kernel: {case.source.name} has no kernel {case.kernel!r} (kernels: {known})",
        )
    return info


def _launch(case: Case, backend: Backend, module: object) -> tuple[dict[str, bytes], LaunchResult]:
    info = _kernel(case, backend.kernels(module))
    addresses: dict[str, int] = {}
    try:
        for buffer in case.buffers():
            addresses[buffer.name] = backend.malloc(max(buffer.nbytes, 1))
            backend.write(addresses[buffer.name], buffer.initial.tobytes())
        parameters = case.parameter_buffer(info.params, addresses, info.param_buffer_size)
        launched = launch_with_messages(
            backend, module, case.kernel, case.grid, case.block, case.shared_bytes, parameters, DeviceMessages()
        )
        return {b.name: backend.read(addresses[b.name], b.nbytes) for b in case.buffers()}, launched
    finally:
        for address in addresses.values():
            backend.free(address)


def run_case(
    case: Case,
    backend_name: str | None = None,
    *,
    trace: Callable[[str], None] | None = None,
    compiler: Compiler | None = None,
    cache: JitCache | None = None,
    factory: BackendFactory | None = None,
    options: CompileOptions | None = None,
) -> CaseRun:
    """Run ``case`` on backend ``backend_name`` (or on device 0 of ``factory``, which then wins); its
    PTX is compiled with ``options`` (default: the defaults)."""
    name, backend = open_backend(backend_name, trace, factory)
    try:
        module = backend.load(_code(case, backend, options or CompileOptions(), compiler, cache))
        try:
            raw, launched = _launch(case, backend, module)
        finally:
            backend.unload(module)
    finally:
        backend.close()
    return CaseRun(case, name, case.decode_outputs(raw), launched)
