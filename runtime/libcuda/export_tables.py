"""The driver's private export tables (``cuGetExportTable``), as data.

The CUDA runtime (``libcudart``, also linked statically into every nvcc-built executable) reaches
the driver through ``cuGetProcAddress`` for the documented entry points and through
``cuGetExportTable(&table, &uuid)`` for undocumented ones: a table is an array of function pointers
(often with its own size in bytes in slot 0) named by a 16-byte UUID. NVIDIA does not document them;
what is known comes from observing the runtime: ZLUDA's ``dark_api`` crate (vosen/ZLUDA,
``dark_api/src/lib.rs``, ``zluda/src/impl/driver.rs``) names the tables and the slots the runtime
calls, and ``PTX2GCN_LIBCUDA_TRACE=1`` prints every table and slot a program asks ptx2gcn for. The
rows below were written from those observations, not copied (docs/libcuda.md, "CUDA executables").

Each ``Table`` becomes, in the shim's C text (``csource``), a static array of ``length`` pointers:
slot 0 holds the table's size in bytes where ``sized``; each ``Slot`` is a C function that forwards
to a Python handler (``dark.HANDLERS[f"{table}.{slot}"]``) through ``p2g_dark_slots``, like the
exported entry points do; every other index holds a C function that prints one line naming the
table and index to stderr and returns ``CUDA_ERROR_NOT_SUPPORTED``, so an unknown call is visible
instead of a jump through NULL.

Invariant: UUIDs are unique; slot indices lie inside their table and are unique per table; slot 0 of
a sized table is never a function; ``DARK_SLOTS[i]`` is the handler behind ``p2g_dark_slots[i]``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

RETURNS = {"CUresult": "int", "void": "void", "u32": "unsigned int"}
"""Return kind -> C return type of the slot function."""


@dataclass(frozen=True)
class Slot:
    index: int
    name: str
    params: tuple[tuple[str, str], ...]
    """(kind, name) per C parameter, with the kinds of ``abi.KINDS``."""
    returns: str = "CUresult"


@dataclass(frozen=True)
class Table:
    name: str
    uuid: bytes
    length: int
    sized: bool
    slots: tuple[Slot, ...]


def _slot(index: int, name: str, params: str = "", returns: str = "CUresult") -> Slot:
    pairs = tuple((p.split()[0], p.split()[1]) for p in params.split(",") if p.strip())
    return Slot(index, name, pairs, returns)


def _uuid(text: str) -> bytes:
    """The table id as the runtime passes it: the bytes of the UUID as written, in order."""
    return uuid.UUID(text).bytes


TABLES: tuple[Table, ...] = (
    Table("CUDART_INTERFACE", _uuid("6BD5FB6C-5BF4-E74A-8987-D93912FD9DF9"), 13, True, (
        _slot(1, "get_module_from_cubin", "ptr module, ptr fatbinc_wrapper"),
        _slot(2, "primary_context", "ptr pctx, i32 dev"),
        _slot(6, "get_module_from_cubin_ext1", "ptr module, ptr fatbinc_wrapper, ptr arg3, ptr arg4, u32 arg5"),
        _slot(7, "interface_fn7", "u64 arg1", "void"),
        _slot(8, "get_module_from_cubin_ext2", "ptr fatbin_header, ptr module, ptr arg3, ptr arg4, u32 arg5"),
        _slot(12, "load_compilers"),
    )),
    Table("TOOLS_TLS", _uuid("42D85A81-23F6-CB47-8298-F6E78A3AECDC"), 4, True, ()),
    Table("TOOLS_RUNTIME_CALLBACK_HOOKS", _uuid("A094798C-2E74-2E74-93F2-0800200C0A66"), 7, True, (
        _slot(2, "runtime_buffer1", "ptr ptr, ptr size", "void"),
        _slot(6, "runtime_buffer2", "ptr ptr, ptr size", "void"),
    )),
    Table("CONTEXT_LOCAL_STORAGE", _uuid("C693336E-1121-DF11-A8C3-68F355D89593"), 4, False, (
        _slot(0, "put", "ptr context, ptr key, ptr value, ptr destructor"),
        _slot(1, "delete", "ptr context, ptr key"),
        _slot(2, "get", "ptr value, ptr context, ptr key"),
    )),
    Table("CONTEXT_CHECKS", _uuid("263E8860-7CD2-6143-92F6-BBD5006DFA7E"), 4, True, (
        _slot(2, "context_check", "ptr context, ptr result1, ptr result2"),
        _slot(3, "check_fn3", "", "u32"),
    )),
    Table("INTEGRITY_CHECK", _uuid("D4082055-BDE6-704B-8D34-BA123C66E1F2"), 3, True, (
        _slot(1, "integrity_check", "u32 version, u64 unix_seconds, ptr result"),
    )),
    # Asked for by CUDA 13.5's runtime (cuda-bindings 13.5) in cudaSetDevice, which fails with
    # cudaErrorInvalidValue without it; no slot of it was seen called (examples of cuda-python).
    # Public notes on the driver's tables (found by its UUID) put a device getter at slot 3 and a
    # context-id getter at slot 4; 40 slots reach the highest index they mention (byte 0x138).
    Table("CONTEXT_IDENTITY", _uuid("21318C60-9714-3248-8CA6-41FF7324C8F2"), 40, True, ()),
)  # fmt: skip

DARK_SLOTS: tuple[tuple[Table, Slot], ...] = tuple((table, slot) for table in TABLES for slot in table.slots)
"""Every Python-backed slot, in ``p2g_dark_slots`` order."""


def _check() -> None:
    seen: set[bytes] = set()
    for table in TABLES:
        if table.uuid in seen:
            raise ValueError(f"{table.name}: UUID used twice")
        seen.add(table.uuid)
        indices = [slot.index for slot in table.slots]
        if len(set(indices)) != len(indices) or any(not 0 <= i < table.length for i in indices):
            raise ValueError(f"{table.name}: slot indices {indices} out of range or repeated")
        if table.sized and 0 in indices:
            raise ValueError(f"{table.name}: slot 0 holds the size")
        for slot in table.slots:
            if slot.returns not in RETURNS:
                raise ValueError(f"{table.name}.{slot.name}: unknown return kind {slot.returns}")


_check()
