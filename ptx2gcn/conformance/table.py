"""The compiler's verdict on every conformance form: supported, rejected or invalid.

Each form is compiled inside a group kernel (chunks of ``CHUNK`` forms of one opcode): a form whose
line the compiler blames with ``unsupported: ...`` is *rejected* (kept with the compiler's sentence,
never hidden); one the frontend calls invalid PTX is *invalid* (a candidate-table or checker
disagreement, reported too); the rest are *supported* and get one code object per chunk.

Invariant: every form passed to ``classify`` ends in exactly one of ``supported``, ``rejected`` and
``invalid``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ptx2gcn.conformance.forms import Form
from ptx2gcn.conformance.kernel import GroupKernel, group_kernel, instances
from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError


@dataclass
class FormTable:
    """The compiler's verdict on every modelled form."""

    supported: list[Form] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)
    """spelling -> the compiler's ``unsupported: ...`` sentence."""
    invalid: dict[str, str] = field(default_factory=dict)
    """spelling -> the frontend's error (the model accepts it; the compiler calls it invalid PTX)."""
    code: dict[str, bytes] = field(default_factory=dict)
    """opcode -> the code object of its group kernel (all supported instances of that opcode)."""
    kernels: dict[str, GroupKernel] = field(default_factory=dict)

    @property
    def uncovered(self) -> dict[str, str]:
        return {f.spelling: gap for f in self.supported if (gap := f.harness_gap) is not None}


def _blamed(error: Ptx2GcnError, kernel: GroupKernel) -> int | None:
    span = error.span
    if span is None:
        return None
    line = span.line
    for index, inst_line in enumerate(kernel.lines):
        if inst_line == line:
            return index
    return None


CHUNK = 48
"""Forms per group kernel: small enough that peeling a rejected form re-lowers little."""


def _lower(text: str) -> None:
    """Parse, check, build IR, run the passes and lower to LLVM IR: every ``unsupported`` verdict
    the compiler gives comes from these stages, at a fraction of a full compile's cost."""
    from ptx2gcn.compiler import compile_llvm

    compile_llvm(text, optimised=False)


def build_code(text: str) -> bytes:
    from ptx2gcn.compiler import compile as compile_ptx

    return compile_ptx(text).data


def classify(forms: Sequence[Form], *, build: bool = True) -> FormTable:
    """Sort ``forms`` into supported / rejected / invalid; with ``build``, also compile one code
    object per chunk of supported forms (``FormTable.code``/``kernels``, keyed ``opcode#chunk``)."""
    table = FormTable()
    by_opcode: dict[str, list[Form]] = {}
    for form in forms:
        by_opcode.setdefault(form.opcode, []).append(form)
    for opcode, group in by_opcode.items():
        for start in range(0, len(group), CHUNK):
            key = f"{opcode}#{start // CHUNK}"
            accepted = _peel(group[start : start + CHUNK], table)
            table.supported.extend(accepted)
            if build and accepted:
                kernel = group_kernel([inst for f in accepted for inst in instances(f)])
                table.kernels[key] = kernel
                table.code[key] = build_code(kernel.ptx)
    return table


def _peel(pending: list[Form], table: FormTable) -> list[Form]:
    """The forms of ``pending`` that lower, recording the others in ``table``."""
    while pending:
        kernel = group_kernel([inst for f in pending for inst in instances(f)])
        try:
            _lower(kernel.ptx)
            return pending
        except Ptx2GcnError as error:
            index = _blamed(error, kernel)
            if index is None:
                if len(pending) == 1:
                    table.invalid[pending[0].spelling] = str(error)
                    return []
                half = len(pending) // 2
                return _peel(pending[:half], table) + _peel(pending[half:], table)
            culprit = kernel.instances[index].form
            target = table.rejected if isinstance(error, UnsupportedError) else table.invalid
            target[culprit.spelling] = str(error)
            pending = [f for f in pending if f is not culprit]
    return []

