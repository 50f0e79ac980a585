"""The static import graph of ptx2gcn's sources, and its strongly connected components.

Every ``import``/``from ... import`` statement of every module counts, wherever it is written:
module level, inside functions (the imports that hide a cycle from Python's loader) and under
``TYPE_CHECKING``. ``from P import N`` is an edge to ``P.N`` when that is a module, else to ``P``.
Implicit parent-package imports are not edges (every package ``__init__`` that re-exports is itself
scanned, so a cycle through one shows up through its explicit imports).

Invariant: ``modules()`` maps each importable name of the four source trees (``ptx2gcn/``,
``passes/``, ``runtime/``, ``grammar/``) to its file; ``cycles()`` finds cycles iteratively (no
recursion on the graph's size).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREES = {"ptx2gcn": "ptx2gcn", "ptx2gcn.passes": "passes", "ptx2gcn.runtime": "runtime",
         "ptx2gcn.grammar": "grammar"}


@dataclass(frozen=True)
class Edge:
    target: str
    line: int
    names: tuple[str, ...]
    """For ``from P import a, b``: the imported names (empty for ``import P``)."""


def modules(root: Path = ROOT) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package, folder in TREES.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = list(path.relative_to(root / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _resolve(name: str, known: Mapping[str, Path]) -> str | None:
    """``name`` or its longest prefix that is a known module (None: not ours)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        candidate = ".".join(parts[:i])
        if candidate in known:
            return candidate
    return None


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def imports(module: str, path: Path, known: Mapping[str, Path]) -> list[Edge]:
    edges: list[Edge] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _resolve(alias.name, known)
                if target is not None:
                    edges.append(Edge(target, node.lineno, ()))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = _package_of(module, path).split(".")
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                target = _resolve(f"{base}.{alias.name}", known)
                if target is not None and target != _resolve(base, known):
                    edges.append(Edge(target, node.lineno, ()))
                elif (owner := _resolve(base, known)) is not None:
                    edges.append(Edge(owner, node.lineno, (alias.name,)))
    return edges


def graph(root: Path = ROOT) -> dict[str, list[Edge]]:
    known = modules(root)
    return {name: [e for e in imports(name, path, known) if e.target != name] for name, path in known.items()}


def cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan's algorithm, iterative),
    each as one cycle through its smallest member, in import order."""
    tarjan = _Tarjan({node: sorted(set(targets)) for node, targets in edges.items()})
    for start in sorted(tarjan.successors):
        if start not in tarjan.index:
            tarjan.visit(start)
    return [_cycle_order(sorted(c), tarjan.successors) for c in tarjan.components if len(c) > 1]


class _Tarjan:
    def __init__(self, successors: dict[str, list[str]]) -> None:
        self.successors = successors
        self.index: dict[str, int] = {}
        self.low: dict[str, int] = {}
        self.stack: list[str] = []
        self.on_stack: set[str] = set()
        self.components: list[list[str]] = []

    def visit(self, start: str) -> None:
        work: list[tuple[str, int]] = [(start, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                self.index[node] = self.low[node] = len(self.index)
                self.stack.append(node)
                self.on_stack.add(node)
            nexts = self.successors.get(node, [])
            if position < len(nexts):
                work.append((node, position + 1))
                child = nexts[position]
                if child not in self.index:
                    work.append((child, 0))
                elif child in self.on_stack:
                    self.low[node] = min(self.low[node], self.index[child])
                continue
            if work:
                parent = work[-1][0]
                self.low[parent] = min(self.low[parent], self.low[node])
            if self.low[node] == self.index[node]:
                self._pop_component(node)

    def _pop_component(self, root: str) -> None:
        component: list[str] = []
        while not component or component[-1] != root:
            member = self.stack.pop()
            self.on_stack.discard(member)
            component.append(member)
        self.components.append(component)


def _cycle_order(component: list[str], successors: Mapping[str, list[str]]) -> list[str]:
    """One cycle through the component's smallest member (breadth-first, so the shortest)."""
    members = set(component)
    start = component[0]
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for child in successors.get(node, []):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return list(reversed(path))
                if child in members and child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    return component
