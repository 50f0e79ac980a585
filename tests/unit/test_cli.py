"""The command line: every subcommand registered, `--help` cheap, backend names in step."""

from __future__ import annotations

import subprocess
import sys

from ptx2gcn.cli import SUBCOMMANDS, build_parser
from ptx2gcn.commands.run import BACKEND_NAMES
from ptx2gcn.runtime.backends.protocol import BACKENDS


def test_every_subcommand_is_present() -> None:
    parser = build_parser()
    choices = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert sorted(choices) == sorted(SUBCOMMANDS)


def test_run_backend_choices_match_the_backend_table() -> None:
    assert sorted(BACKEND_NAMES) == sorted(BACKENDS)


def test_help_does_not_load_the_compiler_or_the_emulator() -> None:
    code = ("import sys, ptx2gcn.cli as c; c.build_parser();"
            "heavy = [m for m in ('llvmlite', 'lark', 'ptx2gcn.runtime.emulator.executor', 'ptx2gcn.compiler')"
            " if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_each_subcommand_help_exits_zero() -> None:
    for name in SUBCOMMANDS:
        result = subprocess.run([sys.executable, "-m", "ptx2gcn", name, "--help"], capture_output=True, text=True)
        assert result.returncode == 0, (name, result.stderr)
        assert result.stdout.startswith(f"usage: ptx2gcn {name}")
