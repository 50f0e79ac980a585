"""``compile()``: PTX text or file → gfx942 HSA code object v5 with its parsed metadata.

Invariant: ``compile`` either returns a ``CodeObject`` whose ``data`` is a complete, loadable code
object (linked by ``ptx2gcn.link.linker``, its metadata read back by ``ptx2gcn.link.codeobject``) or raises
a ``Ptx2GcnError`` located at the PTX line at fault (syntax, check, unsupported feature, or an
internal error while lowering an op). LLVM is handed only IR it has verified, so it never aborts
the process; ptx2gcn's own verifier checks the IR after it is built and after the pass pipeline
(after every pass with ``verify_each``). Stages: parse → IR → passes → LLVM IR → LLVM opt →
object → link. Python's cyclic garbage collector is paused while a compilation runs
(``ptx2gcn.compile_gc``: the IR's reference cycles are collected once, afterwards, instead of the
whole live graph being walked repeatedly).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TypeVar

from ptx2gcn.compile_gc import gc_paused
from ptx2gcn.diagnostics import Diagnostic, Ptx2GcnError, Severity
from ptx2gcn.emit.module import emit_llvm
from ptx2gcn.emit.target import emit_assembly, emit_object, optimise
from ptx2gcn.frontend import parse_ptx
from ptx2gcn.frontend.check import check_module
from ptx2gcn.ir.core import Module, dispose
from ptx2gcn.ir.verify import verify
from ptx2gcn.link.codeobject import Kernel, read_code_object
from ptx2gcn.link.linker import link_hsaco
from ptx2gcn.options import CompileOptions
from ptx2gcn.pipeline import run_passes
from ptx2gcn.translate.builder import build_module
from ptx2gcn.translate.load import read_text

T = TypeVar("T")
STAGES = ("parse", "ir", "passes", "llvm-ir", "llvm-opt", "llvm-codegen", "link")


class LlvmRejectedError(Ptx2GcnError):
    """LLVM refused the IR ptx2gcn generated (a code-generation bug, reported without a traceback)."""


def _llvm(stage: Callable[[], T]) -> T:
    """Run an LLVM step; its parse/verify failures become a ``LlvmRejectedError``."""
    try:
        return stage()
    except RuntimeError as error:
        message = f"internal error: LLVM rejected the generated IR: {str(error).strip()}"
        raise LlvmRejectedError(Diagnostic(Severity.ERROR, None, message)) from error


@dataclass(frozen=True)
class KernelInfo:
    """What a launcher needs to know about one kernel (from the code object's metadata)."""

    name: str
    kernarg_size: int
    """Total kernarg segment bytes, explicit arguments plus hidden ones."""
    params: tuple[tuple[int, int], ...]
    """(offset, size) of each explicit argument: CUDA's parameter buffer layout."""
    lds_size: int
    """Static LDS bytes (dynamic LDS is added at launch)."""
    scratch_size: int
    """Private bytes per work-item."""
    sgpr_count: int
    vgpr_count: int
    agpr_count: int
    max_flat_workgroup_size: int

    @staticmethod
    def of(kernel: Kernel) -> KernelInfo:
        meta = kernel.meta
        params = tuple((a.offset, a.size) for a in meta.explicit_args)
        return KernelInfo(meta.name, meta.kernarg_segment_size, params, meta.group_segment_fixed_size,
                          meta.private_segment_fixed_size, meta.sgpr_count, meta.vgpr_count, meta.agpr_count,
                          meta.max_flat_workgroup_size)


@dataclass(frozen=True)
class CodeObject:
    """A compiled code object: its bytes and parsed metadata."""

    data: bytes
    """The code object's bytes (an HSA code object v5 ELF), ready for a loader."""
    arch: str
    kernels: dict[str, KernelInfo]
    llvm_ir: str = field(repr=False, default="")
    """The optimised LLVM IR the object was generated from."""
    timings: dict[str, float] = field(default_factory=lambda: {})
    """CPU seconds (this process) spent in each of ``STAGES``; CPU, not wall time, so that other
    work on the machine does not distort the split."""
    options: CompileOptions = field(default_factory=CompileOptions)
    """The options the code object was compiled with."""

    def __bytes__(self) -> bytes:
        return self.data


class _Clock:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._last = time.process_time()

    def lap(self, stage: str) -> None:
        now = time.process_time()
        self.timings[stage] = self.timings.get(stage, 0.0) + now - self._last
        self._last = now


def _looks_like_path(ptx: str) -> bool:
    """One line, no blanks: a file name (PTX text always has blanks between its tokens)."""
    return "\n" not in ptx and not any(c.isspace() for c in ptx.strip()) and ptx.strip() != ""


def _source(ptx: str | os.PathLike[str], name: str | None = None) -> tuple[str, str]:
    """(text, file name used in diagnostics) of PTX given as text or as a path; ``name`` overrides
    the name (default: the path, or ``<input>`` for text). A missing file is a located error."""
    if isinstance(ptx, os.PathLike) or ("\n" not in ptx and os.path.exists(ptx)) or _looks_like_path(ptx):
        path = os.fspath(ptx)
        return read_text(path), name or path
    return ptx, name or "<input>"


def _options(options: CompileOptions | None, fields: dict[str, object]) -> CompileOptions:
    """The Python API's front door: ``options`` (default: the defaults) with ``fields`` replaced
    (``verify_each=None`` is the same as leaving it out)."""
    fields = {k: v for k, v in fields.items() if not (k == "verify_each" and v is None)}
    return CompileOptions.of(options, **fields)


def _pipeline_options(options: CompileOptions, fields: dict[str, object]) -> CompileOptions:
    """The options the pass pipeline runs under: ``options``, verifying after every pass also when
    ``PTX2GCN_VERIFY_EACH=1`` (the test session sets it, so every compile a test makes, the JIT's
    included, checks each pass) and the caller did not choose ``verify_each`` itself. The code object
    records ``options`` as asked, so the environment never changes the value a caller compares or
    caches."""
    chosen = fields.get("verify_each") is not None or options.verify_each
    if chosen or not CompileOptions.from_env().verify_each:
        return options
    return replace(options, verify_each=True)


@gc_paused
def to_ir(text: str, filename: str, options: CompileOptions | None = None, clock: _Clock | None = None) -> Module:
    """Parse, check, build and optimise the IR (the pass pipeline ``options`` selects)."""
    options = options or CompileOptions()
    clock = clock or _Clock()
    tree = parse_ptx(text, filename)
    problems = [d for d in check_module(tree) if d.severity is Severity.ERROR]
    if problems:
        raise Ptx2GcnError(problems)
    clock.lap("parse")
    module = build_module(tree, options)
    verify(module)
    clock.lap("ir")
    run_passes(module, options)
    clock.lap("passes")
    return module


def _emit_and_dispose(module: Module, options: CompileOptions) -> str:
    """``emit_llvm`` of a module that nothing else holds, which is then disposed of
    (``ptx2gcn.ir.core.dispose``: reference counting frees the IR, not the next cyclic collection)."""
    try:
        return emit_llvm(module, options)
    finally:
        dispose(module)


@gc_paused
def compile_llvm(ptx: str | os.PathLike[str], options: CompileOptions | None = None, *,
                 name: str | None = None, optimised: bool = True, **fields: object) -> str:
    """The LLVM IR for ``ptx`` (after LLVM's optimisation pipeline when ``optimised``); ``options``
    and ``fields`` as for ``compile``."""
    pipeline = _pipeline_options(options := _options(options, fields), fields)
    text, filename = _source(ptx, name)
    llvm_ir = _emit_and_dispose(to_ir(text, filename, pipeline), options)
    return _llvm(lambda: optimise(llvm_ir, options)) if optimised else llvm_ir


@gc_paused
def compile_assembly(ptx: str | os.PathLike[str], options: CompileOptions | None = None, *,
                     name: str | None = None, **fields: object) -> str:
    options = _options(options, fields)
    llvm_ir = compile_llvm(ptx, options, name=name, verify_each=fields.get("verify_each"))
    return _llvm(lambda: emit_assembly(llvm_ir, options))


@gc_paused
def compile_object(ptx: str | os.PathLike[str], options: CompileOptions | None = None, *,
                   name: str | None = None, **fields: object) -> bytes:
    options = _options(options, fields)
    llvm_ir = compile_llvm(ptx, options, name=name, verify_each=fields.get("verify_each"))
    return _llvm(lambda: emit_object(llvm_ir, options))


@gc_paused
def compile(ptx: str | os.PathLike[str], options: CompileOptions | None = None, *,  # noqa: A001
            name: str | None = None, **fields: object) -> CodeObject:
    """Compile PTX (text, or a path to a file) into a gfx942/gfx90a/gfx950 code object.

    ``options``: the whole ``CompileOptions`` value (default: the defaults); keyword ``fields``
    replace single fields of it (``arch="gfx90a"``, ``opt=2``, ``kernels=["k"]``,
    ``locations=True``), so ``compile(ptx, arch="gfx942", opt=3)`` and
    ``compile(ptx, CompileOptions(arch="gfx942", opt=3))`` are the same call. ``name``: the source
    name diagnostics show (default: the path, or ``<input>`` for PTX text).

    This is ptx2gcn's public compile entry point, also exported as ``ptx2gcn.compile``; the
    runtime reaches the compiler through it alone. The result's ``data`` is the code object's bytes.
    """
    pipeline = _pipeline_options(options := _options(options, fields), fields)
    clock = _Clock()
    text, filename = _source(ptx, name)
    llvm_ir = _emit_and_dispose(to_ir(text, filename, pipeline, clock), options)
    clock.lap("llvm-ir")
    optimised = _llvm(lambda: optimise(llvm_ir, options))
    clock.lap("llvm-opt")
    obj = _llvm(lambda: emit_object(optimised, options))
    clock.lap("llvm-codegen")
    data = link_hsaco([obj], [filename], options)
    clock.lap("link")
    parsed = read_code_object(data, filename)
    kernels_info = {name: KernelInfo.of(k) for name, k in parsed.kernels.items()}
    return CodeObject(data, options.arch, kernels_info, optimised, clock.timings, options)
