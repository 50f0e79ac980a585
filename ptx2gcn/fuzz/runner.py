"""The ``ptx2gcn fuzz`` loop: generate, run, judge, shrink failures, save them as cases.

Program ``i`` of a run with seed ``S`` is ``generate(program_seed(S, i))``, so any single program is
reproducible alone (``--count 1 --first i``). Devices: the emulator directly, or any runtime backend
(``hip``, ``cuda``) through ``ptx2gcn.runtime.cases.run`` (the same path as ``ptx2gcn run``, with its
JIT cache). Oracles: the reference model, or CUDA's output for the same PTX (``--oracle cuda``);
``--record-golden DIR`` stores CUDA's outputs as cases that replay anywhere.

Invariant: every program ends as exactly one of ok / mismatch / error, and every non-ok one is
shrunk and written as a case (when a save directory is given) before the run's summary line
``fuzz: N programs, M mismatches, E errors``.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import numpy as np

from ptx2gcn.diagnostics import Ptx2GcnError, Span
from ptx2gcn.fuzz.case import write_case
from ptx2gcn.fuzz.eval import expected_buffer
from ptx2gcn.fuzz.gen import GenOptions, generate
from ptx2gcn.fuzz.known import FRONTEND_INVALID, KNOWN_FAILURES, KNOWN_RANDOM_DATA
from ptx2gcn.fuzz.oracle import Device, Verdict, emulator_device, judge
from ptx2gcn.fuzz.pool import all_spellings, model_spelling
from ptx2gcn.fuzz.program import BLOCK, GRID, Program
from ptx2gcn.fuzz.shrink import shrink
from ptx2gcn.fuzz.text import ptx_text
from ptx2gcn.reference import signature


def program_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


@dataclass(frozen=True)
class FuzzConfig:
    count: int = 100
    seed: int = 0
    first: int = 0
    backend: str = "emulator"
    oracle: str = "model"
    jobs: int = 1
    save: Path | None = None
    record_golden: Path | None = None
    include_known: bool = False
    statements: int = 24
    shrink_budget: int = 300

    def gen_options(self) -> GenOptions:
        avoid = unsupported_spellings()
        small_only: frozenset[str] = frozenset()
        if not self.include_known:
            avoid |= frozenset(KNOWN_FAILURES) | frozenset(FRONTEND_INVALID)
            small_only = frozenset(KNOWN_RANDOM_DATA)
        return GenOptions(self.statements, avoid, small_only=small_only)


@functools.cache
def unsupported_spellings() -> frozenset[str]:
    """The generator's spellings the compiler rejects (``unsupported``) or calls invalid today,
    found once per process by lowering them in conformance group kernels (a few seconds)."""
    from ptx2gcn.conformance.forms import Form
    from ptx2gcn.conformance.table import classify

    forms = []
    for spelling in all_spellings():
        sig = signature(model_spelling(spelling))
        forms.append(Form(spelling, sig.sources, sig.destinations))
    table = classify(forms, build=False)
    return frozenset(table.rejected) | frozenset(table.invalid)


@dataclass
class Outcome:
    index: int
    seed: int
    kind: str
    details: list[str] = field(default_factory=list)
    case: str | None = None


@dataclass
class Summary:
    programs: int = 0
    mismatches: int = 0
    errors: int = 0
    seconds: float = 0.0
    failures: list[Outcome] = field(default_factory=list)

    @property
    def per_minute(self) -> float:
        return 60.0 * self.programs / self.seconds if self.seconds > 0 else 0.0

    def line(self) -> str:
        return f"fuzz: {self.programs} programs, {self.mismatches} mismatches, {self.errors} errors"


def backend_device(name: str) -> Device:
    """A device running the program through ``ptx2gcn.runtime.cases.run`` on backend ``name``."""
    from ptx2gcn.runtime.cases.case import load_case
    from ptx2gcn.runtime.cases.run import run_case

    def run(ptx: str, inputs: bytes, out_size: int) -> bytes:
        with tempfile.TemporaryDirectory(prefix="ptx2gcn-fuzz-") as tmp:
            root = Path(tmp)
            (root / "kernel.ptx").write_text(ptx, encoding="utf-8")
            np.save(root / "in.npy", np.frombuffer(inputs, dtype="<u8"), allow_pickle=False)
            (root / "case.toml").write_text(
                f'ptx = "kernel.ptx"\nkernel = "fuzz"\ngrid = [{GRID}]\nblock = [{BLOCK}]\n'
                '[[args]]\nname = "input"\nbuffer = "u64"\ndata = "in.npy"\n'
                f'[[args]]\nname = "out"\nbuffer = "u64"\ncount = {out_size // 8}\n',
                encoding="utf-8",
            )
            result = run_case(load_case(root / "case.toml"), name)
            return result.outputs["out"].astype("<u8").tobytes()

    return run


def device_for(name: str) -> Device:
    return emulator_device if name == "emulator" else backend_device(name)


def check_backend(name: str) -> None:
    """Fail early, with one clear sentence, when backend ``name`` cannot run here."""
    if name == "emulator":
        return
    from ptx2gcn.runtime.backends.protocol import select_backend

    try:
        select_backend(name).device_count()
    except Ptx2GcnError:
        raise
    except Exception as error:  # noqa: BLE001 - an unavailable backend is a user-facing condition
        raise Ptx2GcnError.at(
            Span.unknown("ptx2gcn fuzz"), f"backend {name!r} is not available: {error}"
        ) from None


def run_one(config: FuzzConfig, index: int) -> Outcome:
    seed = program_seed(config.seed, index)
    program = generate(seed, config.gen_options())
    device = device_for(config.backend)
    expected = None
    golden: tuple[bytes, np.ndarray] | None = None
    if config.oracle == "cuda" or config.record_golden is not None:
        cuda = device_for("cuda")
        try:
            out = cuda(ptx_text(program), program.inputs, len(expected_buffer(program)[0]))
        except Exception as error:  # noqa: BLE001 - reported as this program's error
            return Outcome(index, seed, "error", [f"cuda oracle: {error}"])
        golden = (out, np.ones(len(out) // 8, dtype=np.bool_))
        if config.record_golden is not None:
            write_case(
                config.record_golden,
                ptx_text(program),
                program.inputs,
                out,
                golden[1],
                {"seed": seed, "origin": "cuda"},
                origin="CUDA golden output",
            )
        if config.oracle == "cuda":
            expected = golden

    def judged(candidate: Program) -> Verdict:
        return judge(candidate, device, expected if candidate is program else _expected(candidate))

    def _expected(candidate: Program) -> tuple[bytes, np.ndarray] | None:
        if expected is None:
            return None
        return (cuda(ptx_text(candidate), candidate.inputs, len(expected[0])), expected[1])

    verdict = judged(program)
    if verdict.kind == "ok":
        return Outcome(index, seed, "ok")
    small = shrink(program, verdict, judged, config.shrink_budget)
    final = judged(small)
    case = None
    if config.save is not None:
        want, mask = expected_buffer(small) if expected is None else _expected(small)  # type: ignore[misc]
        meta = _case_meta(config, seed, index, final)
        case = str(write_case(config.save, ptx_text(small), small.inputs, want, mask, meta))
    return Outcome(index, seed, final.kind, final.details, case)


def _case_meta(config: FuzzConfig, seed: int, index: int, final: Verdict) -> dict[str, object]:
    """``fuzz.json`` of a saved failure; ``emu_approx`` names a non-default emulator approximation
    policy, to replay with the same choices (``PTX2GCN_EMU_APPROX=... ptx2gcn run case.toml``)."""
    meta: dict[str, object] = {
        "seed": seed,
        "index": index,
        "run_seed": config.seed,
        "kind": final.kind,
        "details": final.details[:8],
        "oracle": config.oracle,
    }
    policy = _emulator_policy()
    if policy:
        meta["emu_approx"] = policy
    return meta


def _emulator_policy() -> dict[str, str]:
    """The non-default emulator approximation policy of this run (``--emu-approx``), if any."""
    from ptx2gcn.runtime.emulator.approx import ENV_MODE, ENV_SEED

    mode = os.environ.get(ENV_MODE, "").strip().lower()
    if mode in ("", "nominal"):
        return {}
    return {ENV_MODE: mode, ENV_SEED: os.environ.get(ENV_SEED, "0")}


def _worker(args: tuple[FuzzConfig, int]) -> Outcome:
    config, index = args
    try:
        return run_one(config, index)
    except Exception as error:  # noqa: BLE001 - a crash of the fuzzer itself is an error outcome
        return Outcome(
            index, program_seed(config.seed, index), "error", [f"fuzzer: {type(error).__name__}: {error}"]
        )


def outcomes(config: FuzzConfig) -> Iterator[Outcome]:
    indices = range(config.first, config.first + config.count)
    if config.jobs <= 1:
        for index in indices:
            yield _worker((config, index))
        return
    with multiprocessing.get_context("fork").Pool(config.jobs) as pool:
        yield from pool.imap_unordered(_worker, [(config, i) for i in indices], chunksize=1)


def progress_bar(done: int, total: int, summary: Summary, width: int = 30) -> str:
    filled = width * done // max(total, 1)
    return (
        f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}  "
        f"{summary.mismatches} mismatches, {summary.errors} errors  {summary.per_minute:.0f}/min"
    )


def fuzz(
    config: FuzzConfig,
    stream: TextIO = sys.stderr,
    show_progress: bool = True,
    clock: Callable[[], float] = time.monotonic,
) -> Summary:
    check_backend(config.backend)
    if config.oracle == "cuda" or config.record_golden is not None:
        check_backend("cuda")
    config.gen_options()  # the compiler's verdicts on the pool, once, before any worker forks
    summary = Summary()
    start = clock()
    # redraw in place on a terminal; elsewhere (logs, CI) one bar line per tenth of the run
    interactive = stream.isatty() if hasattr(stream, "isatty") else False
    step = max(config.count // 10, 1)
    for outcome in outcomes(config):
        summary.programs += 1
        if outcome.kind == "mismatch":
            summary.mismatches += 1
        elif outcome.kind == "error":
            summary.errors += 1
        if outcome.kind != "ok":
            summary.failures.append(outcome)
            first = outcome.details[0].splitlines()[0] if outcome.details else ""
            where = f" -> {outcome.case}" if outcome.case else ""
            stream.write(f"\n{outcome.kind}: program {outcome.index} (seed {outcome.seed}): {first}{where}\n")
        summary.seconds = clock() - start
        if show_progress and (
            interactive or summary.programs % step == 0 or summary.programs == config.count
        ):
            bar = progress_bar(summary.programs, config.count, summary)
            stream.write(bar if interactive else bar.lstrip("\r") + "\n")
            stream.flush()
    summary.seconds = clock() - start
    if show_progress and interactive:
        stream.write("\n")
    return summary
