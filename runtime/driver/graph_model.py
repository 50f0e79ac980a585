"""The shape of a CUDA graph: nodes, their kinds and parameters, and the dependency edges.

A ``GraphRecord`` holds nodes in insertion order; each ``Node`` has a kind (``NodeKind``), the
parameters of that kind (an object owned by the node: ``launch.KernelLaunch``, ``graph_params``'
structures, an event handle, a child ``GraphRecord``...) and the nodes it depends on. Edges are kept
on both ends (``dependencies``/``dependents``) so roots, leaves and topological orders are found
without scanning the graph.

Invariant: the edges form a DAG over the nodes of one graph: ``add_edge`` refuses an edge between
graphs, a duplicate, or one that would close a cycle (checked by an iterative search, never
recursion); ``topological`` therefore always returns every node exactly once.
"""

from __future__ import annotations

import enum
import itertools
from collections import deque
from dataclasses import dataclass, field
from typing import Protocol

from ptx2gcn.runtime.driver.args import invalid
from ptx2gcn.runtime.driver.beside import PerDriver
from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.state import driver


class NodeKind(enum.IntEnum):
    """``CUgraphNodeType`` values."""

    KERNEL = 0
    MEMCPY = 1
    MEMSET = 2
    HOST = 3
    GRAPH = 4
    EMPTY = 5
    WAIT_EVENT = 6
    EVENT_RECORD = 7
    MEM_ALLOC = 10
    MEM_FREE = 11


_ORDER = itertools.count(1)


class SharedBlock(Protocol):
    owners: int

    def drop(self) -> None: ...


@dataclass(eq=False)
class Node:
    handle: int
    graph: GraphRecord
    kind: NodeKind
    params: object
    dependencies: list[Node] = field(default_factory=lambda: [])
    dependents: list[Node] = field(default_factory=lambda: [])
    order: int = field(default_factory=lambda: next(_ORDER))
    """Creation order, unique in the process: ties in topological orders are broken by it."""
    keep: object = None
    """Memory handed out by ``Get`` calls (argument copies a C caller reads through pointers)."""
    enabled: bool = True
    """``cuGraphNodeSetEnabled`` on an executable's node: a disabled node does nothing when launched."""


@dataclass(eq=False)
class GraphRecord:
    handle: int
    nodes: list[Node] = field(default_factory=lambda: [])
    origin: GraphRecord | None = None
    """The graph this one was cloned from (``cuGraphNodeFindInClone``), None for an original."""
    clone_of: dict[int, Node] = field(default_factory=lambda: {})
    """For a clone: handle of a node of ``origin`` -> its copy here."""
    blocks: list[SharedBlock] = field(default_factory=lambda: [])
    """Memory its mem-alloc nodes own (``mempool.GraphBlock``), shared with clones and executables."""
    references: dict[int, int] = field(default_factory=lambda: {})
    """User object handle -> references the graph owns (``user_objects``)."""

    def add(self, node: Node, dependencies: list[Node]) -> Node:
        for dependency in dependencies:
            if dependency.graph is not self:
                raise invalid(f"dependency node 0x{dependency.handle:x} belongs to another graph")
        if len(set(map(id, dependencies))) != len(dependencies):
            raise invalid("the dependency list names a node twice")
        self.nodes.append(node)
        for dependency in dependencies:
            _link(dependency, node)
        return node

    def roots(self) -> list[Node]:
        return [node for node in self.nodes if not node.dependencies]

    def edges(self) -> list[tuple[Node, Node]]:
        return [(source, target) for target in self.nodes for source in target.dependencies]


def _link(source: Node, target: Node) -> None:
    source.dependents.append(target)
    target.dependencies.append(source)


def reaches(start: Node, goal: Node) -> bool:
    """Whether ``goal`` is ``start`` or depends on it through edges (an iterative search)."""
    seen = {id(start)}
    pending = [start]
    while pending:
        node = pending.pop()
        if node is goal:
            return True
        for after in node.dependents:
            if id(after) not in seen:
                seen.add(id(after))
                pending.append(after)
    return False


def add_edge(source: Node, target: Node) -> None:
    if source.graph is not target.graph:
        raise invalid("an edge must join two nodes of the same graph")
    if source is target or any(node is source for node in target.dependencies):
        raise invalid(f"the edge 0x{source.handle:x} -> 0x{target.handle:x} is a self-edge or exists already")
    if reaches(target, source):
        raise invalid(f"the edge 0x{source.handle:x} -> 0x{target.handle:x} would make a cycle")
    _link(source, target)


def remove_edge(source: Node, target: Node) -> None:
    if not any(node is source for node in target.dependencies):
        raise invalid(f"there is no edge 0x{source.handle:x} -> 0x{target.handle:x}")
    target.dependencies.remove(source)
    source.dependents.remove(target)


def topological(graph: GraphRecord) -> list[Node]:
    """Every node, each after all its dependencies (Kahn's algorithm, ties in creation order)."""
    waiting = {id(node): len(node.dependencies) for node in graph.nodes}
    ready = deque(sorted(graph.roots(), key=lambda n: n.order))
    out: list[Node] = []
    while ready:
        node = ready.popleft()
        out.append(node)
        for after in sorted(node.dependents, key=lambda n: n.order):
            waiting[id(after)] -= 1
            if waiting[id(after)] == 0:
                ready.append(after)
    return out


def ancestors(nodes: list[Node]) -> set[int]:
    """``id()`` of every node in ``nodes`` and of every node they depend on, transitively."""
    seen = {id(node) for node in nodes}
    pending = list(nodes)
    while pending:
        for before in pending.pop().dependencies:
            if id(before) not in seen:
                seen.add(id(before))
                pending.append(before)
    return seen


# -- the driver's graph tables ------------------------------------------------------------------------
@dataclass(eq=False)
class GraphTables:
    """Graphs, nodes and executable graphs of one ``Driver`` (handle -> record)."""

    graphs: dict[int, GraphRecord] = field(default_factory=lambda: {})
    nodes: dict[int, Node] = field(default_factory=lambda: {})
    execs: dict[int, object] = field(default_factory=lambda: {})
    """Handle -> ``graph_exec.ExecRecord``."""


tables = PerDriver(GraphTables)
"""The graph tables of the current ``driver()`` (a fresh set after ``state.reset``)."""


def new_node(graph: GraphRecord, kind: NodeKind, params: object, dependencies: list[Node]) -> Node:
    """A node of ``kind`` added to ``graph`` after ``dependencies``, with a fresh handle."""
    node = graph.add(Node(driver().new_handle(), graph, kind, params), dependencies)
    tables().nodes[node.handle] = node
    return node


def new_graph() -> GraphRecord:
    graph = GraphRecord(driver().new_handle())
    tables().graphs[graph.handle] = graph
    return graph


def forget(graph: GraphRecord) -> None:
    """``graph`` is destroyed: its handles leave the tables, its memory blocks lose an owner."""
    found = tables()
    found.graphs.pop(graph.handle, None)
    for node in graph.nodes:
        found.nodes.pop(node.handle, None)
    for block in graph.blocks:
        block.drop()
    graph.blocks = []


def has_memory_nodes(graph: GraphRecord) -> bool:
    return any(node.kind in (NodeKind.MEM_ALLOC, NodeKind.MEM_FREE) for node in graph.nodes)


def graph_of(handle: int) -> GraphRecord:
    found = tables().graphs.get(handle)
    if found is None:
        raise CudaError(
            CUresult.CUDA_ERROR_INVALID_VALUE, f"graph 0x{handle:x} does not exist (never created, or destroyed)"
        )
    return found


def node_of(handle: int) -> Node:
    found = tables().nodes.get(handle)
    if found is None:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_VALUE, f"graph node 0x{handle:x} does not exist")
    return found
