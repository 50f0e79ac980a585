"""CUDA graphs built by hand: ``cuGraphCreate``/``Destroy``/``Clone``, ``cuGraphAdd*Node``,
``cuGraphAddDependencies``/``RemoveDependencies``, ``cuGraphGetNodes``/``GetRootNodes``/``GetEdges``,
node queries and ``Get``/``SetParams``, ``cuGraphDebugDotPrint``; and the capture API's entry points
that hand graphs and nodes out (``cuStreamEndCapture``, ``cuStreamGetCaptureInfo``).

Arguments come as cuda-python passes them (handles, lists of ``CUgraphNode``, parameter objects with
``cuda.h``'s field names) or as the C ABI's structures (``libcuda.structs``): both are read by name.

Invariant: every node handle handed out is in ``graph_model.tables().nodes`` until its graph (or the
node) is destroyed; a clone shares no node with its original (child graphs are copied too, by a
work list, not recursion).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ptx2gcn.runtime.driver import capture, graph_nodes, mempool, user_objects
from ptx2gcn.runtime.driver.args import handle, integer, invalid
from ptx2gcn.runtime.driver.graph_model import (
    GraphRecord,
    Node,
    NodeKind,
    add_edge,
    forget,
    graph_of,
    has_memory_nodes,
    new_graph,
    new_node,
    node_of,
    remove_edge,
    tables,
)
from ptx2gcn.runtime.driver.graph_params import (
    CUDA_MEM_ALLOC_NODE_PARAMS,
    CUmemLocation,
    CUmemPoolProps,
    HostParams,
    MemsetParams,
)
from ptx2gcn.runtime.driver.state import driver
from ptx2gcn.runtime.driver.types import CUdeviceptr, CUevent, CUgraph, CUgraphNode


def _graph(value: object) -> GraphRecord:
    driver().initialised()
    return graph_of(handle(value, CUgraph, "hGraph"))


def _node(value: object, what: str = "hNode") -> Node:
    driver().initialised()
    return node_of(handle(value, CUgraphNode, what))


def nodes_of(values: object, count: object, what: str = "dependencies") -> list[Node]:
    number = integer(count, f"num{what[0].upper()}{what[1:]}", 64)
    if number == 0:
        return []
    if values is None or not isinstance(values, Sequence):
        raise invalid(f"{what}: {number} node(s) announced but no list given")
    listed = list(values)
    if len(listed) < number:
        raise invalid(f"{what} holds {len(listed)} node(s), fewer than {number}")
    return [_node(value, what) for value in listed[:number]]


def _add(hGraph: object, dependencies: object, count: object, kind: NodeKind, params: object) -> CUgraphNode:
    graph = _graph(hGraph)
    return CUgraphNode(new_node(graph, kind, params, nodes_of(dependencies, count)).handle)


# -- graphs ---------------------------------------------------------------------------------------------
def graph_create(flags: object) -> CUgraph:
    driver().require_current()
    if integer(flags, "flags") != 0:
        raise invalid("flags must be 0")
    return CUgraph(new_graph().handle)


def graph_destroy(hGraph: object) -> None:
    graph = _graph(hGraph)
    forget(graph)
    user_objects.drop_references(graph)


def clone_graph(original: GraphRecord, register: bool) -> GraphRecord:
    """A copy of ``original`` (child graphs copied too); ``register``: its nodes get handles in the tables."""
    top = GraphRecord(driver().new_handle(), origin=original)
    pending = [(original, top)]
    while pending:
        source, target = pending.pop()
        copies: dict[int, Node] = {}
        for node in source.nodes:
            params = node.params
            if node.kind is NodeKind.GRAPH:
                assert isinstance(params, GraphRecord)
                child = GraphRecord(driver().new_handle(), origin=params)
                pending.append((params, child))
                params = child
            copy = Node(driver().new_handle(), target, node.kind, params)
            target.add(copy, [copies[id(d)] for d in node.dependencies])
            copies[id(node)] = copy
            target.clone_of[node.handle] = copy
            if register:
                tables().nodes[copy.handle] = copy
    top.blocks = list(original.blocks)  # only a top-level graph has memory nodes (see add_child_graph_node)
    for block in top.blocks:
        block.owners += 1
    user_objects.copy_references(original, top)
    return top


def graph_clone(originalGraph: object) -> CUgraph:
    clone = clone_graph(_graph(originalGraph), True)
    tables().graphs[clone.handle] = clone
    return CUgraph(clone.handle)


def graph_node_find_in_clone(hOriginalNode: object, hClonedGraph: object) -> CUgraphNode:
    original, clone = _node(hOriginalNode, "hOriginalNode"), _graph(hClonedGraph)
    found = clone.clone_of.get(original.handle)
    if found is None or clone.origin is not original.graph:
        raise invalid("hClonedGraph is not a clone of hOriginalNode's graph")
    return CUgraphNode(found.handle)


# -- adding nodes -------------------------------------------------------------------------------------
def add_kernel_node(hGraph: object, dependencies: object, numDependencies: object, nodeParams: object) -> CUgraphNode:
    return _add(hGraph, dependencies, numDependencies, NodeKind.KERNEL, graph_nodes.kernel_params(nodeParams))


def add_memcpy_node(hGraph: object, dependencies: object, numDependencies: object, copyParams: object,
                    ctx: object = None) -> CUgraphNode:
    return _add(hGraph, dependencies, numDependencies, NodeKind.MEMCPY, graph_nodes.memcpy_params(copyParams))


def add_memset_node(hGraph: object, dependencies: object, numDependencies: object, memsetParams: object,
                    ctx: object = None) -> CUgraphNode:
    return _add(hGraph, dependencies, numDependencies, NodeKind.MEMSET, graph_nodes.memset_params(memsetParams))


def add_host_node(hGraph: object, dependencies: object, numDependencies: object, nodeParams: object) -> CUgraphNode:
    return _add(hGraph, dependencies, numDependencies, NodeKind.HOST, graph_nodes.host_params(nodeParams))


def add_empty_node(hGraph: object, dependencies: object, numDependencies: object) -> CUgraphNode:
    return _add(hGraph, dependencies, numDependencies, NodeKind.EMPTY, None)


def add_event_record_node(hGraph: object, dependencies: object, numDependencies: object, event: object) -> CUgraphNode:
    return _add(hGraph, dependencies, numDependencies, NodeKind.EVENT_RECORD, graph_nodes.event_param(event))


def add_event_wait_node(hGraph: object, dependencies: object, numDependencies: object, event: object) -> CUgraphNode:
    return _add(hGraph, dependencies, numDependencies, NodeKind.WAIT_EVENT, graph_nodes.event_param(event))


def add_child_graph_node(hGraph: object, dependencies: object, numDependencies: object,
                         childGraph: object) -> CUgraphNode:
    """The child is copied (CUDA's semantics: later changes to ``childGraph`` do not reach the node)."""
    child = _graph(childGraph)
    if child is _graph(hGraph):
        raise invalid("a graph cannot be its own child")
    if has_memory_nodes(child):
        raise invalid("a child graph cannot hold memory allocation or free nodes (CUDA's rule)")
    return _add(hGraph, dependencies, numDependencies, NodeKind.GRAPH, clone_graph(child, False))


def add_mem_alloc_node(hGraph: object, dependencies: object, numDependencies: object,
                       nodeParams: object) -> CUgraphNode:
    graph = _graph(hGraph)
    deps = nodes_of(dependencies, numDependencies)
    block = mempool.graph_block(graph.blocks, nodeParams)
    return CUgraphNode(new_node(graph, NodeKind.MEM_ALLOC, block, deps).handle)


def add_mem_free_node(hGraph: object, dependencies: object, numDependencies: object, dptr: object) -> CUgraphNode:
    address = handle(dptr, CUdeviceptr, "dptr")
    if mempool.owner(address) is None:
        raise invalid(f"dptr 0x{address:x} is not memory a graph or cuMemAllocAsync allocated")
    return _add(hGraph, dependencies, numDependencies, NodeKind.MEM_FREE, address)


def mem_alloc_node_get_params(hNode: object) -> CUDA_MEM_ALLOC_NODE_PARAMS:
    node = _node(hNode)
    if node.kind is not NodeKind.MEM_ALLOC:
        raise invalid(f"node 0x{node.handle:x} is not a memory allocation node")
    block = node.params
    assert isinstance(block, mempool.GraphBlock)
    props = CUmemPoolProps(location=CUmemLocation(type=1, id=block.pool.device))
    return CUDA_MEM_ALLOC_NODE_PARAMS(poolProps=props, bytesize=block.size, dptr=CUdeviceptr(block.address))


def mem_free_node_get_params(hNode: object) -> CUdeviceptr:
    node = _node(hNode)
    if node.kind is not NodeKind.MEM_FREE:
        raise invalid(f"node 0x{node.handle:x} is not a memory free node")
    return CUdeviceptr(int(node.params))  # type: ignore[call-overload]


# -- edges and queries ------------------------------------------------------------------------------------
def _edge_lists(hGraph: object, from_: object, to: object, rest: tuple[object, ...]) -> list[tuple[Node, Node]]:
    """``(hGraph, from, to, numDependencies)`` or CUDA 12.3's ``(hGraph, from, to, edgeData, num)``."""
    if len(rest) not in (1, 2):
        raise invalid("expected numDependencies, or edgeData and numDependencies")
    data = rest[0] if len(rest) == 2 and rest[0] not in (None, 0) else []
    if any(integer(getattr(e, "type", 0), "edgeData.type") for e in data):  # type: ignore[attr-defined]
        raise invalid("only default edges (type 0) are supported")
    graph = _graph(hGraph)
    sources, targets = nodes_of(from_, rest[-1], "from"), nodes_of(to, rest[-1], "to")
    for node in sources + targets:
        if node.graph is not graph:
            raise invalid(f"node 0x{node.handle:x} is not in hGraph")
    return list(zip(sources, targets))


def add_dependencies(hGraph: object, from_: object, to: object, *rest: object) -> None:
    for source, target in _edge_lists(hGraph, from_, to, rest):
        add_edge(source, target)


def remove_dependencies(hGraph: object, from_: object, to: object, *rest: object) -> None:
    for source, target in _edge_lists(hGraph, from_, to, rest):
        remove_edge(source, target)


def _listing(nodes: list[Node], wanted: object) -> tuple[list[CUgraphNode], int]:
    """cuda-python's ``(nodes, count)``: ``wanted`` 0 asks only for the count."""
    number = integer(wanted or 0, "numNodes", 64)
    return [CUgraphNode(n.handle) for n in nodes[:number]], len(nodes) if number == 0 else min(number, len(nodes))


def graph_get_nodes(hGraph: object, numNodes: object = 0) -> tuple[list[CUgraphNode], int]:
    return _listing(_graph(hGraph).nodes, numNodes)


def graph_get_root_nodes(hGraph: object, numRootNodes: object = 0) -> tuple[list[CUgraphNode], int]:
    return _listing(_graph(hGraph).roots(), numRootNodes)


def graph_get_edges(hGraph: object, numEdges: object = 0) -> tuple[list[CUgraphNode], list[CUgraphNode], None, int]:
    """cuda-python 13's ``(from, to, edgeData, numEdges)``; every edge here is a default edge."""
    edges = _graph(hGraph).edges()
    number = integer(numEdges or 0, "numEdges", 64)
    shown = edges[:number]
    count = len(edges) if number == 0 else len(shown)
    return [CUgraphNode(a.handle) for a, _ in shown], [CUgraphNode(b.handle) for _, b in shown], None, count


def node_get_dependencies(hNode: object, numDependencies: object = 0) -> tuple[list[CUgraphNode], None, int]:
    nodes, count = _listing(_node(hNode).dependencies, numDependencies)
    return nodes, None, count


def node_get_dependent_nodes(hNode: object, numDependentNodes: object = 0) -> tuple[list[CUgraphNode], None, int]:
    nodes, count = _listing(_node(hNode).dependents, numDependentNodes)
    return nodes, None, count


def node_get_type(hNode: object) -> int:
    return int(_node(hNode).kind)


def destroy_node(hNode: object) -> None:
    node = _node(hNode)
    for before in list(node.dependencies):
        remove_edge(before, node)
    for after in list(node.dependents):
        remove_edge(node, after)
    node.graph.nodes.remove(node)
    tables().nodes.pop(node.handle, None)


# -- node parameters -------------------------------------------------------------------------------------
def _getter(read: Callable[[Node], object]) -> Callable[[object], object]:
    def get(hNode: object) -> object:
        return read(_node(hNode))

    return get


def _setter(read: Callable[[Node], object], take: Callable[[object], object]) -> Callable[[object, object], None]:
    """``cuGraph*NodeSetParams``: ``read`` checks the node's kind, ``take`` copies the new parameters."""

    def set_params(hNode: object, nodeParams: object) -> None:
        node = _node(hNode)
        read(node)
        node.params = take(nodeParams)

    return set_params


kernel_node_get_params = _getter(graph_nodes.kernel_params_out)
kernel_node_set_params = _setter(graph_nodes.kernel_params_out, graph_nodes.kernel_params)
memcpy_node_get_params = _getter(graph_nodes.memcpy_params_out)
memcpy_node_set_params = _setter(graph_nodes.memcpy_params_out, graph_nodes.memcpy_params)
memset_node_get_params = _getter(graph_nodes.memset_params_out)
memset_node_set_params = _setter(graph_nodes.memset_params_out, graph_nodes.memset_params)
host_node_get_params = _getter(graph_nodes.host_params_out)
host_node_set_params = _setter(graph_nodes.host_params_out, graph_nodes.host_params)


def child_graph_node_get_graph(hNode: object) -> CUgraph:
    """The child graph the node holds (owned by the node: registered once, on first request)."""
    node = _node(hNode)
    if node.kind is not NodeKind.GRAPH:
        raise invalid(f"node 0x{node.handle:x} is not a child-graph node")
    child = node.params
    assert isinstance(child, GraphRecord)
    found = tables()
    if child.handle not in found.graphs:
        found.graphs[child.handle] = child
        for inner in child.nodes:
            found.nodes[inner.handle] = inner
    return CUgraph(child.handle)


def _event_node(hNode: object, kind: NodeKind) -> Node:
    node = _node(hNode)
    if node.kind is not kind:
        raise invalid(f"node 0x{node.handle:x} is a {node.kind.name} node, not a {kind.name} node")
    return node


def event_record_node_get_event(hNode: object) -> CUevent:
    return CUevent(int(_event_node(hNode, NodeKind.EVENT_RECORD).params))  # type: ignore[call-overload]


def event_record_node_set_event(hNode: object, event: object) -> None:
    _event_node(hNode, NodeKind.EVENT_RECORD).params = graph_nodes.event_param(event)


def event_wait_node_get_event(hNode: object) -> CUevent:
    return CUevent(int(_event_node(hNode, NodeKind.WAIT_EVENT).params))  # type: ignore[call-overload]


def event_wait_node_set_event(hNode: object, event: object) -> None:
    _event_node(hNode, NodeKind.WAIT_EVENT).params = graph_nodes.event_param(event)


# -- capture outputs ---------------------------------------------------------------------------------------
def stream_end_capture(hStream: object) -> CUgraph:
    return CUgraph(capture.end_capture(hStream))


def stream_get_capture_info(hStream: object) -> tuple[int, int, CUgraph | None, list[CUgraphNode], None, int]:
    """cuda-python 13's ``(status, id, graph, dependencies, edgeData, numDependencies)``."""
    status, identifier, graph, frontier = capture.capture_info(hStream)
    nodes = [CUgraphNode(n.handle) for n in frontier]
    return status, identifier, CUgraph(graph) if graph else None, nodes, None, len(nodes)


def stream_update_capture_dependencies(hStream: object, dependencies: object, *rest: object) -> None:
    """``(hStream, dependencies, numDependencies, flags)`` or 12.3's ``(…, edgeData, num, flags)``."""
    if len(rest) not in (2, 3):
        raise invalid("expected numDependencies and flags (and edgeData before them)")
    capture.update_dependencies(hStream, nodes_of(dependencies, rest[-2]), rest[-1])


# -- DOT ---------------------------------------------------------------------------------------------------
_LABELS = {NodeKind.KERNEL: "kernel", NodeKind.MEMCPY: "memcpy", NodeKind.MEMSET: "memset", NodeKind.HOST: "host",
           NodeKind.GRAPH: "graph", NodeKind.EMPTY: "empty", NodeKind.WAIT_EVENT: "event wait",
           NodeKind.EVENT_RECORD: "event record", NodeKind.MEM_ALLOC: "mem alloc", NodeKind.MEM_FREE: "mem free"}


def _label(node: Node) -> str:
    label = f"{_LABELS[node.kind]} 0x{node.handle:x}"
    params = node.params
    if node.kind is NodeKind.KERNEL:
        launch = params
        label += f"\\n{launch.function.info.name}\\ngrid {launch.shape.grid} block {launch.shape.block}"  # type: ignore[attr-defined]
    elif isinstance(params, MemsetParams):
        label += f"\\ndst 0x{params.dst:x} value {params.value} x {params.width}x{params.height}"
    elif isinstance(params, HostParams):
        label += f"\\nfn {params.fn!r}"
    elif node.kind is NodeKind.MEMCPY:
        label += f"\\n{params.WidthInBytes} x {params.Height} x {params.Depth} bytes"  # type: ignore[attr-defined]
    return label.replace('"', "'")


def dot(graph: GraphRecord) -> str:
    """The graph in Graphviz DOT: one cluster per (child) graph, a node per node, an edge per dependency."""
    lines = ["digraph ptx2gcn_graph {", "  compound=true;"]
    pending: list[tuple[GraphRecord, str]] = [(graph, "  ")]
    edges: list[str] = []
    while pending:
        current, indent = pending.pop()
        lines.append(f"{indent}subgraph cluster_{current.handle:x} {{")
        lines.append(f'{indent}  label="graph 0x{current.handle:x}";')
        for node in current.nodes:
            shape = "box" if node.kind is NodeKind.KERNEL else "ellipse"
            lines.append(f'{indent}  n{node.handle:x} [shape={shape}, label="{_label(node)}"];')
            edges += [f"  n{d.handle:x} -> n{node.handle:x};" for d in node.dependencies]
            if node.kind is NodeKind.GRAPH:
                child = node.params
                assert isinstance(child, GraphRecord)
                edges += [f"  n{node.handle:x} -> n{c.handle:x} [style=dashed];" for c in child.roots()]
                pending.append((child, indent + "  "))
        lines.append(f"{indent}}}")
    return "\n".join(lines + edges + ["}"]) + "\n"


def graph_debug_dot_print(hGraph: object, path: object, flags: object) -> None:
    graph = _graph(hGraph)
    integer(flags, "flags")
    if isinstance(path, (bytes, bytearray)):
        name = bytes(path).split(b"\0", 1)[0].decode()
    elif isinstance(path, str):
        name = path
    else:
        raise invalid("path must be bytes or str")
    try:
        with open(name, "w", encoding="utf-8") as out:
            out.write(dot(graph))
    except OSError as error:
        raise invalid(f"cannot write {name}: {error.strerror}") from None
