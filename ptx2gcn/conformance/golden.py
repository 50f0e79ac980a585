"""CUDA golden outputs of the conformance group kernels, recorded once on an NVIDIA GPU and judged
here without one.

``record`` runs every group kernel of a ``FormTable`` on a device (CUDA through ``ptx2gcn.runtime``,
or any stand-in ``Runner``) with edge-biased operands and stores, per group, a directory
``<root>/<opcode>-<chunk>/`` with ``kernel.ptx``, ``in.npy`` and ``out.npy`` (the raw input and
output buffers, bytes) and ``golden.json`` (lanes, seed, the instances with their immediates,
origin). ``replay`` reads one back and judges the *device's* output with the reference model
(``conformance.run.judge_group``): a failure there is a disagreement between CUDA and the model, so
the goldens check the model itself, lane by lane, wherever PTX fixes the result.

Invariant: a golden directory is self-contained (its instances are rebuilt from the stored
spellings through ``reference.signature``; nothing is regenerated from seeds), and ``replay`` never
compares against the emulator: the emulator meets the same model in the conformance suite.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ptx2gcn.conformance.forms import Form
from ptx2gcn.conformance.kernel import GroupKernel, Instance
from ptx2gcn.conformance.run import columns_from_bytes, group_inputs, judge_group, output_size
from ptx2gcn.conformance.table import FormTable
from ptx2gcn.reference import signature

Runner = Callable[[str, bytes, int, int], bytes]
"""(ptx of ``k(in, out, n)``, in buffer, out size, lanes n) -> out buffer."""
GOLDEN_LANES = 256
GOLDEN_SEED = 4242
BLOCK = 64

CASE_TOML = """\
# A conformance group kernel recorded as a CUDA golden (ptx2gcn.conformance.golden).
ptx = "kernel.ptx"
kernel = "k"
grid = [{grid}]
block = [{block}]

[[args]]
name = "input"
buffer = "u8"
data = "in.npy"

[[args]]
name = "out"
buffer = "u8"
count = {out_size}

[[args]]
scalar = "u32"
value = {lanes}
"""


def backend_runner(backend: str) -> Runner:
    """A runner that launches through ``ptx2gcn.runtime`` (the ``ptx2gcn run`` path) on ``backend``."""
    from ptx2gcn.runtime.cases.case import load_case
    from ptx2gcn.runtime.cases.run import run_case

    def run(ptx: str, data: bytes, out_size: int, lanes: int) -> bytes:
        with tempfile.TemporaryDirectory(prefix="ptx2gcn-golden-") as tmp:
            root = Path(tmp)
            (root / "kernel.ptx").write_text(ptx, encoding="utf-8")
            np.save(root / "in.npy", np.frombuffer(data, dtype=np.uint8), allow_pickle=False)
            grid = -(-lanes // BLOCK)
            text = CASE_TOML.format(grid=grid, block=BLOCK, out_size=max(out_size, 4), lanes=lanes)
            (root / "case.toml").write_text(text, encoding="utf-8")
            result = run_case(load_case(root / "case.toml"), backend)
            return result.outputs["out"].astype(np.uint8).tobytes()[:out_size]

    return run


def record(table: FormTable, runner: Runner, root: Path, origin: str, lanes: int = GOLDEN_LANES,
           seed: int = GOLDEN_SEED) -> list[Path]:
    """Run every group kernel of ``table`` through ``runner`` and store it under ``root``."""
    written: list[Path] = []
    for key, kernel in table.kernels.items():
        data, _ = group_inputs(kernel, lanes, seed)
        out = runner(kernel.ptx, data, output_size(kernel, lanes), lanes)
        directory = root / key.replace("#", "-")
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "kernel.ptx").write_text(kernel.ptx, encoding="utf-8")
        np.save(directory / "in.npy", np.frombuffer(data, dtype=np.uint8), allow_pickle=False)
        np.save(directory / "out.npy", np.frombuffer(out, dtype=np.uint8), allow_pickle=False)
        meta = {
            "lanes": lanes,
            "seed": seed,
            "origin": origin,
            "instances": [[inst.form.spelling, [list(pair) for pair in inst.immediates]] for inst in kernel.instances],
        }
        (directory / "golden.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        written.append(directory)
    return written


def golden_directories(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.glob("*/golden.json")) if root.is_dir() else []


def replay(directory: Path) -> list[str]:
    """The model's verdict on a stored device output: failure lines (empty: every lane agrees)."""
    meta = json.loads((directory / "golden.json").read_text(encoding="utf-8"))
    instances = []
    for spelling, immediates in meta["instances"]:
        sig = signature(spelling)
        form = Form(spelling, sig.sources, sig.destinations)
        instances.append(Instance(form, tuple((int(k), int(v)) for k, v in immediates)))
    kernel = GroupKernel((directory / "kernel.ptx").read_text(encoding="utf-8"), instances, [])
    lanes = int(meta["lanes"])
    data = np.load(directory / "in.npy", allow_pickle=False).tobytes()
    out = np.load(directory / "out.npy", allow_pickle=False).tobytes()
    columns = columns_from_bytes(kernel, data, lanes)
    return [line for outcome in judge_group(kernel, columns, out, lanes) for line in outcome.failures]
