"""Find recursive functions in the package's source by reading it (``ast``), not by running it.

A call graph over every function and method of ``ptx2gcn/``, ``passes/`` and ``runtime/``:
- ``f(...)`` goes to the ``f`` visible there: a function nested in an enclosing function, a
  module-level function of the same module, or one imported by ``from M import f``;
- ``self.f(...)`` / ``cls.f(...)`` goes to method ``f`` of the enclosing class;
- ``x.f(...)`` on any other plain name goes to every function named ``f`` in the same module,
  but only from inside a function itself named ``f`` (the usual shape of recursion over a tree
  of objects: ``for child in self.children: child.f()``); ``self.member.f(...)``,
  ``module.f(...)`` and ``super().f(...)`` are delegation, not recursion.
Each strongly connected component with a cycle (Tarjan, iterative) is one recursion: a set of
qualified names ``module:Class.method``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("ptx2gcn", "passes", "runtime")


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _installed_name(module: str) -> str:
    """``ptx2gcn.passes.x`` -> ``passes.x`` (the folders installed under the package)."""
    for root in ("passes", "runtime"):
        if module.startswith(f"ptx2gcn.{root}"):
            return module.removeprefix("ptx2gcn.")
    return module


class _Module:
    def __init__(self, path: Path) -> None:
        self.name = _module_name(path)
        self.tree = ast.parse(path.read_text(), str(path))
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        """Qualified name inside the module (``Class.method``, ``outer.inner``) -> definition."""
        self.imported: dict[str, tuple[str, str]] = {}
        self.modules: set[str] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = (_installed_name(node.module), alias.name)
            elif isinstance(node, ast.Import):
                self.modules.update((a.asname or a.name).split(".")[0] for a in node.names)
        work: list[tuple[ast.AST, str]] = [(self.tree, "")]
        while work:
            node, prefix = work.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.functions[prefix + child.name] = child
                    work.append((child, f"{prefix}{child.name}."))
                elif isinstance(child, ast.ClassDef):
                    work.append((child, f"{prefix}{child.name}."))
                else:
                    work.append((child, prefix))


def _calls(module: _Module, qualified: str, modules: dict[str, _Module]) -> Iterator[str]:
    parts = qualified.split(".")
    for node in ast.walk(module.functions[qualified]):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            yield from _name_call(module, parts, node.func.id, modules)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            yield from _attribute_call(module, parts, node.func)


def _name_call(module: _Module, parts: list[str], name: str, modules: dict[str, _Module]) -> Iterator[str]:
    for k in range(len(parts) - 1, -1, -1):
        candidate = ".".join([*parts[:k], name])
        if candidate in module.functions:
            yield f"{module.name}:{candidate}"
            break
    source = module.imported.get(name)
    if source is not None and source[0] in modules and source[1] in modules[source[0]].functions:
        yield f"{source[0]}:{source[1]}"


def _attribute_call(module: _Module, parts: list[str], func: ast.Attribute) -> Iterator[str]:
    base = func.value
    if isinstance(base, ast.Name) and base.id in ("self", "cls"):
        for k in range(len(parts) - 1, 0, -1):
            candidate = ".".join([*parts[:k], func.attr])
            if candidate in module.functions:
                yield f"{module.name}:{candidate}"
                break
    elif (func.attr == parts[-1] and isinstance(base, ast.Name) and base.id not in module.modules
          and base.id not in module.imported):
        for name in module.functions:
            if name.split(".")[-1] == func.attr:
                yield f"{module.name}:{name}"


def recursive_components() -> list[frozenset[str]]:
    """Every set of mutually recursive functions (one function calling itself is a set of one)."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            module = _Module(path)
            modules[module.name] = module
    graph: dict[str, list[str]] = {}
    for module in modules.values():
        for qualified in module.functions:
            graph[f"{module.name}:{qualified}"] = sorted(set(_calls(module, qualified, modules)))
    return _cycles(graph)


def _cycles(graph: dict[str, list[str]]) -> list[frozenset[str]]:
    """Tarjan's strongly connected components, with an explicit stack."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in graph:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(graph[root]))]
        while work:
            node, edges = work[-1]
            for succ in edges:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(graph[succ])))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = _pop_component(stack, on_stack, node)
                    if len(component) > 1 or node in graph[node]:
                        found.append(component)
    return found


def _pop_component(stack: list[str], on_stack: set[str], root: str) -> frozenset[str]:
    component = []
    while True:
        member = stack.pop()
        on_stack.discard(member)
        component.append(member)
        if member == root:
            return frozenset(component)
