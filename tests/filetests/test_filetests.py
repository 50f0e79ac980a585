"""Runs the file tests (``tests/filetests/**/*.ptx``, ``*.ir``; format: ``README.md`` here).

One pytest item per ``// RUN:`` line (a shell pipeline through the installed ``ptx2gcn`` and
``filecheck``) and one per ``// LAUNCH:`` block and executor: ``reference`` (the PTX interpreter
``ptx2gcn.interp``, always), ``emulator`` (the compiled code object on the gfx942 emulator, always),
``hip`` and ``cuda`` (marked ``gpu``: deselected by default, and skipped, never passed, where the
backend is unavailable). A launch passes when every ``EXPECT`` buffer matches bit for bit; on the
reference executor, elements whose value PTX leaves unspecified (the interpreter says which) are not
compared, and every ``EXPECT`` buffer must have at least one element PTX fixes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.interp import Machine
from ptx2gcn.runtime.backends.protocol import BackendUnavailable
from ptx2gcn.runtime.cache.jit_cache import CacheConfig, JitCache
from ptx2gcn.runtime.cases.case import BufferArg, Case, ScalarArg
from ptx2gcn.runtime.cases.run import run_case
from ptx2gcn.runtime.kernargs import encode_scalar
from tests.filetests.filetest import FileTest, Launch, parse

HERE = Path(__file__).parent
FILES = sorted(p for ext in ("ptx", "ir") for p in HERE.rglob(f"*.{ext}"))
TESTS = [parse(path) for path in FILES]
EXECUTORS = ("reference", "emulator", "hip", "cuda")
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
                marks = [pytest.mark.gpu] if executor in ("hip", "cuda") else []
                if executor == "reference" and test.reference_gap:
                    # must fail with the interpreter's located ``unsupported`` (any other failure, or a
                    # pass once the interpreter models it, fails the item): remove the line then
                    marks.append(pytest.mark.xfail(raises=UnsupportedError, strict=True,
                                                   reason=f"reference interpreter: {test.reference_gap}"))
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


def reference_mismatches(test: FileTest, launch: Launch) -> list[str]:
    """Run ``launch`` on the PTX interpreter; one line per ``EXPECT`` buffer that does not match
    (elements PTX leaves unspecified are not compared; a buffer with none fixed is a mismatch)."""
    machine = Machine(test.path.read_text(encoding="utf-8"), str(test.path))
    params: list[bytes] = []
    buffers: dict[str, int] = {}
    for name, typ, value in launch.args:
        if typ.endswith("[]"):
            assert isinstance(value, np.ndarray)
            buffers[name] = machine.allocate(value.tobytes())
            params.append(buffers[name].to_bytes(8, "little"))
        else:
            assert isinstance(value, int | float)
            params.append(encode_scalar(typ, value))
    machine.launch(launch.kernel, launch.grid, launch.block, params, launch.shared)
    problems: list[str] = []
    for name, want in launch.expect.items():
        data, fixed_bytes = machine.read(buffers[name], want.nbytes)
        unsigned = f"<u{want.dtype.itemsize}"
        got, expected = np.frombuffer(data, dtype=unsigned), want.view(unsigned)
        fixed = np.frombuffer(fixed_bytes, dtype=np.uint8).reshape(len(want), -1).all(axis=1)
        wrong = np.nonzero(fixed & (got != expected))[0]
        if not fixed.any():
            problems.append(f"{name}: PTX fixes none of its elements, so the reference checks nothing")
        elif len(wrong):
            shown = ", ".join(f"[{i}] got {got[i]:#x} expected {expected[i]:#x}" for i in wrong[:5])
            problems.append(f"{name}: {len(wrong)} of {len(want)} elements differ: {shown}")
    return problems


@pytest.mark.parametrize(("test", "launch", "executor"), _launch_params())
def test_launch(test: FileTest, launch: Launch, executor: str) -> None:
    if executor == "reference":
        problems = reference_mismatches(test, launch)
        assert not problems, f"{test.path}:{launch.line}: {launch.kernel} on the reference:\n" + "\n".join(problems)
        return
    case = _case(test, launch)
    try:
        ran = run_case(case, executor, cache=JitCache(CacheConfig(enabled=False)))
    except BackendUnavailable as error:
        pytest.skip(f"{executor}: {error}")
    report = ran.check()
    assert report.ok, f"{test.path}:{launch.line}: {launch.kernel} on {executor}:\n{report.render()}"
