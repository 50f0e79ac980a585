"""``compile()``: PTX text or file → gfx942 HSA code object v5 with its parsed metadata.

Invariant: ``compile`` either returns a ``CodeObject`` whose ``data`` is a complete, loadable code
object (linked by ``ptx2gcn.link``, its metadata read back by ``ptx2gcn.codeobject``) or raises
a ``Ptx2GcnError`` located at the PTX line at fault (syntax, check, unsupported feature, or an
internal error while lowering an op). LLVM is handed only IR it has verified, so it never aborts
the process. Stages: parse → IR → passes → LLVM IR → LLVM opt → object → link. Python's cyclic
garbage collector is paused while a compilation runs (``ptx2gcn.compile_gc``: the IR's reference
cycles are collected once, afterwards, instead of the whole live graph being walked repeatedly).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from ptx2gcn.codeobject import Kernel, read_code_object
from ptx2gcn.compile_gc import gc_paused
from ptx2gcn.diagnostics import Diagnostic, Ptx2GcnError, Severity
from ptx2gcn.emit.lower_mma_mfma import MMA_MODES
from ptx2gcn.emit.module import emit_llvm
from ptx2gcn.emit.target import SUPPORTED_ARCHS, TargetOptions, emit_assembly, emit_object, optimise
from ptx2gcn.frontend import parse_ptx
from ptx2gcn.frontend.check import check_module
from ptx2gcn.ir.builder import build_module
from ptx2gcn.ir.core import Module, dispose
from ptx2gcn.ir.load import read_text
from ptx2gcn.ir.verify import verify
from ptx2gcn.link import link_hsaco
from ptx2gcn.options import Options
from ptx2gcn.pipeline import run_passes

T = TypeVar("T")
STAGES = ("parse", "ir", "passes", "llvm-ir", "llvm-opt", "llvm-codegen", "link")


class ArchError(Ptx2GcnError):
    """An ``--arch`` that is not one of ``SUPPORTED_ARCHS``."""


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
    arch: str
    kernels: dict[str, KernelInfo]
    llvm_ir: str = field(repr=False, default="")
    """The optimised LLVM IR the object was generated from."""
    timings: dict[str, float] = field(default_factory=lambda: {})
    """CPU seconds (this process) spent in each of ``STAGES``; CPU, not wall time, so that other
    work on the machine does not distort the split."""

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


def check_arch(arch: str) -> None:
    if arch not in SUPPORTED_ARCHS:
        raise ArchError(Diagnostic(Severity.ERROR, None,
                                   f"unsupported --arch {arch!r}; supported: {', '.join(SUPPORTED_ARCHS)}"))


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


@gc_paused
def to_ir(text: str, filename: str, clock: _Clock | None = None) -> Module:
    """Parse, check, build and optimise the IR (the default pass pipeline)."""
    clock = clock or _Clock()
    tree = parse_ptx(text, filename)
    problems = [d for d in check_module(tree) if d.severity is Severity.ERROR]
    if problems:
        raise Ptx2GcnError(problems)
    clock.lap("parse")
    module = build_module(tree)
    verify(module)
    clock.lap("ir")
    run_passes(module, Options())
    clock.lap("passes")
    return module


def _emit_and_dispose(module: Module, arch: str, kernels: Iterable[str] | None, locations: bool,
                      mma: str = "auto") -> str:
    """``emit_llvm`` of a module that nothing else holds, which is then disposed of
    (``ptx2gcn.ir.core.dispose``: reference counting frees the IR, not the next cyclic collection)."""
    try:
        return emit_llvm(module, arch, kernels, locations, mma)
    finally:
        dispose(module)


def check_mma(mma: str) -> None:
    if mma not in MMA_MODES:
        raise ValueError(f"--mma must be one of {', '.join(MMA_MODES)}, got {mma!r}")


def check_opt(opt: int) -> None:
    if opt not in (0, 1, 2, 3):
        raise ValueError(f"optimisation level must be 0..3, got {opt}")


@gc_paused
def compile_llvm(ptx: str | os.PathLike[str], arch: str = "gfx942", opt: int = 3,
                 kernels: Iterable[str] | None = None, optimised: bool = True,
                 locations: bool = False, *, name: str | None = None, mma: str = "auto") -> str:
    """The LLVM IR for ``ptx`` (after LLVM's optimisation pipeline when ``optimised``)."""
    check_arch(arch)
    check_opt(opt)
    check_mma(mma)
    text, filename = _source(ptx, name)
    llvm_ir = _emit_and_dispose(to_ir(text, filename), arch, kernels, locations, mma)
    return _llvm(lambda: optimise(llvm_ir, TargetOptions(arch, opt))) if optimised else llvm_ir


@gc_paused
def compile_assembly(ptx: str | os.PathLike[str], arch: str = "gfx942", opt: int = 3,
                     kernels: Iterable[str] | None = None, locations: bool = False, *,
                     name: str | None = None, mma: str = "auto") -> str:
    llvm_ir = compile_llvm(ptx, arch, opt, kernels, locations=locations, name=name, mma=mma)
    return _llvm(lambda: emit_assembly(llvm_ir, TargetOptions(arch, opt)))


@gc_paused
def compile_object(ptx: str | os.PathLike[str], arch: str = "gfx942", opt: int = 3,
                   kernels: Iterable[str] | None = None, locations: bool = False, *,
                   name: str | None = None, mma: str = "auto") -> bytes:
    llvm_ir = compile_llvm(ptx, arch, opt, kernels, locations=locations, name=name, mma=mma)
    return _llvm(lambda: emit_object(llvm_ir, TargetOptions(arch, opt)))


@gc_paused
def compile(ptx: str | os.PathLike[str], arch: str = "gfx942", opt: int = 3,  # noqa: A001
            kernels: Iterable[str] | None = None, locations: bool = False, *,
            name: str | None = None, mma: str = "auto") -> CodeObject:
    """Compile PTX (text, or a path to a file) into a gfx942/gfx90a/gfx950 code object.

    ``kernels``: compile only these kernels (their callees stay). ``locations``: carry each
    instruction's PTX line into the LLVM IR as ``!dbg`` (no DWARF). ``name``: the source name
    diagnostics show (default: the path, or ``<input>`` for PTX text). ``mma``: tensor-core lowering,
    ``auto`` (MFMA fast path where the target has matrix cores and the whole wave reaches the mma,
    else the exact VALU path), ``exact`` or ``mfma`` (``ptx2gcn.emit.lower_mma_mfma``).
    Also exported as ``ptx2gcn.compile``.
    """
    check_arch(arch)
    check_opt(opt)
    check_mma(mma)
    clock = _Clock()
    text, filename = _source(ptx, name)
    llvm_ir = _emit_and_dispose(to_ir(text, filename, clock), arch, kernels, locations, mma)
    clock.lap("llvm-ir")
    options = TargetOptions(arch, opt)
    optimised = _llvm(lambda: optimise(llvm_ir, options))
    clock.lap("llvm-opt")
    obj = _llvm(lambda: emit_object(optimised, options))
    clock.lap("llvm-codegen")
    data = link_hsaco([obj], [filename])
    clock.lap("link")
    parsed = read_code_object(data, filename)
    kernels_info = {name: KernelInfo.of(k) for name, k in parsed.kernels.items()}
    return CodeObject(data, arch, kernels_info, optimised, clock.timings)
