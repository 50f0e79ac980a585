"""Executable graphs: ``cuGraphInstantiate``(``WithFlags``/``WithParams``), ``cuGraphLaunch``,
``cuGraphUpload``, ``cuGraphExecDestroy``, ``cuGraphExec*NodeSetParams``, ``cuGraphExecUpdate``.

Instantiating copies the graph (later edits of the graph do not reach the executable) and orders
its nodes once: a topological order of the graph, each child-graph node replaced by its own graph's
order (flattened with an explicit stack, so nesting depth costs no recursion). A launch runs the
nodes in that order on the launching thread: as everywhere in this driver, work is complete when the
call returns. A launch on a capturing stream is captured instead, as a child-graph node.

Invariant: ``steps`` holds exactly the non-child-graph nodes of the executable's graph and its child
graphs, each after every node it depends on (directly or through a child-graph node's dependencies).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ptx2gcn.runtime.driver import capture, graph_nodes, user_objects
from ptx2gcn.runtime.driver.args import handle, integer, invalid
from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.graph_model import GraphRecord, Node, NodeKind, has_memory_nodes, tables, topological
from ptx2gcn.runtime.driver.graph_params import CUgraphExecUpdateResultInfo
from ptx2gcn.runtime.driver.graphs import _graph, _node, clone_graph
from ptx2gcn.runtime.driver.launch import KernelLaunch
from ptx2gcn.runtime.driver.state import driver
from ptx2gcn.runtime.driver.types import CUgraphExec, CUgraphNode, CUstream

_FLAGS = 0x1 | 0x2 | 0x4 | 0x8
"""``CUgraphInstantiate_flags``: auto-free on launch, upload, device launch, use node priority."""
UPDATE_SUCCESS, UPDATE_TOPOLOGY_CHANGED, UPDATE_NODE_TYPE_CHANGED, UPDATE_FUNCTION_CHANGED = 0, 2, 3, 4
"""``CUgraphExecUpdateResult`` values."""


@dataclass(eq=False)
class ExecRecord:
    handle: int
    graph: GraphRecord
    """The executable's own copy of the graph it was instantiated from."""
    source: GraphRecord
    steps: list[Node] = field(default_factory=lambda: [])
    flags: int = 0
    """The ``CUgraphInstantiate_flags`` it was instantiated with (``cuGraphExecGetFlags``)."""


def flatten(graph: GraphRecord) -> list[Node]:
    steps: list[Node] = []
    stack = [iter(topological(graph))]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
        elif node.kind is NodeKind.GRAPH:
            assert isinstance(node.params, GraphRecord)
            stack.append(iter(topological(node.params)))
        else:
            steps.append(node)
    return steps


def _exec(value: object) -> ExecRecord:
    driver().initialised()
    found = tables().execs.get(handle(value, CUgraphExec, "hGraphExec"))
    if not isinstance(found, ExecRecord):
        raise invalid(f"executable graph {value!r} does not exist (never instantiated, or destroyed)")
    return found


def instantiate_with_flags(hGraph: object, flags: object = 0) -> CUgraphExec:
    driver().require_current()
    graph = _graph(hGraph)
    bits = integer(flags, "flags", 64)
    if bits & ~_FLAGS:
        raise invalid(f"flags 0x{bits:x} has bits that are not CUgraphInstantiate_flags")
    if bits & 0x4:
        raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, "device-launchable graphs are not supported")
    copy = clone_graph(graph, False)
    record = ExecRecord(driver().new_handle(), copy, graph, flatten(copy), bits)
    tables().execs[record.handle] = record
    return CUgraphExec(record.handle)


def instantiate_with_params(hGraph: object, instantiateParams: object) -> CUgraphExec:
    """``cuGraphInstantiateWithParams``: ``flags`` as ``WithFlags``; ``result_out`` set to success."""
    if instantiateParams is None:
        raise invalid("instantiateParams is NULL")
    executable = instantiate_with_flags(hGraph, getattr(instantiateParams, "flags", 0) or 0)
    if hasattr(instantiateParams, "result_out"):
        instantiateParams.result_out = 0  # type: ignore[attr-defined]
    return executable


def exec_destroy(hGraphExec: object) -> None:
    record = _exec(hGraphExec)
    del tables().execs[record.handle]
    for block in record.graph.blocks:
        block.drop()
    user_objects.drop_references(record.graph)


def graph_launch(hGraphExec: object, hStream: object) -> None:
    record = _exec(hGraphExec)
    driver().require_current()
    handle(hStream, CUstream, "hStream")
    if has_memory_nodes(record.graph) and capture.capture_of(hStream) is not None:
        raise invalid("a graph with memory allocation or free nodes cannot be launched into a capture")
    if capture.record(hStream, NodeKind.GRAPH, lambda: clone_graph(record.graph, False)) is not None:
        return
    for node in record.steps:
        if node.enabled:
            graph_nodes.run(node)


def graph_upload(hGraphExec: object, hStream: object) -> None:
    """Nothing to upload ahead of a launch: checked, then done."""
    _exec(hGraphExec)
    capture.record(hStream, NodeKind.EMPTY, lambda: None)


def _exec_node(record: ExecRecord, hNode: object) -> Node:
    node = _node(hNode)
    copy = record.graph.clone_of.get(node.handle)
    if copy is None or node.graph is not record.source:
        raise invalid(f"node 0x{node.handle:x} is not a node of the graph hGraphExec was instantiated from")
    return copy


def exec_kernel_node_set_params(hGraphExec: object, hNode: object, nodeParams: object) -> None:
    _exec_kind(hGraphExec, hNode, NodeKind.KERNEL).params = graph_nodes.kernel_params(nodeParams)


def exec_memcpy_node_set_params(hGraphExec: object, hNode: object, copyParams: object, ctx: object = None) -> None:
    _exec_kind(hGraphExec, hNode, NodeKind.MEMCPY).params = graph_nodes.memcpy_params(copyParams)


def exec_memset_node_set_params(hGraphExec: object, hNode: object, memsetParams: object, ctx: object = None) -> None:
    _exec_kind(hGraphExec, hNode, NodeKind.MEMSET).params = graph_nodes.memset_params(memsetParams)


def exec_host_node_set_params(hGraphExec: object, hNode: object, nodeParams: object) -> None:
    _exec_kind(hGraphExec, hNode, NodeKind.HOST).params = graph_nodes.host_params(nodeParams)


def _difference(mine: Node, theirs: Node) -> int:
    """Why ``theirs`` cannot update ``mine`` in place (``UPDATE_SUCCESS`` when it can)."""
    if mine.kind is not theirs.kind:
        return UPDATE_NODE_TYPE_CHANGED
    if mine.kind is NodeKind.GRAPH:
        assert isinstance(mine.params, GraphRecord) and isinstance(theirs.params, GraphRecord)
        same = len(flatten(mine.params)) == len(flatten(theirs.params))
        return UPDATE_SUCCESS if same else UPDATE_TOPOLOGY_CHANGED
    if mine.kind in (NodeKind.MEM_ALLOC, NodeKind.MEM_FREE) and mine.params is not theirs.params:
        return UPDATE_TOPOLOGY_CHANGED  # CUDA: memory nodes cannot be updated
    if mine.kind is NodeKind.KERNEL:
        assert isinstance(mine.params, KernelLaunch) and isinstance(theirs.params, KernelLaunch)
        if mine.params.function.module.context is not theirs.params.function.module.context:
            return UPDATE_FUNCTION_CHANGED
    return UPDATE_SUCCESS


def exec_event_record_node_set_event(hGraphExec: object, hNode: object, event: object) -> None:
    _exec_kind(hGraphExec, hNode, NodeKind.EVENT_RECORD).params = graph_nodes.event_param(event)


def exec_event_wait_node_set_event(hGraphExec: object, hNode: object, event: object) -> None:
    _exec_kind(hGraphExec, hNode, NodeKind.WAIT_EVENT).params = graph_nodes.event_param(event)


def exec_child_graph_node_set_params(hGraphExec: object, hNode: object, childGraph: object) -> None:
    """The child's nodes take ``childGraph``'s parameters; its topology must be the same."""
    record = _exec(hGraphExec)
    copy = _exec_kind(hGraphExec, hNode, NodeKind.GRAPH)
    child = _graph(childGraph)
    assert isinstance(copy.params, GraphRecord)
    old = flatten(copy.params)
    if len(old) != len(flatten(child)) or [n.kind for n in copy.params.nodes] != [n.kind for n in child.nodes]:
        raise invalid("childGraph's topology differs from the child graph the executable holds")
    copy.params = clone_graph(child, False)
    record.steps = flatten(record.graph)


def node_set_enabled(hGraphExec: object, hNode: object, isEnabled: object) -> None:
    _exec_node(_exec(hGraphExec), hNode).enabled = integer(isEnabled, "isEnabled") != 0


def node_get_enabled(hGraphExec: object, hNode: object) -> int:
    return int(_exec_node(_exec(hGraphExec), hNode).enabled)


def exec_get_flags(hGraphExec: object) -> int:
    return _exec(hGraphExec).flags


def _exec_kind(hGraphExec: object, hNode: object, kind: NodeKind) -> Node:
    copy = _exec_node(_exec(hGraphExec), hNode)
    if copy.kind is not kind:
        raise invalid(f"hNode is a {copy.kind.name} node, not a {kind.name} node")
    return copy


def update_result(hGraphExec: object, hGraph: object) -> tuple[int, Node | None]:
    """(``CUgraphExecUpdateResult``, the node that differs) for updating ``hGraphExec`` from ``hGraph``;
    on success the executable now holds ``hGraph``'s parameters."""
    record, graph = _exec(hGraphExec), _graph(hGraph)
    old = record.graph.nodes
    if len(old) != len(graph.nodes):
        return UPDATE_TOPOLOGY_CHANGED, None
    index = {id(node): i for i, node in enumerate(graph.nodes)}
    old_index = {id(node): i for i, node in enumerate(old)}
    for mine, theirs in zip(old, graph.nodes):
        if sorted(old_index[id(d)] for d in mine.dependencies) != sorted(index[id(d)] for d in theirs.dependencies):
            return UPDATE_TOPOLOGY_CHANGED, theirs
        problem = _difference(mine, theirs)
        if problem != UPDATE_SUCCESS:
            return problem, theirs
    for mine, theirs in zip(old, graph.nodes):
        if mine.kind is NodeKind.GRAPH:
            assert isinstance(theirs.params, GraphRecord)
            mine.params = clone_graph(theirs.params, False)
        elif mine.kind not in (NodeKind.MEM_ALLOC, NodeKind.MEM_FREE):
            mine.params = theirs.params
        record.graph.clone_of[theirs.handle] = mine
    record.source = graph
    record.steps = flatten(record.graph)
    return UPDATE_SUCCESS, None


def exec_update(hGraphExec: object, hGraph: object) -> CUgraphExecUpdateResultInfo:
    result, node = update_result(hGraphExec, hGraph)
    if result != UPDATE_SUCCESS:
        raise CudaError(
            CUresult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
            f"the graph cannot update the executable (CUgraphExecUpdateResult {result})",
        )
    return CUgraphExecUpdateResultInfo(result=result, errorNode=CUgraphNode(node.handle) if node else None)
