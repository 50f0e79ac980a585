"""Every corpus file compiles, or fails with a located diagnostic, under a deliberately low
Python recursion limit: a recursive walk over some input's size fails here before it fails a
user. The limit (``LIMIT``) is what ptx2gcn needs on a straight-line kernel plus the bracket
nesting the front end allows, far below Python's default (1000)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus.corpus_files import CORPORA

LIMIT = 250
"""Frames: ~60 for the interpreter, the compile pipeline and LLVM's Python bindings, plus two per
bracket level (``frontend.parse.MAX_NESTING``: 64) for the nesting-bounded walks the recursion
audit allows (``tests/unit/test_no_recursion.py``)."""

PROBE = r"""
import json, sys, traceback
import ptx2gcn
from ptx2gcn.diagnostics import Ptx2GcnError
limit = int(sys.argv[1])
ptx2gcn.compile(sys.argv[2], name="warm-up.ptx")  # imports every stage at the normal limit
results = {}
for path in sys.stdin.read().split("\n"):
    if not path:
        continue
    sys.setrecursionlimit(limit)
    try:
        ptx2gcn.compile(path)
        results[path] = "ok"
    except Ptx2GcnError as error:
        # The front end reports a RecursionError as this diagnostic (frontend.parse).
        results[path] = "RecursionError: " + str(error) if "nested too deeply" in str(error) else "diagnostic"
    except BaseException as error:
        results[path] = "".join(traceback.format_exception_only(error)).strip()
    finally:
        sys.setrecursionlimit(10000)
print(json.dumps(results))
"""

WARM_UP = (".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
           ".reg .u64 %rd<2>;\nld.param.u64 %rd1, [p];\nst.global.u64 [%rd1], %rd1;\nret;\n}\n")


def compile_under_limit(paths: list[Path], limit: int) -> dict[str, str]:
    done = subprocess.run([sys.executable, "-c", PROBE, str(limit), WARM_UP], input="\n".join(map(str, paths)),
                          capture_output=True, text=True, timeout=3600, check=True)
    return json.loads(done.stdout)


@pytest.mark.slow
def test_corpus_compiles_under_a_low_recursion_limit() -> None:
    paths = sorted(p for p in CORPORA.rglob("*.ptx") if "regressions" not in p.parts)
    results = compile_under_limit(paths, LIMIT)
    failures = {p: r for p, r in results.items() if r not in ("ok", "diagnostic")}
    assert not failures, failures
    assert sum(r == "ok" for r in results.values()) > len(results) // 2


def test_the_probe_sees_recursion(tmp_path: Path) -> None:
    """The probe itself: a kernel at the front end's bracket limit (64) compiles under ``LIMIT``,
    and a limit too low for it reports the RecursionError instead of hiding it."""
    path = tmp_path / "nested.ptx"
    path.write_text(WARM_UP.replace("ret;", "{ " * 63 + "add.u64 %rd1, %rd1, 1;" + " }" * 63 + "\nret;"))
    assert compile_under_limit([path], LIMIT) == {str(path): "ok"}
    assert compile_under_limit([path], 60)[str(path)].startswith("RecursionError")
