"""The slow conformance sweep: narrow (8/16-bit) input spaces exhaustively, 2^16 lanes per launch.

Invariant: a narrow instance's swept columns hold every bit pattern of each swept source (all of
the joint space when it has at most 2^16 points); the other operands are edge-biased samples.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ptx2gcn.conformance.forms import Form
from ptx2gcn.conformance.kernel import Instance, group_kernel, instances
from ptx2gcn.conformance.run import instance_seed, operand_columns, run_group
from ptx2gcn.conformance.table import FormTable, build_code

SWEEP_BITS = 16
"""Source operands at most this wide are swept exhaustively (all 2^16 patterns of one operand)."""


def is_narrow(form: Form) -> bool:
    fixed = dict(instances(form)[0].immediates)
    widths = [t.width for k, t in enumerate(form.sources) if k not in fixed and t.kind != "pred"]
    return bool(widths) and max(widths) <= SWEEP_BITS


def sweep_columns(inst: Instance, seed: int) -> list[list[npt.NDArray[np.generic]]]:
    """Exhaustive operand sets for a narrow instance: every pattern of the whole input space when
    it has at most 2^16 points (e.g. one 16-bit or two 8-bit sources), else every pattern of each
    source in turn with edge-biased values in the others. Each set has 2^16 lanes."""
    form = inst.form
    lanes = 1 << SWEEP_BITS
    fixed = dict(inst.immediates)
    free = [k for k, t in enumerate(form.sources) if k not in fixed and t.kind != "pred"]
    total = sum(form.sources[k].width for k in free)
    base = _tiled(inst, lanes, seed)
    if total <= SWEEP_BITS:
        index = np.arange(lanes, dtype=np.uint64)
        shift = 0
        for k in free:
            width = form.sources[k].width
            base[k] = ((index >> np.uint64(shift)) & np.uint64((1 << width) - 1)).astype(
                form.sources[k].dtype
            )
            shift += width
        return [base]
    sets = []
    for k in free:
        cols = _tiled(inst, lanes, seed + 1000 * (k + 1))
        width = form.sources[k].width
        cols[k] = (np.arange(lanes, dtype=np.uint64) % np.uint64(1 << width)).astype(form.sources[k].dtype)
        sets.append(cols)
    return sets


def _tiled(inst: Instance, lanes: int, seed: int, distinct: int = 4096) -> list[npt.NDArray[np.generic]]:
    """Edge-biased columns of ``lanes`` lanes built from ``distinct`` samples (sampling is the
    slow part; the swept operand supplies the variety)."""
    return [np.tile(c, lanes // distinct) for c in operand_columns(inst, distinct, seed)]


def run_sweep(table: FormTable, key: str, seed: int) -> dict[str, list[str]]:
    """Every narrow form of group ``key`` swept exhaustively, in a kernel of only those forms;
    spelling -> failure lines."""
    narrow = [inst for inst in table.kernels[key].instances if is_narrow(inst.form)]
    if not narrow:
        return {}
    kernel = group_kernel(narrow)
    code = build_code(kernel.ptx)
    per_instance = [sweep_columns(inst, instance_seed(inst, seed)) for inst in narrow]
    results: dict[str, list[str]] = {}
    for r in range(max(len(s) for s in per_instance)):
        columns = {j: s[min(r, len(s) - 1)] for j, s in enumerate(per_instance)}
        for outcome in run_group(code, kernel, 1 << SWEEP_BITS, seed + 7919 * r, columns):
            results.setdefault(outcome.spelling.split(" ")[0], []).extend(outcome.failures)
    return results
