"""Runs the file tests (``tests/filetests/**/*.ptx``, ``*.ir``; format: ``README.md`` here).

One pytest item per ``// RUN:`` line (a shell pipeline through the installed ``ptx2gcn`` and
``filecheck``) and one per ``// LAUNCH:`` block and executor: ``emulator`` (always), ``hip`` and
``cuda`` (marked ``gpu``: deselected by default, and skipped, never passed, where the backend is
unavailable). A launch passes when every ``EXPECT`` buffer matches bit for bit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ptx2gcn.runtime.backends.protocol import BackendUnavailable
from ptx2gcn.runtime.cache.jit_cache import CacheConfig, JitCache
from ptx2gcn.runtime.cases.case import BufferArg, Case, ScalarArg
from ptx2gcn.runtime.cases.run import run_case
from ptx2gcn.runtime.kernargs import encode_scalar
from tests.filetests.filetest import FileTest, Launch, parse

HERE = Path(__file__).parent
FILES = sorted(p for ext in ("ptx", "ir") for p in HERE.rglob(f"*.{ext}"))
TESTS = [parse(path) for path in FILES]
EXECUTORS = ("emulator", "hip", "cuda")
BIN = Path(sys.executable).parent
"""Where the virtual environment installed ``ptx2gcn`` and ``filecheck``."""


def _name(test: FileTest) -> str:
    return test.path.relative_to(HERE).as_posix()


def _run_params() -> list[object]:
    return [pytest.param(test, line, command, id=f"{_name(test)}:{line}")
            for test in TESTS for line, command in test.runs]


def _launch_params() -> list[object]:
    params = []
    for test in TESTS:
        for launch in test.launches:
            for executor in EXECUTORS:
                marks = [pytest.mark.gpu] if executor != "emulator" else []
                params.append(pytest.param(test, launch, executor, marks=marks,
                                           id=f"{_name(test)}:{launch.line}:{executor}"))
    return params


def test_every_file_has_a_directive() -> None:
    assert FILES, "no file tests found"
    for test in TESTS:
        assert test.runs or test.launches, f"{test.path}: neither RUN lines nor LAUNCH blocks"
        assert not (test.launches and test.path.suffix != ".ptx"), f"{test.path}: LAUNCH needs a .ptx file"


@pytest.mark.parametrize(("test", "line", "command"), _run_params())
def test_run_line(test: FileTest, line: int, command: str) -> None:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "PTX2GCN_CACHE": "0"}
    script = f"set -o pipefail\nnot() {{ ! \"$@\"; }}\n{command}\n"
    done = subprocess.run(["bash", "-c", script], cwd=test.path.parent, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, f"{test.path}:{line}: RUN: {command}\n{done.stdout}\n{done.stderr}"


def _case(test: FileTest, launch: Launch) -> Case:
    args: list[ScalarArg | BufferArg] = []
    for index, (name, typ, value) in enumerate(launch.args):
        if typ.endswith("[]"):
            args.append(BufferArg(index, name, typ[:-2], value))  # type: ignore[arg-type]
        else:
            args.append(ScalarArg(index, name, typ, value, encode_scalar(typ, value)))
    return Case(test.path, "ptx", test.path, launch.kernel, launch.grid, launch.block, launch.shared,
                tuple(args), launch.expect, {})


@pytest.mark.parametrize(("test", "launch", "executor"), _launch_params())
def test_launch(test: FileTest, launch: Launch, executor: str) -> None:
    case = _case(test, launch)
    try:
        ran = run_case(case, executor, cache=JitCache(CacheConfig(enabled=False)))
    except BackendUnavailable as error:
        pytest.skip(f"{executor}: {error}")
    report = ran.check()
    assert report.ok, f"{test.path}:{launch.line}: {launch.kernel} on {executor}:\n{report.render()}"
