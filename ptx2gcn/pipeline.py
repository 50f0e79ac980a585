"""The IR pipeline: a flat list of passes, with the verifier and dumps between them (C4, C10).

Invariant: ``run_passes`` runs the named passes in order on one module and the verifier checks
the result in the phase the last pass ensures, so no pipeline hands on IR that breaks an invariant;
with ``Options.verify_each`` it checks the module after every pass instead, so a broken invariant
is reported by the pass that broke it. Unknown pass names are a usage error raised before anything
runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from ptx2gcn.diagnostics import Diagnostic, Ptx2GcnError, Severity
from ptx2gcn.ir.core import Module
from ptx2gcn.ir.verify import verify
from ptx2gcn.options import CompileOptions
from ptx2gcn.passes import PASSES

WARP_MAPPINGS: dict[str, tuple[str, ...]] = {
    "P": ("wave64-barrier-check", "wave64-mma-uniformity", "mma-mfma-layout", "ldmatrix-mfma-layout",
          "wave64-lanes", "wave64-shuffle", "wave64-vote", "wave64-match", "wave64-warp-barrier", "wave64-cta-barrier",
          "wave64-named-barrier", "wave64-fences"),
}
"""Warp mapping → the passes that rewrite PTX's warp and CTA collectives for it (Mode P: two CUDA
warps per wave64, docs/mode-p.md; the only mapping that exists). A mapping is a choice of passes: a
one-warp-per-wave mapping would be a sibling entry whose passes produce the same target ops, and an
option choosing it is added with it (no option selects a mapping that does not exist)."""

# The default pipeline, in order: cleanups, then the warp mapping.
PIPELINE: tuple[str, ...] = (
    "infer-address-spaces",
    "constant-fold",
    "mma-accumulators",
    "cse",
    "dce",
    *WARP_MAPPINGS["P"],
)


class PassError(Ptx2GcnError):
    """A pass broke an IR invariant (a bug in that pass), reported with the pass name."""


def check_pass_names(names: Sequence[str]) -> None:
    unknown = [n for n in names if n not in PASSES]
    if unknown:
        known = ", ".join(sorted(PASSES))
        raise ValueError(f"unknown pass {', '.join(unknown)} (known: {known})")


def run_passes(module: Module, options: CompileOptions,
               emit: Callable[[str], None] | None = None) -> Module:
    """Run ``options.passes`` (default ``PIPELINE``) on ``module`` in place and return it.

    ``emit`` receives IR text printed for ``options.print_after``.
    """
    names = PIPELINE if options.passes is None else options.passes
    check_pass_names(names)
    for index, name in enumerate(names):
        pass_ = PASSES[name]()
        pass_.run(module)
        if name in options.print_after or "all" in options.print_after:
            text = f"// ---- IR after {name} ----\n" + _print(module, options.print_locs)
            if emit is not None:
                emit(text)
        if options.dump_dir is not None:
            os.makedirs(options.dump_dir, exist_ok=True)
            path = os.path.join(options.dump_dir, f"{index + 1:02d}-{name}.ir")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(_print(module, True))
        # After the dumps, so that IR a pass broke can be read in them.
        if options.verify_each or index == len(names) - 1:
            _verify_after(module, pass_.ensures, name if options.verify_each else None)
    return module


def _verify_after(module: Module, phase: str, culprit: str | None) -> None:
    """Verify ``module`` in ``phase``; a failure names the pass that broke it when ``culprit`` is
    known (``verify_each``), else says how to find it."""
    try:
        verify(module, phase)
    except Ptx2GcnError as error:
        why = (f"the IR became invalid after pass '{culprit}'" if culprit is not None else
               "the IR became invalid during the pass pipeline (--verify-each names the pass)")
        raise PassError([*error.diagnostics, Diagnostic(Severity.NOTE, None, why)]) from None


def _print(module: Module, with_locs: bool) -> str:
    # Imported here: a compile prints IR only when asked to, so it does not load the printer.
    from ptx2gcn.ir.printer import print_module

    return print_module(module, with_locs)
