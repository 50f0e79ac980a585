"""User objects: ``cuUserObjectCreate``/``Retain``/``Release``, ``cuGraphRetainUserObject``/
``cuGraphReleaseUserObject`` — reference-counted host resources whose destructor runs when the last
reference goes, references that graphs can own (cuda.core keeps a graph's attachments alive this way).

A graph's references (``GraphRecord.references``: object handle -> count) are copied with the graph
(``cuGraphClone``, ``cuGraphInstantiate``: the executable owns its own) and released when the graph
or executable is destroyed. The destructor (``CUhostFn``, given as a C address or a Python callable)
runs on the releasing thread once the count reaches zero (CUDA runs it on a thread of its own; the
object is gone either way).

Invariant: an object's count is the sum of its owners' references; it leaves the table exactly when
the count reaches 0, after which its handle is ``CUDA_ERROR_INVALID_VALUE``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ptx2gcn.runtime.driver.args import handle, integer, invalid
from ptx2gcn.runtime.driver.beside import PerDriver
from ptx2gcn.runtime.driver.graph_model import GraphRecord, graph_of
from ptx2gcn.runtime.driver.state import driver
from ptx2gcn.runtime.driver.stream import host_function
from ptx2gcn.runtime.driver.types import CUgraph, CUuserObject

NO_DESTRUCTOR_SYNC = 1
"""``CU_USER_OBJECT_NO_DESTRUCTOR_SYNC``: the only flag, and required."""
MOVE = 1
"""``CU_GRAPH_USER_OBJECT_MOVE``: the graph takes over the caller's references."""


@dataclass(eq=False)
class UserObject:
    handle: int
    pointer: object
    destroy: object
    count: int


@dataclass(eq=False)
class _Objects:
    objects: dict[int, UserObject] = field(default_factory=lambda: {})


_tables = PerDriver(_Objects)


def _objects() -> dict[int, UserObject]:
    return _tables().objects


def _object(value: object) -> UserObject:
    driver().initialised()
    found = _objects().get(handle(value, CUuserObject, "object"))
    if found is None:
        raise invalid(f"user object {value!r} does not exist (its last reference was released)")
    return found


def _count(value: object) -> int:
    number = integer(value, "count", 32)
    if number == 0:
        raise invalid("count must be at least 1")
    return number


def _release(obj: UserObject, count: int) -> None:
    obj.count -= count
    if obj.count <= 0:
        _objects().pop(obj.handle, None)
        host_function(obj.destroy, obj.pointer)()


def user_object_create(ptr: object, destroy: object, initialRefcount: object, flags: object) -> CUuserObject:
    driver().require_current()
    if integer(flags, "flags") != NO_DESTRUCTOR_SYNC:
        raise invalid("flags must be CU_USER_OBJECT_NO_DESTRUCTOR_SYNC")
    host_function(destroy, ptr)  # checks the destructor
    obj = UserObject(driver().new_handle(), ptr, destroy, _count(initialRefcount))
    _objects()[obj.handle] = obj
    return CUuserObject(obj.handle)


def user_object_retain(object: object, count: object) -> None:  # noqa: A002 - cuda.h's name
    _object(object).count += _count(count)


def user_object_release(object: object, count: object) -> None:  # noqa: A002
    obj = _object(object)
    number = _count(count)
    if number > obj.count:
        raise invalid(f"count {number} is more than the object's {obj.count} reference(s)")
    _release(obj, number)


def graph_retain_user_object(graph: object, object: object, count: object, flags: object) -> None:  # noqa: A002
    record = graph_of(handle(graph, CUgraph, "graph"))
    obj = _object(object)
    number = _count(count)
    which = integer(flags, "flags")
    if which not in (0, MOVE):
        raise invalid("flags must be 0 or CU_GRAPH_USER_OBJECT_MOVE")
    if which != MOVE:
        obj.count += number
    record.references[obj.handle] = record.references.get(obj.handle, 0) + number


def graph_release_user_object(graph: object, object: object, count: object) -> None:  # noqa: A002
    record = graph_of(handle(graph, CUgraph, "graph"))
    obj = _object(object)
    number = _count(count)
    held = record.references.get(obj.handle, 0)
    if number > held:
        raise invalid(f"the graph holds {held} reference(s) to the object, not {number}")
    record.references[obj.handle] = held - number
    if not record.references[obj.handle]:
        del record.references[obj.handle]
    _release(obj, number)


def copy_references(source: GraphRecord, target: GraphRecord) -> None:
    """``target`` (a clone or an executable's copy) owns references like ``source``'s."""
    for key, number in source.references.items():
        obj = _objects().get(key)
        if obj is not None:
            obj.count += number
            target.references[key] = number


def drop_references(graph: GraphRecord) -> None:
    """A destroyed graph or executable releases the references it owned."""
    for key, number in list(graph.references.items()):
        obj = _objects().get(key)
        if obj is not None:
            _release(obj, number)
    graph.references.clear()
