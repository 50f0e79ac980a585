"""Executable reference model of PTX instruction semantics, written from the PTX ISA manual.

Invariant: nothing here imports the compiler (frontend, IR, passes, emit) or the emulator; it is the
independent oracle that their results are compared with.

Use ``run("add.rn.ftz.f32", a, b)`` or ``evaluate("add", ("rn", "ftz", "f32"), a, b)``: operands are
numpy arrays (float arrays of the matching width or raw bit patterns), the answer is a ``Result``
whose ``outputs`` hold the expected bits, the lanes PTX leaves undefined, NaN results with open
payload, and ``.approx`` intervals; ``Result.matches(*actual)`` compares per lane.
Family modules: integer, bits, floats (with fparith, rounding, floatformat), compare, convert,
approx, atomics, warp; ``opcodes()`` lists what is modelled, ``signature()`` gives a spelling's
operand types and ``sampling.operands_for()`` edge-biased operands for it.

Cost: lanes are evaluated one at a time in exact Python integer arithmetic (no float is trusted
for a result): about 3-8 us per lane for integer/bit ops, 20-40 us for f32/f64 arithmetic and
conversions (measured on the shared development machine), so 10^5 lanes take seconds.
"""

from ptx2gcn.reference.approx import is_within
from ptx2gcn.reference.errors import ReferenceInputError
from ptx2gcn.reference.evaluate import Signature, disagreements, evaluate, opcodes, run, signature
from ptx2gcn.reference.result import Output, Result

__all__ = ["Output", "ReferenceInputError", "Result", "Signature", "disagreements", "evaluate", "is_within",
           "opcodes", "run", "signature"]
