"""The pinned outcome of every corpus launch case on the emulator, and the script that regenerates it.

Invariant: ``case_outcomes.json`` maps every case folder under ``corpora/cases`` (``group/name``) to
``"passes"`` (``ptx2gcn run CASE --check`` exits 0 on the emulator) or to ``{"fails": <the first line
of what the failing run prints>, "why": <the known limitation, in words>}``. Paths in the failure
line are relative to the case folder, so the table does not depend on where the checkout lives. A
failure whose ``why`` is empty has not been reviewed: ``test_corpus_cases.py`` fails until someone
writes it.

Regenerate after a change that makes cases pass (or changes how they fail), then review the diff:
``.venv/bin/python tests/cases/case_outcomes.py --write`` (about 15 minutes on one core, a few of
them in the spin-lock case that runs into the emulator's step budget); existing ``why`` texts are
kept. ``--check`` (the default) compares without writing.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "corpora" / "cases"
TABLE = Path(__file__).resolve().parent / "case_outcomes.json"
PASSES = "passes"
Outcome = str | dict[str, str]


def case_files() -> list[Path]:
    return sorted(CASES.glob("*/*/case.toml"))


def case_name(case_file: Path) -> str:
    return case_file.parent.relative_to(CASES).as_posix()


def run_case(case_file: Path, *extra: str) -> tuple[int, str]:
    """(exit status, what it printed: stderr first) of ``ptx2gcn run CASE --check [EXTRA...]``; the
    caller sets ``PTX2GCN_BACKEND=emulator`` and a private ``PTX2GCN_CACHE_DIR``."""
    from ptx2gcn.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["run", str(case_file), "--check", *extra])
    return status, err.getvalue() + out.getvalue()


_PC = re.compile(r"pc 0x[0-9a-f]+ \(.*?\)(?=;|$)")
"""Where a hung wave stands (``pc 0x100003e38 (s_waitcnt lgkmcnt(0))``): code-generation detail that
any compiler change moves, not part of the failure."""


def failure_line(case_file: Path, printed: str) -> str:
    """The first non-empty line of a failing run's output, with the case folder's path removed and
    hung waves' program counters (``_PC``) blanked."""
    first = next((line for line in printed.splitlines() if line.strip()), "(no output)")
    return _PC.sub("pc (…)", first.replace(str(case_file.parent) + os.sep, ""))


def outcome(case_file: Path) -> str:
    """``"passes"`` or the failure line (see ``failure_line``)."""
    status, printed = run_case(case_file)
    return PASSES if status == 0 else failure_line(case_file, printed)


def load_table() -> dict[str, Outcome]:
    table: dict[str, Outcome] = json.loads(TABLE.read_text(encoding="utf-8"))
    return table


def expected_line(entry: Outcome) -> str:
    return entry if isinstance(entry, str) else entry["fails"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help=f"rewrite {TABLE.name} (default: only compare)")
    args = parser.parse_args(argv)
    old = load_table() if TABLE.exists() else {}
    new: dict[str, Outcome] = {}
    changed = []
    with tempfile.TemporaryDirectory() as cache:
        os.environ.update(PTX2GCN_BACKEND="emulator", PTX2GCN_CACHE_DIR=cache)
        for index, case_file in enumerate(case_files()):
            name = case_name(case_file)
            print(f"[{index + 1}] {name}", file=sys.stderr, flush=True)
            got = outcome(case_file)
            previous = old.get(name)
            why = previous.get("why", "") if isinstance(previous, dict) else ""
            new[name] = got if got == PASSES else {"fails": got, "why": why}
            if previous is None or expected_line(previous) != got:
                changed.append(f"{name}\n    expected: {previous and expected_line(previous)}\n    got:      {got}")
    changed += [f"{name}: no longer a case" for name in sorted(set(old) - set(new))]
    print(f"{sum(o == PASSES for o in new.values())} of {len(new)} cases pass; {len(changed)} outcomes differ "
          f"from {TABLE.name}", *changed, sep="\n")
    if args.write:
        TABLE.write_text(json.dumps(new, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {TABLE.relative_to(ROOT)}; give every new failure a 'why'")
        return 0
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
