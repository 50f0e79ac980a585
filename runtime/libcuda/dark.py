"""Python handlers behind the private export tables (``export_tables.TABLES``).

What each slot does was learnt by observing the CUDA runtime (see ``export_tables``); the handlers
implement that behaviour on ptx2gcn's driver:

- ``CUDART_INTERFACE``: the runtime registers each fatbin its program embeds
  (``__cudaRegisterFatBinary``) with ``get_module_from_cubin*`` -> a ``CUmodule`` loaded from the
  fatbin wrapper (``cuModuleLoadFatBinary``); ``primary_context`` hands it the device's primary
  context (retained for the life of the process: the runtime never releases it through this slot);
  ``load_compilers`` loads NVIDIA's JIT compilers there -- here the compiler is ptx2gcn: success.
- ``TOOLS_RUNTIME_CALLBACK_HOOKS``: two zeroed buffers the runtime keeps tool state in.
- ``CONTEXT_LOCAL_STORAGE``: a per-context key -> value map (``ctx`` 0 = the current context); a
  missing key is ``CUDA_ERROR_INVALID_HANDLE``. Destructors are remembered, not called: ptx2gcn's
  primary contexts outlive the runtime.
- ``CONTEXT_CHECKS``: the runtime's sanity checks report "nothing set" (0).
- ``INTEGRITY_CHECK``: the runtime checks it talks to a genuine driver with a keyed digest of the
  process, thread, table addresses and device identities: HMAC (RFC 2104) over MD2 (RFC 1319) with a
  fixed key, as observed (``integrity_digest``).

Invariant: ``HANDLERS`` has exactly the ``"TABLE.slot"`` names of ``export_tables.DARK_SLOTS``; a
handler that returns a ``CUresult`` returns the driver's code for the case and never raises.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
import threading
from collections.abc import Callable, Sequence

from ptx2gcn.runtime.driver import device as _device
from ptx2gcn.runtime.driver import module as _module
from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.driver.errors import CudaError, entry
from ptx2gcn.runtime.driver.state import driver
from ptx2gcn.runtime.libcuda.export_tables import DARK_SLOTS
from ptx2gcn.runtime.libcuda.marshal import _U64, _run

Handler = Callable[..., int]


def _store(address: int, ctype: type, value: int) -> None:
    ctype.from_address(address).value = value


# -- CUDART_INTERFACE -------------------------------------------------------------------------------
def _module_from_wrapper(module: int, wrapper: int) -> int:
    if wrapper == 0:
        return int(CUresult.CUDA_ERROR_INVALID_VALUE)
    return _run(_module.module_load_fat_binary, [(module, _U64)], wrapper)


def _module_from_wrapper_ext(module: int, wrapper: int, arg3: int, arg4: int, arg5: int) -> int:
    # The extra arguments carry options nobody has seen set by a program; refuse rather than guess.
    if arg3 or arg4 or arg5:
        return int(CUresult.CUDA_ERROR_NOT_SUPPORTED)
    return _module_from_wrapper(module, wrapper)


def _primary_context(pctx: int, dev: int) -> int:
    return _run(_device.device_primary_ctx_retain, [(pctx, _U64)], dev)


# -- TOOLS_RUNTIME_CALLBACK_HOOKS -------------------------------------------------------------------
_BUFFERS = {"runtime_buffer1": (ctypes.c_uint32 * 1024)(), "runtime_buffer2": (ctypes.c_uint32 * 14)()}


def _buffer(name: str) -> Handler:
    def handler(pointer: int, size: int) -> int:
        buffer = _BUFFERS[name]
        if pointer:
            _store(pointer, ctypes.c_void_p, ctypes.addressof(buffer))
        if size:
            _store(size, _U64, len(buffer))
        return 0

    return handler


# -- CONTEXT_LOCAL_STORAGE --------------------------------------------------------------------------
_STORAGE: dict[tuple[int, int], tuple[int, int]] = {}
_STORAGE_LOCK = threading.Lock()


def _context(ctx: int) -> int:
    """``ctx``, or the current context's handle for 0; raises CudaError as the driver does."""
    state = driver()
    state.initialised()
    if ctx:
        return state.context(ctx).handle
    return state.require_current().handle


def _storage_put(ctx: int, key: int, value: int, destructor: int) -> int:
    def store() -> None:
        handle = _context(ctx)
        with _STORAGE_LOCK:
            _STORAGE[(handle, key)] = (value, destructor)

    return _run(store, [])


def _storage_delete(ctx: int, key: int) -> int:
    def remove() -> None:
        handle = _context(ctx)
        with _STORAGE_LOCK:
            _STORAGE.pop((handle, key), None)

    return _run(remove, [])


def _storage_get(value: int, ctx: int, key: int) -> int:
    def lookup() -> int:
        handle = _context(ctx)
        with _STORAGE_LOCK:
            found = _STORAGE.get((handle, key))
        if found is None:
            raise CudaError(CUresult.CUDA_ERROR_INVALID_HANDLE, "no context-local value under this key")
        return found[0]

    return _run(lookup, [(value, ctypes.c_void_p)])


# -- CONTEXT_CHECKS ---------------------------------------------------------------------------------
def _context_check(ctx: int, result1: int, result2: int) -> int:
    if result1:
        _store(result1, ctypes.c_uint32, 0)
    return 0


# -- INTEGRITY_CHECK --------------------------------------------------------------------------------
_MD2_S = bytes.fromhex(
    "292e43c9a2d87c013d3654a1ecf00613"
    "62a705f3c0c7738c98932bd9bc4c82ca"
    "1e9b573cfdd4e01667426f188a17e512"
    "be4ec4d6da9ede49a0fbf58ebb2fee7a"
    "a968799115b2073f94c210890b225f21"
    "807f5d9a5a903227353ecce7bff79703"
    "ff1930b348a5b5d1d75e922aac56aac6"
    "4fb838d296a47db676fc6be29c7404f1"
    "459d705964718720865bcf65e62da802"
    "1b6025adaeb0b9f61c46616934407e0f"
    "5547a323dd51af3ac35cf9cebac5ea26"
    "2c530d6e85288409d3dfcdf441814d52"
    "6adc37c86cc1abfa24e17b080cbdb14a"
    "7888958be363e86de9cbd5fe3b001d39"
    "f2efb70e6658d0e4a67772f8eb754b0a"
    "314450b48fed1f1adb998d339f118314"
)
"""MD2's substitution table S (RFC 1319, section 3.2: a permutation built from the digits of pi)."""


def md2(data: bytes) -> bytes:
    """The MD2 digest of ``data`` (RFC 1319): pad to 16 bytes, append the checksum, 18 rounds per block."""
    padding = 16 - len(data) % 16
    message = data + bytes([padding]) * padding
    checksum = bytearray(16)
    last = 0
    for start in range(0, len(message), 16):
        for i in range(16):
            checksum[i] ^= _MD2_S[message[start + i] ^ last]
            last = checksum[i]
    message += bytes(checksum)
    state = bytearray(48)
    for start in range(0, len(message), 16):
        for i in range(16):
            state[16 + i] = message[start + i]
            state[32 + i] = state[16 + i] ^ state[i]
        t = 0
        for round_ in range(18):
            for i in range(48):
                state[i] ^= _MD2_S[t]
                t = state[i]
            t = (t + round_) & 0xFF
    return bytes(state[:16])


def hmac_md2(key: bytes, message: bytes) -> bytes:
    """HMAC (RFC 2104) over MD2, whose block is 16 bytes; ``key`` is exactly one block."""
    if len(key) != 16:
        raise ValueError("the key must be one 16-byte MD2 block")
    inner = md2(bytes(b ^ 0x36 for b in key) + message)
    return md2(bytes(b ^ 0x5C for b in key) + inner)


_INTEGRITY_KEY = bytes.fromhex("146addae53a9a752aa0841360bf55a9f")
"""The fixed key of the runtime's integrity check (as observed; ZLUDA calls it pass 1's result)."""

def integrity_digest(
    version: int, unix_seconds: int, driver_version: int, process: int, thread: int,
    cudart_table: int, integrity_table: int, function: int, devices: Sequence[tuple[bytes, int, int, int]],
) -> tuple[int, int]:  # fmt: skip
    """The two 64-bit words the runtime expects from ``integrity_check``.

    Runtimes whose ``version`` ends in 0 or 1 expect fixed answers; later ones a keyed digest of
    (driver version, version, process id, thread (``pthread_self``), the CUDART_INTERFACE and
    INTEGRITY_CHECK table addresses, this function's address, the time they passed) followed by each
    device's (UUID, PCI domain, bus, device), in the C layout the runtime hashes."""
    if version % 10 == 0:
        return 0x3341181C03CB675C, 0x8ED383AA1F4CD1E8
    if version % 10 == 1:
        return 0x1841181C03CB675C, 0x8ED383AA1F4CD1E8
    message = struct.pack(
        "<IIIIQQQQ", driver_version & 0xFFFFFFFF, version & 0xFFFFFFFF, process & 0xFFFFFFFF,
        thread & 0xFFFFFFFF, cudart_table, integrity_table, function, unix_seconds & (2**64 - 1),
    )  # fmt: skip
    for uuid_bytes, domain, bus, device in devices:
        message += uuid_bytes + struct.pack("<iii", domain, bus, device)
    digest = hmac_md2(_INTEGRITY_KEY, message)
    low, high = struct.unpack("<QQ", digest)
    return low, high


_TABLE_ADDRESS: dict[str, int] = {}


def _integrity_check(version: int, unix_seconds: int, result: int) -> int:
    if result == 0:
        return int(CUresult.CUDA_ERROR_INVALID_VALUE)

    def digest() -> tuple[int, int]:
        from ptx2gcn.runtime.driver.enums import CUdevice_attribute as A

        devices = []
        for ordinal in range(_device.device_get_count()):
            ident = bytes(_device.device_get_uuid(ordinal).bytes)
            domain, bus, dev = (
                _device.device_get_attribute(attribute, ordinal)
                for attribute in (A.CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, A.CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
                                  A.CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)
            )  # fmt: skip
            devices.append((ident, domain, bus, dev))
        integrity = _TABLE_ADDRESS["INTEGRITY_CHECK"]
        function = ctypes.c_void_p.from_address(integrity + 8).value or 0
        return integrity_digest(
            version, unix_seconds, _device.driver_get_version(), os.getpid(), threading.get_ident(),
            _TABLE_ADDRESS["CUDART_INTERFACE"], integrity, function, devices,
        )  # fmt: skip

    outcome = entry(digest, 1)()
    if outcome[0] == CUresult.CUDA_SUCCESS:
        low, high = outcome[1]
        (ctypes.c_uint64 * 2).from_address(result)[:] = [low, high]
    return int(outcome[0])


HANDLERS: dict[str, Handler] = {
    "CUDART_INTERFACE.get_module_from_cubin": _module_from_wrapper,
    "CUDART_INTERFACE.primary_context": _primary_context,
    "CUDART_INTERFACE.get_module_from_cubin_ext1": _module_from_wrapper_ext,
    "CUDART_INTERFACE.interface_fn7": lambda arg1: 0,
    "CUDART_INTERFACE.get_module_from_cubin_ext2": lambda header, module, a3, a4, a5: _module_from_wrapper_ext(
        module, header, a3, a4, a5
    ),
    "CUDART_INTERFACE.load_compilers": lambda: 0,
    "TOOLS_RUNTIME_CALLBACK_HOOKS.runtime_buffer1": _buffer("runtime_buffer1"),
    "TOOLS_RUNTIME_CALLBACK_HOOKS.runtime_buffer2": _buffer("runtime_buffer2"),
    "CONTEXT_LOCAL_STORAGE.put": _storage_put,
    "CONTEXT_LOCAL_STORAGE.delete": _storage_delete,
    "CONTEXT_LOCAL_STORAGE.get": _storage_get,
    "CONTEXT_CHECKS.context_check": _context_check,
    "CONTEXT_CHECKS.check_fn3": lambda: 0,
    "INTEGRITY_CHECK.integrity_check": _integrity_check,
}


def slot_names() -> list[str]:
    return [f"{table.name}.{slot.name}" for table, slot in DARK_SLOTS]


_RESTYPES: dict[str, type | None] = {"CUresult": ctypes.c_int, "void": None, "u32": ctypes.c_uint32}
_KEEP: list[object] = []


def install(dark_table: int, get_export_table: int, guard: Callable[[str, Handler], Handler]) -> None:
    """Fill the shim's ``p2g_dark_slots`` (at ``dark_table``) with guarded callbacks, and remember
    where the shim's tables are (``get_export_table`` is the shim's ``cuGetExportTable``): the
    integrity digest hashes those addresses."""
    from ptx2gcn.runtime.libcuda.abi import KINDS
    from ptx2gcn.runtime.libcuda.export_tables import TABLES

    slots = (ctypes.c_void_p * max(len(DARK_SLOTS), 1)).from_address(dark_table)
    for index, (table, slot) in enumerate(DARK_SLOTS):
        name = f"{table.name}.{slot.name}"
        prototype = ctypes.CFUNCTYPE(_RESTYPES[slot.returns], *(KINDS[kind][1] for kind, _ in slot.params))
        guarded = guard(name, HANDLERS[name])
        callback = prototype(_quiet(guarded) if slot.returns == "void" else guarded)
        _KEEP.append(callback)
        slots[index] = ctypes.cast(callback, ctypes.c_void_p).value
    if get_export_table:
        lookup = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(get_export_table)
        for table in TABLES:
            pointer = ctypes.c_void_p()
            if lookup(ctypes.addressof(pointer), table.uuid) == 0 and pointer.value:
                _TABLE_ADDRESS[table.name] = pointer.value


def tracing() -> bool:
    """``PTX2GCN_LIBCUDA_TRACE`` is set: every call through the shim is printed with its result."""
    return os.environ.get("PTX2GCN_LIBCUDA_TRACE", "0") not in ("", "0")


def traced(name: str, handler: Handler) -> Handler:
    """``handler``, printing each call, its integer arguments and its result on stderr."""

    def call(*args: int) -> int:
        result = handler(*args)
        print(f"ptx2gcn libcuda: {name}({', '.join(hex(a) for a in args)}) = {result}", file=sys.stderr)
        return result

    return call


def _quiet(handler: Handler) -> Callable[..., None]:
    """A handler for a slot that returns ``void``: the C caller gets nothing back."""

    def call(*args: int) -> None:
        handler(*args)

    return call
