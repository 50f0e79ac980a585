"""Judging one fuzz program: compile it, run it on a device, compare with the oracle.

The oracle is the reference model (``fuzz.eval.expectation``: bits, a compare mask, and the
model's acceptance for bounded matrix results) or,
with ``--oracle cuda``, another device's output buffer (every slot compared). A ``Verdict`` is
``ok``, ``mismatch`` (with readable slot reports) or ``error`` (compile diagnostics, emulator faults,
internal errors: the first line names the kind, so the shrinker can keep "the same" error).

Invariant: ``judge`` never raises for anything the program or the device does; only a bug in this
module's own arguments escapes.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ptx2gcn.fuzz.eval import Expectation, expectation
from ptx2gcn.fuzz.program import BLOCK, GRID, THREADS, Program, all_registers, reg
from ptx2gcn.fuzz.text import ptx_text
from ptx2gcn.reference.mma import Expected as MmaExpected

Device = Callable[[str, bytes, int], bytes]
"""(ptx, input buffer, output size) -> output buffer."""


@dataclass
class Verdict:
    kind: str
    """``ok``, ``mismatch`` or ``error``."""
    details: list[str] = field(default_factory=list)

    @property
    def signature(self) -> str:
        """What must stay the same while shrinking: the kind, and an error's first line
        (without positions, which move as the program shrinks)."""
        if self.kind != "error" or not self.details:
            return self.kind
        first = self.details[0].split("\n")[0]
        return "error: " + first.split(": error: ")[-1].split(" pc 0x")[0]


def emulator_device(ptx: str, inputs: bytes, out_size: int) -> bytes:
    from ptx2gcn.compiler import compile as compile_ptx
    from ptx2gcn.fuzz.device import launch_buffers

    code = compile_ptx(ptx).data
    _, out = launch_buffers(code, "fuzz", [inputs, bytes(out_size)], [], GRID, BLOCK)
    return out


def describe_slots(
    bad: npt.NDArray[np.bool_], got: npt.NDArray[np.uint64], want: npt.NDArray[np.uint64], limit: int = 8
) -> list[str]:
    registers = all_registers()
    lines = []
    for flat in np.nonzero(bad)[0][:limit]:
        row, thread = divmod(int(flat), THREADS)
        cls, index = registers[row]
        lines.append(
            f"thread {thread}: {reg(cls, index)} = 0x{int(got[flat]):x}, expected 0x{int(want[flat]):x}"
        )
    if int(bad.sum()) > limit:
        lines.append(f"... {int(bad.sum()) - limit} more slots differ")
    return lines


def judge(
    program: Program,
    device: Device = emulator_device,
    expected: tuple[bytes, npt.NDArray[np.bool_]] | None = None,
) -> Verdict:
    """Run ``program`` on ``device`` and compare with ``expected`` (default: the model, whose
    bounded matrix results are judged by the model's acceptance instead of bits)."""
    try:
        model = expectation(program) if expected is None else Expectation(expected[0], expected[1], {})
        want_bytes, mask = model.data, model.mask
    except Exception as error:  # noqa: BLE001 - a model refusal is this program's error
        return Verdict("error", [f"reference model: {type(error).__name__}: {error}"])
    try:
        got_bytes = device(ptx_text(program), program.inputs, len(want_bytes))
    except Exception as error:  # noqa: BLE001 - every device failure is a verdict
        text = error.render() if hasattr(error, "render") else f"{type(error).__name__}: {error}"
        if not hasattr(error, "render") and not type(error).__module__.startswith("ptx2gcn.runtime.emulator"):
            text += "\n" + traceback.format_exc(limit=-3)
        return Verdict("error", [text])
    got = np.frombuffer(got_bytes, dtype="<u8")
    want = np.frombuffer(want_bytes, dtype="<u8")
    bad = (got != want) & mask
    checked = model.failed_checks(got)
    if bad.any() or checked.any():
        return Verdict("mismatch", describe_slots(bad, got, want) + _describe_checks(checked, got, model))
    return Verdict("ok")


def _bound_text(e: MmaExpected) -> str:
    return f"{float(e.exact):.9g} +- {float(e.bound):.3g}" if e.exact is not None else str(e)


def _describe_checks(bad: npt.NDArray[np.bool_], got: npt.NDArray[np.uint64], model: Expectation,
                     limit: int = 4) -> list[str]:
    """Slots holding bounded matrix results that the model does not accept."""
    registers = all_registers()
    lines = []
    for flat in np.nonzero(bad)[0][:limit]:
        row, thread = divmod(int(flat), THREADS)
        cls, index = registers[row]
        wants = "; ".join(f"bits {off}+{width}: {_bound_text(e)}" for off, width, _, e in model.checks[int(flat)])
        lines.append(f"thread {thread}: {reg(cls, index)} = 0x{int(got[flat]):x}, outside the model's bound ({wants})")
    return lines
