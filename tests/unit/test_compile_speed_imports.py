"""Start-up guard for the compile path: which modules a compile loads (functional, no timing).

A small file's ``ptx2gcn compile`` spends most of its CPU time starting Python and importing
(benchmarks/compile.py: ~0.2 s of a ~0.25 s process); numpy alone would add ~0.2 s. These tests run
a fresh interpreter and check that compiling loads none of the modules the compile path does not
need, and that ``import ptx2gcn`` stays free of the heavy third-party packages.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.unit.test_compile_speed_gc import PTX

NOT_FOR_COMPILING = ("numpy", "hypothesis", "ptx2gcn.runtime.emulator", "ptx2gcn.reference", "ptx2gcn.interp",
                     "ptx2gcn.fuzz", "ptx2gcn.conformance", "ptx2gcn.cuda")
"""Module name prefixes that compiling a PTX file must not import."""


def _modules_after(code: str, *args: str) -> list[str]:
    """``sys.modules`` of a fresh interpreter after running ``code`` (argv[1:] = ``args``)."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=True)
    return list(json.loads(result.stdout.splitlines()[-1]))


def _loaded(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p if p.endswith("_") else p + ".")
                                      for p in prefixes)]


def test_compile_loads_only_the_compile_path(tmp_path: Path) -> None:
    source = tmp_path / "k.ptx"
    source.write_text(PTX)
    modules = _modules_after("import sys\nfrom ptx2gcn.compiler import compile\ncompile(sys.argv[1])",
                             str(source))
    assert "ptx2gcn.link.linker" in modules and "llvmlite.binding" in modules  # it did compile
    assert _loaded(modules, NOT_FOR_COMPILING) == []


def test_the_compile_command_loads_no_numpy_or_emulator(tmp_path: Path) -> None:
    source = tmp_path / "k.ptx"
    source.write_text(PTX)
    out = tmp_path / "k.hsaco"
    modules = _modules_after("import sys\nfrom ptx2gcn.cli import main\n"
                             "assert main(['compile', sys.argv[1], '-o', sys.argv[2]]) == 0",
                             str(source), str(out))
    assert out.read_bytes()[:4] == b"\x7fELF"
    assert _loaded(modules, ("numpy", "hypothesis", "ptx2gcn.runtime.emulator", "ptx2gcn.reference")) == []


def test_importing_the_package_loads_no_heavy_dependency() -> None:
    modules = _modules_after("import ptx2gcn")
    assert _loaded(modules, ("lark", "llvmlite", "numpy", "msgpack")) == []


def test_the_prefix_check_sees_a_loaded_module() -> None:
    """The check above can fail: a module that is loaded is reported."""
    modules = _modules_after("import json, ptx2gcn.fuzz.known")
    assert _loaded(modules, ("ptx2gcn.fuzz", "json")) == ["json", "json.decoder", "json.encoder",
                                                            "json.scanner", "ptx2gcn.fuzz",
                                                            "ptx2gcn.fuzz.known"]
