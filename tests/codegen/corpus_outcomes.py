"""The pinned outcome of compiling every corpus file for gfx942, and the script that regenerates it.

Invariant: ``corpus_outcomes.json`` maps every corpus PTX file (repository-relative path; all of
``corpora/`` except ``corpora/invalid/``, which ``tests/corpus/test_invalid.py`` covers with its own
markers) to ``"compiles"`` or to the first line of the located diagnostic its compilation must give
(``corpora/…ptx:LINE:COL: error: unsupported: <instruction>: <why>``, or a located front-end error
for the ZLUDA test inputs that are not valid PTX). An internal error, an error without a location or
any other exception is never an outcome: ``outcome`` reports it as ``BrokenOutcome``, and this
script refuses to write a table that holds one.

Regenerate after a change that makes files compile (or changes their message), then review the
diff: ``.venv/bin/python tests/codegen/corpus_outcomes.py --write`` (about 5 minutes on one core;
``--check`` compares without writing, the default).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ROOT / "corpora"
TABLE = Path(__file__).resolve().parent / "corpus_outcomes.json"
COMPILES = "compiles"
LOCATED = re.compile(r"^corpora/\S+\.ptx:\d+:\d+: error: ")


class BrokenOutcome(AssertionError):
    """A compilation that ended in neither a code object nor a located user-facing diagnostic."""


def corpus_files() -> list[Path]:
    """Every corpus PTX file the table covers, sorted."""
    return sorted(p for p in CORPORA.rglob("*.ptx") if "invalid" not in p.relative_to(CORPORA).parts)


def key(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def is_large(path: Path) -> bool:
    """The 100k-line file (``corpora/large/``): compiled only by slow tests."""
    return path.relative_to(CORPORA).parts[0] == "large"


def outcome(path: Path) -> str:
    """``"compiles"``, or the first line of the located diagnostic compiling ``path`` gives."""
    from ptx2gcn.compiler import LlvmRejectedError, compile
    from ptx2gcn.diagnostics import Ptx2GcnError
    from ptx2gcn.pipeline import PassError

    name = key(path)
    try:
        compile(path, arch="gfx942", opt=3, name=name)
    except (LlvmRejectedError, PassError) as error:
        raise BrokenOutcome(f"{name}: internal error:\n{error}") from error
    except Ptx2GcnError as error:
        first = error.render().split("\n", 1)[0]
        if not LOCATED.match(first) or "internal error" in first:
            raise BrokenOutcome(f"{name}: not a located user-facing diagnostic:\n{error}") from error
        return first
    return COMPILES


def load_table() -> dict[str, str]:
    table: dict[str, str] = json.loads(TABLE.read_text(encoding="utf-8"))
    return table


def differences(expected: dict[str, str], actual: dict[str, str]) -> list[str]:
    """One readable entry per file whose outcome differs (files missing on either side included)."""
    lines = []
    for name in sorted(set(expected) | set(actual)):
        want, got = expected.get(name, "(not in the table)"), actual.get(name, "(not compiled)")
        if want != got:
            lines.append(f"{name}\n    expected: {want}\n    got:      {got}")
    return lines


def survey(files: Iterable[Path], progress: bool = False) -> tuple[dict[str, str], list[str]]:
    """(outcome of each file, broken compilations)."""
    outcomes: dict[str, str] = {}
    broken: list[str] = []
    for index, path in enumerate(files):
        if progress:
            print(f"[{index + 1}] {key(path)}", file=sys.stderr, flush=True)
        try:
            outcomes[key(path)] = outcome(path)
        except BrokenOutcome as error:
            broken.append(str(error))
    return outcomes, broken


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help=f"rewrite {TABLE.name} (default: only compare)")
    parser.add_argument("--progress", action="store_true", help="print each file as it is compiled")
    args = parser.parse_args(argv)
    outcomes, broken = survey(corpus_files(), args.progress)
    if broken:
        print("compilations that end in neither a code object nor a located diagnostic:", *broken, sep="\n")
        return 1
    changed = differences(load_table() if TABLE.exists() else {}, outcomes)
    print(f"{sum(o == COMPILES for o in outcomes.values())} of {len(outcomes)} corpus files compile; "
          f"{len(changed)} outcomes differ from {TABLE.name}")
    print(*changed, sep="\n")
    if args.write:
        TABLE.write_text(json.dumps(outcomes, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {TABLE.relative_to(ROOT)}")
        return 0
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
