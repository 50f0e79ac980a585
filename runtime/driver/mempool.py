"""Stream-ordered memory pools: ``cuMemAllocAsync``/``cuMemFreeAsync``/``cuMemAllocFromPoolAsync``,
``cuDeviceGetDefaultMemPool``/``GetMemPool``/``SetMemPool``, ``cuMemPoolCreate``/``Destroy``/
``SetAttribute``/``GetAttribute``/``TrimTo``.

A pool holds blocks from the backend (``reserved``); each is either handed out (``used``) or cached
for reuse by a later allocation of the same rounded size. An allocation is also a block of the
current context (``Context.allocations``), so copies, fills and launches accept it. Work here is
complete when it is enqueued, so every freed block is at once reusable, and the release CUDA makes
at the next synchronisation (cached memory above ``CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`` goes back to
the device) happens at the free. During stream capture ``cuMemAllocAsync`` adds a mem-alloc node
whose block is reserved at capture (its address is fixed for the graph's life, as in CUDA) and
returned to the pool when the last graph or executable graph holding it is destroyed;
``cuMemFreeAsync`` adds a mem-free node.

Invariant: ``reserved == used + cached`` bytes of every pool; a block is in at most one of a pool's
``allocations`` and cache; the high-water marks are never below the current values.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field

from ptx2gcn.runtime.driver import capture
from ptx2gcn.runtime.driver.args import handle, integer, invalid
from ptx2gcn.runtime.driver.beside import PerDriver
from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.graph_model import NodeKind, tables
from ptx2gcn.runtime.driver.memory import FREE_HOOKS, backend_call, host_alloc, unmap_host
from ptx2gcn.runtime.driver.state import Context, driver
from ptx2gcn.runtime.driver.types import CUdevice, CUdeviceptr, CUmemoryPool

GRANULE = 512
"""Allocations are rounded up to this many bytes (the alignment ``cuMemAlloc`` gives)."""

FOLLOW_EVENTS, OPPORTUNISTIC, INTERNAL_DEPENDENCIES = 1, 2, 3
RELEASE_THRESHOLD, RESERVED_CURRENT, RESERVED_HIGH, USED_CURRENT, USED_HIGH = 4, 5, 6, 7, 8
"""``CUmemPool_attribute`` values."""
_FLAG_ATTRIBUTES = (FOLLOW_EVENTS, OPPORTUNISTIC, INTERNAL_DEPENDENCIES)
ALLOCATION_PINNED, ALLOCATION_MANAGED = 1, 2
"""``CUmemAllocationType`` values (``MANAGED``: CUDA 13)."""
LOCATION_NONE, LOCATION_DEVICE = 0, 1
LOCATIONS_HOST = (2, 3, 4)
"""``CUmemLocationType``: ``HOST``, ``HOST_NUMA``, ``HOST_NUMA_CURRENT``."""
CU_MEMHOSTALLOC_DEVICEMAP, CU_MEM_ATTACH_GLOBAL = 2, 1


@dataclass(eq=False)
class PoolRecord:
    handle: int
    device: int
    max_size: int = 0
    """``CUmemPoolProps.maxSize`` (0: no limit beyond the device's memory)."""
    flags: dict[int, int] = field(default_factory=lambda: dict.fromkeys(_FLAG_ATTRIBUTES, 1))
    release_threshold: int = 0
    allocations: dict[int, tuple[int, Context]] = field(default_factory=lambda: {})
    """Address -> (rounded size, context whose allocation table lists it) of each handed-out block."""
    cache: dict[int, list[tuple[int, Context]]] = field(default_factory=lambda: {})
    """Rounded size -> freed blocks (address, context) kept for reuse."""
    reserved: int = 0
    used: int = 0
    reserved_high: int = 0
    used_high: int = 0
    default: bool = False
    kind: str = "device"
    """Where its memory lives: ``device``; ``host`` (pinned host memory, ``CU_MEM_LOCATION_TYPE_HOST*``);
    ``managed`` (``CU_MEM_ALLOCATION_TYPE_MANAGED``). The last two are host memory mapped at its own
    address, as ``cuMemHostAlloc``/``cuMemAllocManaged`` give, and serve any device (``device`` -1)."""


@dataclass(eq=False)
class _Pools:
    pools: dict[int, PoolRecord] = field(default_factory=lambda: {})
    defaults: dict[int, PoolRecord] = field(default_factory=lambda: {})
    current: dict[int, PoolRecord] = field(default_factory=lambda: {})
    """Device ordinal -> the pool ``cuMemAllocAsync`` uses (``cuDeviceSetMemPool``)."""


_pools = PerDriver(_Pools)


def _pool(value: object) -> PoolRecord:
    found = _pools().pools.get(handle(value, CUmemoryPool, "pool"))
    if found is None:
        raise invalid(f"pool {value!r} does not exist (never created, or destroyed)")
    return found


def _default(device: int) -> PoolRecord:
    pools = _pools()
    if device not in pools.defaults:
        pool = PoolRecord(driver().new_handle(), device, default=True)
        pools.pools[pool.handle] = pools.defaults[device] = pool
    return pools.defaults[device]


def _device(dev: object) -> int:
    state = driver()
    state.initialised()
    return state.check_device(handle(dev, CUdevice, "dev"))


# -- allocation -----------------------------------------------------------------------------------------
def allocate(pool: PoolRecord, size: int) -> int:
    """A block of at least ``size`` bytes from ``pool``, in the current context."""
    context = driver().require_current()
    if pool.kind == "device" and pool.device != context.device:
        raise invalid(f"the pool belongs to device {pool.device}; the current context is on device {context.device}")
    if size <= 0:
        raise invalid("bytesize must be greater than 0")
    rounded = -(-size // GRANULE) * GRANULE
    fits = sorted(s for s, blocks in pool.cache.items() if rounded <= s <= 2 * rounded and any(
        entry[1] is context for entry in blocks))  # fmt: skip
    if fits:
        rounded = fits[0]  # the smallest cached block that fits (wasting at most half of it)
        entry = next(entry for entry in pool.cache[rounded] if entry[1] is context)
        pool.cache[rounded].remove(entry)
        address = entry[0]
    else:
        limit = pool.max_size or context.backend.properties.total_memory
        if pool.reserved + rounded > limit:
            raise CudaError(CUresult.CUDA_ERROR_OUT_OF_MEMORY, f"{size} bytes requested; the pool allows {limit}")
        address = _new_block(pool, context, rounded)
        pool.reserved += rounded
        pool.reserved_high = max(pool.reserved_high, pool.reserved)
    pool.allocations[address] = (rounded, context)
    if pool.kind == "device":
        context.allocations[address] = rounded  # host and managed blocks are the context's mapped memory
    pool.used += rounded
    pool.used_high = max(pool.used_high, pool.used)
    return address


def _new_block(pool: PoolRecord, context: Context, rounded: int) -> int:
    if pool.kind == "host":
        return host_alloc(rounded, CU_MEMHOSTALLOC_DEVICEMAP)
    if pool.kind == "managed":
        return host_alloc(rounded, CU_MEM_ATTACH_GLOBAL, "managed")
    return int(backend_call(lambda: context.backend.malloc(rounded)))


def _drop_block(pool: PoolRecord, context: Context, address: int) -> None:
    if pool.kind == "device":
        backend_call(lambda: context.backend.free(address))
    elif address in context.mapped:
        unmap_host(context, address)
    else:
        context.host_blocks.pop(address, None)


def release(pool: PoolRecord, address: int) -> None:
    """Return a handed-out block to ``pool``'s cache, then release cached memory above the threshold."""
    rounded, context = pool.allocations.pop(address)
    context.allocations.pop(address, None)
    pool.used -= rounded
    pool.cache.setdefault(rounded, []).append((address, context))
    _trim(pool, pool.release_threshold)


def _trim(pool: PoolRecord, keep: int) -> None:
    for rounded in sorted(pool.cache, reverse=True):
        blocks = pool.cache[rounded]
        while blocks and pool.reserved > keep:
            address, context = blocks.pop()
            if context.handle in driver().contexts:
                _drop_block(pool, context, address)
            pool.reserved -= rounded


def owner(address: int) -> PoolRecord | None:
    for pool in _pools().pools.values():
        if address in pool.allocations:
            return pool
    return None


def _free_hook(context: Context, address: int) -> bool:
    """``cuMemFree`` of a pool block: returned to its pool (True); False when it is not one."""
    pool = owner(address)
    if pool is None:
        return False
    release(pool, address)
    return True


FREE_HOOKS.append(_free_hook)


def _alloc(pool: PoolRecord, bytesize: object, hStream: object) -> CUdeviceptr:
    size = integer(bytesize, "bytesize", 64)
    active = capture.capture_of(hStream)
    address = allocate(pool, size)
    if active is not None:
        block = GraphBlock(pool, address, size)
        capture.record(hStream, NodeKind.MEM_ALLOC, lambda: block)
        active.graph.blocks.append(block)
        block.owners += 1
    return CUdeviceptr(address)


def mem_alloc_async(bytesize: object, hStream: object) -> CUdeviceptr:
    return _alloc(current_pool(driver().require_current().device), bytesize, hStream)


def mem_alloc_from_pool_async(bytesize: object, pool: object, hStream: object) -> CUdeviceptr:
    return _alloc(_pool(pool), bytesize, hStream)


def mem_free_async(dptr: object, hStream: object) -> None:
    address = handle(dptr, CUdeviceptr, "dptr")
    driver().require_current()
    pool = owner(address)
    if pool is None:
        raise invalid(f"dptr 0x{address:x} was not allocated by cuMemAllocAsync (or was freed already)")
    if capture.record(hStream, NodeKind.MEM_FREE, lambda: address) is None:
        release(pool, address)


@dataclass(eq=False)
class GraphBlock:
    """A block a mem-alloc node owns: released when its last graph or executable graph goes."""

    pool: PoolRecord
    address: int
    size: int
    owners: int = 0

    def drop(self) -> None:
        self.owners -= 1
        if self.owners == 0 and self.address in self.pool.allocations:
            release(self.pool, self.address)


def graph_block(graph_blocks: list[GraphBlock], nodeParams: object) -> GraphBlock:
    """``cuGraphAddMemAllocNode``: a block of ``nodeParams.bytesize`` bytes on ``poolProps.location``'s
    device, owned by the graph from now on; its address is written to ``nodeParams.dptr``."""
    if nodeParams is None:
        raise invalid("nodeParams is NULL")
    props = getattr(nodeParams, "poolProps", None)
    location = getattr(props, "location", None)
    if integer(getattr(location, "type", 1), "poolProps.location.type") != 1:
        raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, "graph allocations live on a device")
    if integer(getattr(nodeParams, "accessDescCount", 0) or 0, "accessDescCount", 64):
        raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, "peer access descriptors are not supported")
    device = _device(integer(getattr(location, "id", 0), "poolProps.location.id", 32, signed=True))
    size = integer(getattr(nodeParams, "bytesize", 0), "bytesize", 64)
    block = GraphBlock(current_pool(device), 0, size, owners=1)
    block.address = allocate(block.pool, size)
    graph_blocks.append(block)
    # an output field, as in CUDA: a C struct's integer, or a CUdeviceptr as cuda-python's object holds
    nodeParams.dptr = block.address if isinstance(nodeParams, ctypes.Structure) else CUdeviceptr(block.address)  # type: ignore[attr-defined]
    return block


def free_node(address: int) -> None:
    """What a mem-free node does: a block of a mem-alloc node stays the graph's; any other is released."""
    pool = owner(address)
    if pool is None:
        raise invalid(f"a mem-free node frees 0x{address:x}, which is not allocated")
    if not any(block.address == address for block in _graph_blocks()):
        release(pool, address)


def _graph_blocks() -> list[GraphBlock]:
    found = tables()
    graphs = [*found.graphs.values(), *(getattr(e, "graph", None) for e in found.execs.values())]
    return [block for graph in graphs if graph is not None for block in graph.blocks]  # type: ignore[misc]


# -- pools ----------------------------------------------------------------------------------------------
def device_get_default_mem_pool(dev: object) -> CUmemoryPool:
    return CUmemoryPool(_default(_device(dev)).handle)


def current_pool(device: int) -> PoolRecord:
    return _pools().current.get(device) or _default(device)


def device_get_mem_pool(dev: object) -> CUmemoryPool:
    return CUmemoryPool(current_pool(_device(dev)).handle)


def device_set_mem_pool(dev: object, pool: object) -> None:
    device = _device(dev)
    record = _pool(pool)
    if record.device != device:
        raise invalid(f"the pool belongs to device {record.device}, not {device}")
    _pools().current[device] = record


def mem_pool_create(poolProps: object) -> CUmemoryPool:
    """A device pool (``CU_MEM_ALLOCATION_TYPE_PINNED`` on ``CU_MEM_LOCATION_TYPE_DEVICE``), a pinned
    host pool (the same type on a ``HOST``/``HOST_NUMA``/``HOST_NUMA_CURRENT`` location) or a managed
    pool (``CU_MEM_ALLOCATION_TYPE_MANAGED``, CUDA 13; any location is a preference only)."""
    if poolProps is None:
        raise invalid("poolProps is NULL")
    alloc_type = integer(getattr(poolProps, "allocType", 0), "poolProps.allocType")
    if alloc_type not in (ALLOCATION_PINNED, ALLOCATION_MANAGED):
        raise invalid(f"poolProps.allocType = {alloc_type}: CU_MEM_ALLOCATION_TYPE_PINNED (1) or _MANAGED (2)")
    if integer(getattr(poolProps, "handleTypes", 0), "poolProps.handleTypes"):
        raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, "exportable pools (handleTypes) are not supported")
    location = getattr(poolProps, "location", None)
    where = integer(getattr(location, "type", 0), "poolProps.location.type")
    if where not in (LOCATION_NONE, LOCATION_DEVICE, *LOCATIONS_HOST):
        raise invalid(f"poolProps.location.type = {where} is not a CUmemLocationType")
    max_size = integer(getattr(poolProps, "maxSize", 0), "maxSize", 64)
    if alloc_type == ALLOCATION_MANAGED or where in LOCATIONS_HOST:
        kind = "managed" if alloc_type == ALLOCATION_MANAGED else "host"
        pool = PoolRecord(driver().new_handle(), -1, max_size, kind=kind)
    elif where == LOCATION_DEVICE:
        device = _device(integer(getattr(location, "id", 0), "poolProps.location.id", 32, signed=True))
        pool = PoolRecord(driver().new_handle(), device, max_size)
    else:
        raise invalid("a pinned pool needs a location: CU_MEM_LOCATION_TYPE_DEVICE or a host location")
    _pools().pools[pool.handle] = pool
    return CUmemoryPool(pool.handle)


def mem_pool_destroy(pool: object) -> None:
    record = _pool(pool)
    pools = _pools()
    if record.default:
        raise invalid("a device's default pool cannot be destroyed")
    if record.allocations:
        count = len(record.allocations)
        raise CudaError(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"the pool still has {count} allocation(s)")
    _trim(record, 0)
    del pools.pools[record.handle]
    for device, chosen in list(pools.current.items()):
        if chosen is record:
            del pools.current[device]


def mem_pool_trim_to(pool: object, minBytesToKeep: object) -> None:
    record = _pool(pool)
    _trim(record, integer(minBytesToKeep, "minBytesToKeep", 64))


def mem_pool_set_attribute(pool: object, attr: object, value: object) -> None:
    record = _pool(pool)
    which = integer(attr, "attr", 32, signed=True)
    number = integer(getattr(value, "value", value), "value", 64)
    if which in _FLAG_ATTRIBUTES:
        record.flags[which] = 1 if number else 0
    elif which == RELEASE_THRESHOLD:
        record.release_threshold = number
        _trim(record, number)
    elif which in (RESERVED_HIGH, USED_HIGH):
        if number != 0:
            raise invalid("a high-water mark can only be reset, to 0")
        if which == RESERVED_HIGH:
            record.reserved_high = record.reserved
        else:
            record.used_high = record.used
    else:
        raise invalid(f"attr = {which} is not a settable CUmemPool_attribute")


def mem_pool_get_attribute(pool: object, attr: object) -> int:
    record = _pool(pool)
    which = integer(attr, "attr", 32, signed=True)
    values = {
        RELEASE_THRESHOLD: record.release_threshold, RESERVED_CURRENT: record.reserved,
        RESERVED_HIGH: record.reserved_high, USED_CURRENT: record.used, USED_HIGH: record.used_high,
        **record.flags,
    }  # fmt: skip
    if which not in values:
        raise invalid(f"attr = {which} is not a CUmemPool_attribute")
    return values[which]


def is_flag_attribute(attr: int) -> bool:
    """Whether the attribute's value is a C ``int`` (else a ``cuuint64_t``)."""
    return attr in _FLAG_ATTRIBUTES
