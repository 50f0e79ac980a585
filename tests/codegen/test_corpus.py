"""Every corpus file compiles for gfx942 or is rejected only with a located ``unsupported`` error.

The front end (parse, check, IR build) may reject a file (the ZLUDA pass-test inputs are not all
valid PTX); what code generation adds must be an ``UnsupportedError``, never an internal error or a
crash. The test prints how many files were rejected and why. The default run takes every fifth
file; ``-m slow`` takes all of them and the 100k-line file.
"""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from ptx2gcn.compiler import compile, to_ir
from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
from ptx2gcn.emit.module import emit_llvm
from ptx2gcn.translate.load import read_text

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
FILES = sorted(p for p in CORPORA.rglob("*.ptx") if not {"invalid", "large"} & set(p.parts))


def _reason(error: Ptx2GcnError) -> str:
    message = error.diagnostics[0].message
    if not message.startswith("unsupported"):
        return message
    return message.split(":")[0] + ": " + message.split(":")[1].strip()


def _survey(files: list[Path]) -> tuple[int, collections.Counter[str], collections.Counter[str], list[str]]:
    compiled = 0
    unsupported: collections.Counter[str] = collections.Counter()
    front_end: collections.Counter[str] = collections.Counter()
    broken: list[str] = []
    for path in files:
        try:
            to_ir(read_text(str(path)), str(path))
        except Ptx2GcnError as error:
            (unsupported if isinstance(error, UnsupportedError) else front_end)[_reason(error)] += 1
            continue
        try:
            compile(path)
            compiled += 1
        except UnsupportedError as error:
            unsupported[_reason(error)] += 1
        except Ptx2GcnError as error:
            broken.append(f"{path}: {error}")
    return compiled, unsupported, front_end, broken


def _report(files: list[Path]) -> None:
    compiled, unsupported, front_end, broken = _survey(files)
    print(f"\n{compiled} of {len(files)} corpus files compiled; rejected: "
          f"{sum(unsupported.values())} unsupported, {sum(front_end.values())} by the front end")
    for reason, count in unsupported.most_common():
        print(f"  {count:3}  {reason}")
    for reason, count in front_end.most_common():
        print(f"  {count:3}  front end: {reason}")
    assert not broken, "code generation failed with a non-'unsupported' error:\n" + "\n".join(broken)
    assert compiled > 0


def test_corpus_sample() -> None:
    _report(FILES[::5])


@pytest.mark.slow
def test_whole_corpus() -> None:
    _report(FILES)


@pytest.mark.slow
def test_large_file() -> None:
    (large,) = sorted((CORPORA / "large").glob("*.ptx"))
    co = compile(large)
    assert co.kernels and all(info.vgpr_count > 0 for info in co.kernels.values())


def test_emitted_llvm_ir_of_a_sample_verifies() -> None:
    """LLVM's verifier accepts the unoptimised IR of every sample file that reaches code generation."""
    from ptx2gcn.emit.target import parse_verified
    from ptx2gcn.options import CompileOptions

    for path in FILES[::9]:
        try:
            module = to_ir(read_text(str(path)), str(path))
            text = emit_llvm(module)
        except Ptx2GcnError:
            continue
        parse_verified(text, CompileOptions())
