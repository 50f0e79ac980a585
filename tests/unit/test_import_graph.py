"""Layering of ptx2gcn's packages, checked on the static import graph (``tests/unit/import_graph.py``).

- No import cycles anywhere, counting function-level and ``TYPE_CHECKING`` imports.
- ``ptx2gcn.ir`` imports nothing PTX-specific (``frontend``, ``translate``) and nothing downstream.
- ``ptx2gcn.runtime`` reaches the compiler only through the public entry points
  ``ptx2gcn.compile`` and ``ptx2gcn.split_units`` (the package itself, for
  ``compile``/``CodeObject``/``split_units``), plus the shared formats it reads: code objects and
  ELF (``ptx2gcn.link.elf``, ``ptx2gcn.link.codeobject``), the texture descriptor the driver writes
  for the generated code (``ptx2gcn.emit.texture_descriptor``), diagnostics, the options value and
  the version.
- ``ptx2gcn.interp`` (the reference executor) imports only the front end, the reference model and
  diagnostics, and reaches nothing of the compiler or the runtime even indirectly: it is an oracle
  for what they produce, so it must not share their code.

docs/ARCHITECTURE.md states the same rules.
"""

from __future__ import annotations

from tests.unit.import_graph import Edge, cycles, graph

GRAPH = graph()

RUNTIME_MAY_IMPORT = {
    "ptx2gcn.diagnostics",
    "ptx2gcn.options",
    "ptx2gcn.version",
    "ptx2gcn.link.elf",
    "ptx2gcn.link.codeobject",
    "ptx2gcn.emit.texture_descriptor",
}
"""Modules outside ``ptx2gcn.runtime`` that runtime modules may import (besides ``ptx2gcn`` itself)."""
PUBLIC_NAMES = {"compile", "CodeObject", "split_units", "__version__"}
"""What runtime modules may take from the ``ptx2gcn`` package: the typed compile entry point and the
lazy JIT's unit split."""


def _targets(graph: dict[str, list[Edge]]) -> dict[str, list[str]]:
    return {module: [edge.target for edge in edges] for module, edges in graph.items()}


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_graph_sees_every_tree_and_function_level_imports() -> None:
    assert {"ptx2gcn.compiler", "ptx2gcn.passes.dce", "ptx2gcn.runtime.driver.jit",
            "ptx2gcn.grammar", "ptx2gcn.ir.core"} <= set(GRAPH)
    # ptx2gcn/__init__.py imports the compiler only inside __getattr__ (and under TYPE_CHECKING).
    assert "ptx2gcn.compiler" in _targets(GRAPH)["ptx2gcn"]


def test_cycle_finder_reports_a_cycle() -> None:
    """The check below can fail: a planted two- and three-module cycle is found and printed in order."""
    found = cycles({"a": ["b"], "b": ["c", "a"], "c": ["b"], "d": ["e"], "e": ["f"], "f": ["d"], "g": ["a"]})
    assert sorted(found) == [["a", "b"], ["d", "e", "f"]]


def test_no_import_cycles() -> None:
    found = cycles(_targets(GRAPH))
    assert found == [], "import cycles:\n" + "\n".join(" -> ".join([*c, c[0]]) for c in found)


def test_ir_imports_nothing_ptx_specific_or_downstream() -> None:
    forbidden = ("ptx2gcn.frontend", "ptx2gcn.translate", "ptx2gcn.emit", "ptx2gcn.passes", "ptx2gcn.link",
                 "ptx2gcn.runtime", "ptx2gcn.compiler", "ptx2gcn.reference")
    bad = [f"{module}:{edge.line} imports {edge.target}"
           for module, edges in GRAPH.items() if _inside(module, "ptx2gcn.ir")
           for edge in edges if any(_inside(edge.target, f) for f in forbidden)]
    assert bad == []


def _runtime_violations(graph: dict[str, list[Edge]]) -> list[str]:
    bad: list[str] = []
    for module, edges in graph.items():
        if not _inside(module, "ptx2gcn.runtime"):
            continue
        for edge in edges:
            target = edge.target
            if _inside(target, "ptx2gcn.runtime") or target in RUNTIME_MAY_IMPORT:
                continue
            if target == "ptx2gcn" and edge.names and set(edge.names) <= PUBLIC_NAMES:
                continue
            bad.append(f"{module}:{edge.line} imports {target} {list(edge.names)}")
    return bad


def test_runtime_uses_only_the_public_compile_entry_point() -> None:
    assert _runtime_violations(GRAPH) == []


def test_runtime_check_reports_a_compiler_internal() -> None:
    """The check above can fail: a runtime module importing the IR builder is reported."""
    planted = {"ptx2gcn.runtime.driver.jit": [Edge("ptx2gcn.translate.builder", 7, ()),
                                                Edge("ptx2gcn", 8, ("compile",)),
                                                Edge("ptx2gcn.compiler", 9, ()),
                                                Edge("ptx2gcn", 10, ())]}
    assert _runtime_violations(planted) == [
        "ptx2gcn.runtime.driver.jit:7 imports ptx2gcn.translate.builder []",
        "ptx2gcn.runtime.driver.jit:9 imports ptx2gcn.compiler []",
        "ptx2gcn.runtime.driver.jit:10 imports ptx2gcn []",
    ]


INTERP_MAY_IMPORT = ("ptx2gcn.interp", "ptx2gcn.frontend", "ptx2gcn.reference", "ptx2gcn.diagnostics")
COMPILER_AND_RUNTIME = ("ptx2gcn.translate", "ptx2gcn.ir", "ptx2gcn.passes", "ptx2gcn.emit", "ptx2gcn.link",
                        "ptx2gcn.runtime", "ptx2gcn.compiler", "ptx2gcn.pipeline", "ptx2gcn.options")


def _interp_violations(graph: dict[str, list[Edge]]) -> list[str]:
    direct = [f"{module}:{edge.line} imports {edge.target}"
              for module, edges in graph.items() if _inside(module, "ptx2gcn.interp")
              for edge in edges if not any(_inside(edge.target, p) for p in INTERP_MAY_IMPORT)]
    reached: set[str] = set()
    todo = [m for m in graph if _inside(m, "ptx2gcn.interp")]
    while todo:
        module = todo.pop()
        for edge in graph.get(module, []):
            if edge.target not in reached:
                reached.add(edge.target)
                todo.append(edge.target)
    indirect = sorted(f"reaches {m}" for m in reached if any(_inside(m, p) for p in COMPILER_AND_RUNTIME))
    return direct + indirect


def test_interp_is_independent_of_the_compiler_and_runtime() -> None:
    assert {"ptx2gcn.interp.machine", "ptx2gcn.interp.alu"} <= set(GRAPH)
    assert _interp_violations(GRAPH) == []


def test_interp_check_reports_a_compiler_module() -> None:
    """The check above can fail: a direct import of the IR, and the translator reached through the
    front end, are both reported."""
    planted = {"ptx2gcn.interp.machine": [Edge("ptx2gcn.ir.core", 3, ()), Edge("ptx2gcn.frontend.x", 4, ())],
               "ptx2gcn.frontend.x": [Edge("ptx2gcn.translate.builder", 5, ())]}
    assert _interp_violations(planted) == ["ptx2gcn.interp.machine:3 imports ptx2gcn.ir.core",
                                           "reaches ptx2gcn.ir.core", "reaches ptx2gcn.translate.builder"]
