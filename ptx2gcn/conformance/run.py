"""Running conformance group kernels on the emulator and judging every lane with the reference model.

Invariant: expected values come only from the reference model; the device's bits are compared with
``Result.matches`` (which knows undefined lanes, open NaN payloads and ``.approx`` intervals), so a
form is reported as a mismatch exactly when some lane falls outside what PTX allows. Warp-wide
forms are judged 32 lanes (one converged warp) at a time.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ptx2gcn.conformance.forms import WARP, Form
from ptx2gcn.conformance.kernel import GroupKernel, Instance, group_kernel, instances, storage_bytes
from ptx2gcn.conformance.table import FormTable, build_code
from ptx2gcn.fuzz.known import FAILING_INPUTS
from ptx2gcn.reference import Result, run
from ptx2gcn.reference.ptxtypes import PtxType
from ptx2gcn.reference.sampling import operands_for


@dataclass
class FormOutcome:
    spelling: str
    lanes: int
    failures: list[str]

    @property
    def ok(self) -> bool:
        return not self.failures


def instance_seed(inst: Instance, seed: int) -> int:
    """A per-instance seed that does not depend on the instance's place in its group kernel, so a
    form sees the same operands however the table is chunked."""
    return (seed * 1_000_003 + zlib.crc32(inst.label.encode())) & 0xFFFFFFFF


def operand_columns(inst: Instance, lanes: int, seed: int) -> list[npt.NDArray[np.generic]]:
    """Edge-biased operands for ``inst`` (immediates broadcast), from ``reference.sampling``; the
    first lanes hold the form's ``fuzz.known.FAILING_INPUTS`` (inputs that once exposed a bug)."""
    if inst.form.is_warp:  # the sampler gives one 32-lane warp per call
        warps = [operands_for(inst.form.spelling, WARP, seed + 104729 * w) for w in range(-(-lanes // WARP))]
        columns = [np.concatenate(parts)[:lanes] for parts in zip(*warps)] if warps and warps[0] else []
    else:
        columns = operands_for(inst.form.spelling, lanes, seed)
    for k, value in inst.immediates:
        columns[k] = np.full(lanes, value, dtype=inst.form.sources[k].dtype)
    for lane, operands in enumerate(FAILING_INPUTS.get(inst.form.spelling, ())[:lanes]):
        for k, bits in enumerate(operands):
            columns[k][lane] = bits
    return columns


def _column_bytes(t: PtxType, column: npt.NDArray[np.generic]) -> bytes:
    if t.kind == "pred":
        return np.asarray(column, dtype=np.uint8).tobytes()
    return np.ascontiguousarray(column).astype(t.dtype, copy=False).tobytes()


Columns = list[list[npt.NDArray[np.generic]]]
"""Per instance of a group kernel, one operand column per source (immediates included)."""


def group_inputs(
    kernel: GroupKernel, lanes: int, seed: int, columns: dict[int, list[npt.NDArray[np.generic]]] | None = None
) -> tuple[bytes, Columns]:
    """The ``in`` buffer of a group kernel (``columns[j]`` where given, else edge-biased operands
    seeded per instance) and the operand columns it holds."""
    inputs: list[bytes] = []
    all_columns: Columns = []
    for j, inst in enumerate(kernel.instances):
        cols = (
            columns[j]
            if columns and j in columns
            else operand_columns(inst, lanes, instance_seed(inst, seed))
        )
        all_columns.append(cols)
        fixed = dict(inst.immediates)
        inputs += [
            _column_bytes(t, c) for k, (t, c) in enumerate(zip(inst.form.sources, cols)) if k not in fixed
        ]
    return b"".join(inputs), all_columns


def columns_from_bytes(kernel: GroupKernel, data: bytes, lanes: int) -> Columns:
    """The inverse of ``group_inputs``: operand columns read back from an ``in`` buffer."""
    all_columns: Columns = []
    offset = 0
    for inst in kernel.instances:
        fixed = dict(inst.immediates)
        cols: list[npt.NDArray[np.generic]] = []
        for k, t in enumerate(inst.form.sources):
            if k in fixed:
                cols.append(np.full(lanes, fixed[k], dtype=t.dtype))
                continue
            size = storage_bytes(t) * lanes
            raw = np.frombuffer(data[offset : offset + size], dtype=np.uint8 if t.kind == "pred" else t.dtype)
            cols.append(raw.astype(np.bool_) if t.kind == "pred" else raw.copy())
            offset += size
        all_columns.append(cols)
    return all_columns


def output_size(kernel: GroupKernel, lanes: int) -> int:
    return sum(storage_bytes(t) for inst in kernel.instances for t in inst.form.destinations) * lanes


def judge_group(kernel: GroupKernel, columns: Columns, raw: bytes, lanes: int) -> list[FormOutcome]:
    """Compare a group kernel's ``out`` buffer (from any device) with the model, instance by instance."""
    outcomes: list[FormOutcome] = []
    offset = 0
    for inst, cols in zip(kernel.instances, columns):
        actual = []
        for t in inst.form.destinations:
            size = storage_bytes(t) * lanes
            chunk = np.frombuffer(
                raw[offset : offset + size], dtype=np.uint8 if t.kind == "pred" else t.dtype
            )
            actual.append(chunk.astype(np.bool_) if t.kind == "pred" else chunk)
            offset += size
        outcomes.append(FormOutcome(inst.label, lanes, compare(inst, cols, actual)))
    return outcomes


def run_group(
    code: bytes,
    kernel: GroupKernel,
    lanes: int,
    seed: int,
    columns: dict[int, list[npt.NDArray[np.generic]]] | None = None,
) -> list[FormOutcome]:
    """Run one group kernel on the emulator with ``lanes`` threads; compare every instance."""
    from ptx2gcn.fuzz.device import run_kernel

    data, all_columns = group_inputs(kernel, lanes, seed, columns)
    raw = run_kernel(code, "k", data, output_size(kernel, lanes), lanes)
    return judge_group(kernel, all_columns, raw, lanes)


def compare(
    inst: Instance,
    columns: Sequence[npt.NDArray[np.generic]],
    actual: Sequence[npt.NDArray[np.generic]],
    limit: int = 5,
) -> list[str]:
    """Readable failing lanes of one instance (empty when every lane is within the model); warp
    instructions are judged 32 lanes (one converged warp) at a time."""
    if inst.form.is_warp:
        oks, results = [], []
        for start in range(0, len(actual[0]), WARP):
            part = slice(start, start + WARP)
            results.append(run(inst.form.spelling, *(c[part] for c in columns)))
            oks.append(results[-1].matches(*(a[part] for a in actual)))
        ok = np.concatenate(oks)

        def explain(lane: int) -> str:
            return results[lane // WARP].explain(lane % WARP)
    else:
        result: Result = run(inst.form.spelling, *columns)
        ok = result.matches(*actual)

        def explain(lane: int) -> str:
            return result.explain(lane)

    failures: list[str] = []
    for lane in np.nonzero(~np.asarray(ok))[0][:limit]:
        ins = ", ".join(_hex(c[lane]) for c in columns)
        got = ", ".join(_hex(a[lane]) for a in actual)
        want = explain(int(lane)).replace("\n", "; ")
        failures.append(f"{inst.label} lane {lane}: inputs ({ins}) -> got {got}; expected {want}")
    missing = int((~np.asarray(ok)).sum()) - len(failures)
    if missing > 0:
        failures.append(f"... {missing} more lanes differ")
    return failures


def _hex(value: object) -> str:
    array = np.asarray(value)
    if array.dtype.kind == "b":
        return str(bool(array))
    return f"0x{int(array):x}"


UNCOVERED_SHOWN = 20
"""At most this many uncovered forms are named in the summary (a ``-k`` run leaves out most)."""
MATCH, KNOWN, MISMATCH = "match", "known mismatch", "new mismatch"
"""Verdicts of a covered form: every lane within the model; a mismatch already in
``fuzz.known.KNOWN_FAILURES`` (a strict xfail); a mismatch nobody has recorded yet."""


def verdict(spelling: str, failures: Sequence[str], known: Mapping[str, str]) -> str:
    if not failures:
        return MATCH
    return KNOWN if spelling in known else MISMATCH


def summary_lines(verdicts: Mapping[str, str], table: FormTable) -> list[str]:
    """``conformance: X forms covered / Y supported / Z rejected by the compiler (...)``: a form is
    *covered* when it ran through PTX -> code object -> emulator and every lane was compared with
    the model, whatever the verdict; the forms that do not match are listed by name."""
    counts = {kind: sorted(s for s, v in verdicts.items() if v == kind) for kind in (MATCH, KNOWN, MISMATCH)}
    lines = [
        f"conformance: {len(verdicts)} forms covered / {len(table.supported)} supported / "
        f"{len(table.rejected)} rejected by the compiler ({len(counts[MATCH])} match the model, "
        f"{len(counts[KNOWN])} known mismatches, {len(counts[MISMATCH])} new mismatches)"
    ]
    for kind in (KNOWN, MISMATCH):
        if counts[kind]:
            lines.append(f"conformance: {kind}es: {', '.join(counts[kind])}")
    uncovered = sorted({f.spelling for f in table.supported} - set(verdicts))
    if uncovered:
        shown = ", ".join(uncovered[:UNCOVERED_SHOWN]) + (", ..." if len(uncovered) > UNCOVERED_SHOWN else "")
        lines.append(f"conformance: {len(uncovered)} supported forms not covered in this run: {shown}")
    return lines


def run_all(table: FormTable, lanes: int, seed: int, every: int = 1) -> dict[str, list[str]]:
    """Run every covered form (with ``every`` > 1: the forms of every ``every``-th kernel group, a
    deterministic sample); spelling -> failure lines (empty: every lane matched). A group whose
    launch fails (an emulator error) is rerun form by form, so one bad form blames only itself."""
    results: dict[str, list[str]] = {}
    for index, (key, kernel) in enumerate(table.kernels.items()):
        if index % every or any(inst.form.harness_gap for inst in kernel.instances):
            continue
        try:
            outcomes = run_group(table.code[key], kernel, lanes, seed)
        except Exception:  # noqa: BLE001 - isolated below, per form
            outcomes = []
            for form in dict.fromkeys(inst.form for inst in kernel.instances):
                outcomes += _run_alone(form, lanes, seed)
        for outcome in outcomes:
            results.setdefault(outcome.spelling.split(" ")[0], []).extend(outcome.failures)
    return results


def _run_alone(form: Form, lanes: int, seed: int) -> list[FormOutcome]:
    kernel = group_kernel(instances(form))
    try:
        return run_group(build_code(kernel.ptx), kernel, lanes, seed)
    except Exception as error:  # noqa: BLE001 - reported as this form's failure
        return [FormOutcome(form.spelling, lanes, [f"{form.spelling}: {type(error).__name__}: {error}"])]

