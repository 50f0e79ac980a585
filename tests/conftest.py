"""Shared test fixtures.

``llvm_tool(name)`` finds an LLVM 22 tool (``ld.lld-22``, ``llvm-mc-22``, ...). Without it a test
skips, except under ``PTX2GCN_REQUIRE_LLVM_TOOLS=1`` (set by ``.ci/run``), where it fails: CI
installs the tools, so a missing one there is an error, never a silent pass.

The whole session (subprocesses included) runs with ``PTX2GCN_VERIFY_EACH=1``: every compile a
test makes, through ``compile()``, the command line or the JIT, verifies the IR after every pass
(conventions C4), so a pass that breaks an invariant is named by the test that meets it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

os.environ["PTX2GCN_VERIFY_EACH"] = "1"

REPO_ROOT = Path(__file__).resolve().parent.parent
CORPORA = REPO_ROOT / "corpora"
SHARED = REPO_ROOT.parent / "shared"


def find_llvm_tool(name: str) -> str | None:
    for candidate in (name, f"/usr/lib/llvm-22/bin/{name.removesuffix('-22')}"):
        found = shutil.which(candidate)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def llvm_tool() -> Callable[[str], str]:
    def get(name: str) -> str:
        found = find_llvm_tool(name)
        if found is None:
            message = f"{name} not found (Debian package llvm-22 / lld-22)"
            if os.environ.get("PTX2GCN_REQUIRE_LLVM_TOOLS"):
                pytest.fail(message)
            pytest.skip(message)
        return found

    return get
