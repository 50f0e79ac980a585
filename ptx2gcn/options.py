"""All knobs of a compilation in one frozen value, ``CompileOptions``, passed down explicitly.

Invariant: no stage reads environment variables or global state for its behaviour; everything a
stage may vary on is a field here, so a ``CompileOptions`` value (with the input) is a complete
reproducer, and ``canonical()`` of the whole value is what the JIT cache key holds
(``ptx2gcn.runtime.cache.key.CacheKey.for_options``). The value is built once at each front door:
the command line (``ptx2gcn compile``, ``ptx2gcn opt``), the Python API (``ptx2gcn.compile(ptx,
options, **fields)``) and the driver API (``ptx2gcn.runtime.driver.jit_options``, from the options
of ``cuModuleLoadDataEx``); it is handed whole to the stages that read it (the pass pipeline, LLVM
IR emission, LLVM optimisation and code generation). ``__post_init__`` rejects an unknown arch or
level, so a value that exists is valid.

Deliberately not fields (docs/ARCHITECTURE.md, "Options"): fast-math or denormal switches. PTX states rounding,
flush-to-zero and approximation on every instruction (``.rn``, ``.ftz``, ``.approx``), and CUDA's
``CU_JIT_FTZ``/``CU_JIT_PREC_DIV``/``CU_JIT_PREC_SQRT``/``CU_JIT_FMA`` apply only to LTO-IR (cuda.h
13.0: "Only valid with LTO-IR compiled with toolkits prior to CUDA 12.0"), never to PTX: a PTX JIT
that honoured them would change what the PTX says.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace

from ptx2gcn.diagnostics import Diagnostic, Ptx2GcnError, Severity

SUPPORTED_ARCHS: tuple[str, ...] = ("gfx942", "gfx90a", "gfx950")
"""AMDGPU targets ptx2gcn compiles for (gfx942 first); defined here so the CLI needs no LLVM to list them."""

OPT_LEVELS: tuple[int, ...] = (0, 1, 2, 3)

MMA_MODES: tuple[str, ...] = ("auto", "exact", "mfma")
"""``--mma``: how tensor-core ``mma`` is lowered (``ptx2gcn.emit.lower_mma_mfma``): ``auto`` the MFMA
fast path where the target has matrix cores and the whole wave reaches the mma, else the exact VALU
path; ``exact`` the VALU path only; ``mfma`` like auto, refusing a target without matrix cores."""


class ArchError(Ptx2GcnError):
    """An ``--arch`` that is not one of ``SUPPORTED_ARCHS``."""


@dataclass(frozen=True)
class CompileOptions:
    arch: str = "gfx942"
    """The AMDGPU processor to compile for (one of ``SUPPORTED_ARCHS``)."""
    opt: int = 3
    """LLVM optimisation level, 0..3 (ptx2gcn's own IR pipeline is the same at every level)."""
    kernels: tuple[str, ...] | None = None
    """Compile only these kernels (their callees stay); None compiles every kernel."""
    locations: bool = False
    """Carry each instruction's PTX line into the LLVM IR as ``!dbg`` (no DWARF; the code object's
    bytes are the same)."""
    mma: str = "auto"
    """Tensor-core ``mma`` lowering, one of ``MMA_MODES`` (``--mma``)."""
    max_registers: int | None = None
    """Per-thread register ceiling of every kernel (CUDA's ``CU_JIT_MAX_REGISTERS``, ptxas's
    ``-maxrregcount``): a kernel's 32-bit VGPRs (``ptx2gcn.emit.kernel_abi``); None: no ceiling."""
    passes: tuple[str, ...] | None = None
    """IR passes to run, in order; None means the default pipeline (``ptx2gcn.pipeline.PIPELINE``)."""
    verify_each: bool = False
    """Run the IR verifier after every pass (tests and CI always do)."""
    print_after: frozenset[str] = field(default_factory=frozenset)
    """Pass names after which to print the IR (``all`` prints after every pass)."""
    print_locs: bool = False
    """Print ``loc(line:col)`` on each op in IR dumps."""
    dump_dir: str | None = None
    """Directory where every stage's artifact is written, or None."""

    def __post_init__(self) -> None:
        if self.arch not in SUPPORTED_ARCHS:
            raise ArchError(Diagnostic(Severity.ERROR, None,
                                       f"unsupported --arch {self.arch!r}; supported: {', '.join(SUPPORTED_ARCHS)}"))
        if self.opt not in OPT_LEVELS:
            raise ValueError(f"optimisation level must be 0..3, got {self.opt}")
        if self.mma not in MMA_MODES:
            raise ValueError(f"--mma must be one of {', '.join(MMA_MODES)}, got {self.mma!r}")
        if self.max_registers is not None and (not isinstance(self.max_registers, int) or self.max_registers <= 0):
            raise ValueError(f"max_registers must be a positive integer or None, got {self.max_registers!r}")
        if self.kernels is not None and not isinstance(self.kernels, tuple):
            object.__setattr__(self, "kernels", tuple(self.kernels))
        if self.passes is not None and not isinstance(self.passes, tuple):
            object.__setattr__(self, "passes", tuple(self.passes))
        if not isinstance(self.print_after, frozenset):
            object.__setattr__(self, "print_after", frozenset(self.print_after))

    @staticmethod
    def of(options: CompileOptions | None = None, **fields: object) -> CompileOptions:
        """``options`` (default: the defaults) with ``fields`` replaced: the Python API's keywords
        (``ptx2gcn.compile(ptx, arch="gfx90a", opt=2)``) become one value here, once."""
        base = options if options is not None else CompileOptions()
        return replace(base, **fields) if fields else base  # type: ignore[arg-type]

    def canonical(self) -> str:
        """The whole value as one canonical string (compact JSON, sorted keys, sets sorted): equal
        options give equal text, and every field is in it (the JIT cache key holds it)."""
        values = asdict(self)
        values["print_after"] = sorted(self.print_after)
        return json.dumps(values, sort_keys=True, separators=(",", ":"))

    @staticmethod
    def from_env(env: Mapping[str, str] | None = None, **overrides: object) -> CompileOptions:
        """Options from ``PTX2GCN_PRINT_AFTER``/``PTX2GCN_DUMP``/``PTX2GCN_VERIFY_EACH``, then overrides."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        if env.get("PTX2GCN_PRINT_AFTER"):
            values["print_after"] = frozenset(n for n in env["PTX2GCN_PRINT_AFTER"].split(",") if n)
        if env.get("PTX2GCN_DUMP"):
            values["dump_dir"] = env["PTX2GCN_DUMP"]
        if env.get("PTX2GCN_VERIFY_EACH"):
            values["verify_each"] = env["PTX2GCN_VERIFY_EACH"] not in ("", "0")
        values.update(overrides)
        return CompileOptions(**values)  # type: ignore[arg-type]
