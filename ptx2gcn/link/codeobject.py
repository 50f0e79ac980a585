"""HSA code object (HSACO, code object v5) reader: metadata note and kernel descriptors, typed.

Invariant: ``read_code_object(data)`` either returns a ``CodeObject`` whose every kernel has its
metadata (``KernelMeta``: arguments with offsets/sizes/value kinds, hidden arguments included, LDS and
scratch sizes, wavefront size, register counts) *and* its 64-byte kernel descriptor decoded field by
field (``KernelDescriptor``, layout of LLVM AMDGPUUsage "Kernel Descriptor" / ``docs/launch-abi.md``,
"The code object"), or raises ``CodeObjectError`` saying what is wrong. It never executes
or relocates anything; the emulator loader, the runtime and the compiler's tests share it.
It also defines the layout of the records a running kernel leaves in its code object's exported
data for the host (``ASSERT_RECORD_SYMBOL``: CUDA ``assert`` failures, decoded here;
``PRINTF_CONTROL_SYMBOL``: the device ``printf`` FIFO, formatted by ``ptx2gcn.runtime.printf``).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, NamedTuple

import msgpack

from ptx2gcn.diagnostics import Diagnostic, Ptx2GcnError, Severity, Span
from ptx2gcn.link.elf import EM_AMDGPU, NT_AMDGPU_METADATA, ElfError, ElfFile

KERNEL_DESCRIPTOR_SIZE = 64
_KD = struct.Struct("<IIII q 20s IIIHHI")


class CodeObjectError(Ptx2GcnError):
    """The bytes are not a usable AMDGPU code object (reported against the code object's name)."""

    @classmethod
    def make(cls, name: str, message: str) -> CodeObjectError:
        return cls(Diagnostic(Severity.ERROR, Span.unknown(name), message))


# The decoded records are NamedTuples: immutable, compared and hashed by value like frozen dataclasses,
# and several times cheaper to define (every `ptx2gcn compile` reads its code object back with this
# module; see ``ptx2gcn.link.elf``). Nothing may rely on their being tuples, nor compare records of different
# kinds (``Rsrc1(x) == Rsrc2(x)`` would hold).


def _bits(value: int, low: int, width: int) -> int:
    return (value >> low) & ((1 << width) - 1)


class Rsrc1(NamedTuple):
    """COMPUTE_PGM_RSRC1 (gfx9 view): the wave's initial MODE comes from here."""

    raw: int

    @property
    def granulated_workitem_vgpr_count(self) -> int:
        return _bits(self.raw, 0, 6)

    @property
    def granulated_wavefront_sgpr_count(self) -> int:
        return _bits(self.raw, 6, 4)

    @property
    def priority(self) -> int:
        return _bits(self.raw, 10, 2)

    @property
    def float_round_mode_32(self) -> int:
        return _bits(self.raw, 12, 2)

    @property
    def float_round_mode_16_64(self) -> int:
        return _bits(self.raw, 14, 2)

    @property
    def float_denorm_mode_32(self) -> int:
        return _bits(self.raw, 16, 2)

    @property
    def float_denorm_mode_16_64(self) -> int:
        return _bits(self.raw, 18, 2)

    @property
    def enable_dx10_clamp(self) -> bool:
        return bool(_bits(self.raw, 21, 1))

    @property
    def enable_ieee_mode(self) -> bool:
        return bool(_bits(self.raw, 23, 1))

    @property
    def fp16_ovfl(self) -> bool:
        return bool(_bits(self.raw, 26, 1))


class Rsrc2(NamedTuple):
    """COMPUTE_PGM_RSRC2: which system SGPRs and work-item id VGPRs the kernel gets."""

    raw: int

    @property
    def enable_private_segment(self) -> bool:
        return bool(_bits(self.raw, 0, 1))

    @property
    def user_sgpr_count(self) -> int:
        return _bits(self.raw, 1, 5)

    @property
    def enable_trap_handler(self) -> bool:
        return bool(_bits(self.raw, 6, 1))

    @property
    def enable_sgpr_workgroup_id_x(self) -> bool:
        return bool(_bits(self.raw, 7, 1))

    @property
    def enable_sgpr_workgroup_id_y(self) -> bool:
        return bool(_bits(self.raw, 8, 1))

    @property
    def enable_sgpr_workgroup_id_z(self) -> bool:
        return bool(_bits(self.raw, 9, 1))

    @property
    def enable_sgpr_workgroup_info(self) -> bool:
        return bool(_bits(self.raw, 10, 1))

    @property
    def enable_vgpr_workitem_id(self) -> int:
        return _bits(self.raw, 11, 2)

    @property
    def granulated_lds_size(self) -> int:
        return _bits(self.raw, 15, 9)

    @property
    def exception_enables(self) -> int:
        return _bits(self.raw, 24, 7)


class Rsrc3(NamedTuple):
    """COMPUTE_PGM_RSRC3 (gfx90a/gfx942)."""

    raw: int

    @property
    def accum_offset(self) -> int:
        """First AGPR in the unified register file: field value n means 4(n+1)."""
        return 4 * (_bits(self.raw, 0, 6) + 1)

    @property
    def tg_split(self) -> bool:
        return bool(_bits(self.raw, 16, 1))


class KernelDescriptor(NamedTuple):
    """The 64-byte kernel descriptor, decoded field by field (AMDGPUUsage "Kernel Descriptor")."""

    group_segment_fixed_size: int
    private_segment_fixed_size: int
    kernarg_size: int
    kernel_code_entry_byte_offset: int
    rsrc3: Rsrc3
    rsrc1: Rsrc1
    rsrc2: Rsrc2
    kernel_code_properties: int
    kernarg_preload: int

    @staticmethod
    def decode(raw: bytes) -> KernelDescriptor:
        if len(raw) != KERNEL_DESCRIPTOR_SIZE:
            raise ValueError(f"kernel descriptor must be {KERNEL_DESCRIPTOR_SIZE} bytes, got {len(raw)}")
        (group, private, kernarg, _r0, entry, _r1, rsrc3, rsrc1, rsrc2, props, preload, _r2) = _KD.unpack(raw)
        return KernelDescriptor(
            group, private, kernarg, entry, Rsrc3(rsrc3), Rsrc1(rsrc1), Rsrc2(rsrc2), props, preload
        )

    def _prop(self, bit: int) -> bool:
        return bool(self.kernel_code_properties >> bit & 1)

    @property
    def enable_sgpr_private_segment_buffer(self) -> bool:
        return self._prop(0)

    @property
    def enable_sgpr_dispatch_ptr(self) -> bool:
        return self._prop(1)

    @property
    def enable_sgpr_queue_ptr(self) -> bool:
        return self._prop(2)

    @property
    def enable_sgpr_kernarg_segment_ptr(self) -> bool:
        return self._prop(3)

    @property
    def enable_sgpr_dispatch_id(self) -> bool:
        return self._prop(4)

    @property
    def enable_sgpr_flat_scratch_init(self) -> bool:
        return self._prop(5)

    @property
    def enable_sgpr_private_segment_size(self) -> bool:
        return self._prop(6)

    @property
    def enable_wavefront_size32(self) -> bool:
        return self._prop(10)

    @property
    def uses_dynamic_stack(self) -> bool:
        return self._prop(11)

    @property
    def kernarg_preload_spec_length(self) -> int:
        return _bits(self.kernarg_preload, 0, 7)

    @property
    def kernarg_preload_spec_offset(self) -> int:
        return _bits(self.kernarg_preload, 7, 9)


class KernelArg(NamedTuple):
    """One kernel argument of the metadata (explicit or ``hidden_*``)."""

    offset: int
    size: int
    value_kind: str
    name: str = ""
    type_name: str = ""
    address_space: str = ""

    @property
    def hidden(self) -> bool:
        return self.value_kind.startswith("hidden_")


class KernelMeta(NamedTuple):
    """A kernel's entry in the ``amdhsa.kernels`` metadata list (COV5)."""

    name: str
    symbol: str
    args: tuple[KernelArg, ...]
    kernarg_segment_size: int
    kernarg_segment_align: int
    group_segment_fixed_size: int
    private_segment_fixed_size: int
    wavefront_size: int
    sgpr_count: int
    vgpr_count: int
    agpr_count: int
    max_flat_workgroup_size: int
    uses_dynamic_stack: bool

    def arg(self, value_kind: str) -> KernelArg | None:
        """The first argument of this value kind (hidden kinds are unique)."""
        return next((a for a in self.args if a.value_kind == value_kind), None)

    @property
    def explicit_args(self) -> tuple[KernelArg, ...]:
        return tuple(a for a in self.args if not a.hidden)


class Kernel(NamedTuple):
    """A kernel: metadata, descriptor, and where its descriptor and code live in the image."""

    meta: KernelMeta
    descriptor: KernelDescriptor
    descriptor_address: int

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def entry_address(self) -> int:
        """Image address of the first instruction (descriptor address + entry byte offset)."""
        return self.descriptor_address + self.descriptor.kernel_code_entry_byte_offset


class CodeObject(NamedTuple):
    elf: ElfFile
    target: str
    version: tuple[int, ...]
    kernels: dict[str, Kernel]


def _meta_field(raw: dict[str, Any], key: str, kind: type, where: str, default: Any = None) -> Any:
    value = raw.get(key, default)
    if value is None or not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise ValueError(f"{where}: metadata field {key!r} missing or not {kind.__name__}")
    return value


def _decode_arg(raw: Any, where: str) -> KernelArg:
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: argument entry is not a map")
    return KernelArg(
        offset=_meta_field(raw, ".offset", int, where),
        size=_meta_field(raw, ".size", int, where),
        value_kind=_meta_field(raw, ".value_kind", str, where),
        name=str(raw.get(".name", "")),
        type_name=str(raw.get(".type_name", "")),
        address_space=str(raw.get(".address_space", "")),
    )


def _decode_kernel_meta(raw: Any) -> KernelMeta:
    if not isinstance(raw, dict):
        raise ValueError("amdhsa.kernels entry is not a map")
    name = _meta_field(raw, ".name", str, "kernel")
    where = f"kernel {name!r}"
    args_raw = raw.get(".args", [])
    if not isinstance(args_raw, list):
        raise ValueError(f"{where}: .args is not a list")
    args = tuple(_decode_arg(a, f"{where} argument {i}") for i, a in enumerate(args_raw))

    def field(key: str, default: int | None = None) -> int:
        value: int = _meta_field(raw, key, int, where, default)
        return value

    return KernelMeta(
        name=name,
        symbol=_meta_field(raw, ".symbol", str, where),
        args=args,
        kernarg_segment_size=field(".kernarg_segment_size"),
        kernarg_segment_align=field(".kernarg_segment_align"),
        group_segment_fixed_size=field(".group_segment_fixed_size"),
        private_segment_fixed_size=field(".private_segment_fixed_size"),
        wavefront_size=field(".wavefront_size"),
        sgpr_count=field(".sgpr_count"),
        vgpr_count=field(".vgpr_count"),
        agpr_count=field(".agpr_count", 0),
        max_flat_workgroup_size=field(".max_flat_workgroup_size", 1024),
        uses_dynamic_stack=bool(raw.get(".uses_dynamic_stack", False)),
    )


def decode_metadata(blob: bytes) -> tuple[str, tuple[int, ...], list[KernelMeta]]:
    """(target, version, kernels) from the msgpack NT_AMDGPU_METADATA descriptor; ValueError if malformed."""
    try:
        doc = msgpack.unpackb(blob, raw=False, strict_map_key=False)
    except (msgpack.UnpackException, ValueError) as exc:
        raise ValueError(f"metadata note is not valid MessagePack: {exc}") from None
    if not isinstance(doc, dict):
        raise ValueError("metadata note is not a map")
    version = doc.get("amdhsa.version", [])
    kernels = doc.get("amdhsa.kernels", [])
    if not isinstance(kernels, list) or not isinstance(version, list):
        raise ValueError("amdhsa.kernels / amdhsa.version missing or malformed")
    return (
        str(doc.get("amdhsa.target", "")),
        tuple(int(v) for v in version),
        [_decode_kernel_meta(k) for k in kernels],
    )


def _read_bytes(elf: ElfFile, address: int, size: int) -> bytes | None:
    offset = elf.vaddr_to_offset(address)
    if offset is None or offset + size > len(elf.data):
        return None
    return elf.data[offset : offset + size]


def read_code_object(data: bytes, name: str = "<code object>") -> CodeObject:
    """Parse an AMDGPU HSACO: ELF checks, metadata note, one ``Kernel`` per metadata entry."""
    try:
        elf = ElfFile(data)
    except ElfError as exc:
        raise CodeObjectError.make(name, str(exc)) from None
    if elf.machine != EM_AMDGPU:
        raise CodeObjectError.make(name, f"not an AMDGPU code object (e_machine {elf.machine})")
    notes = [n for n in elf.notes() if n.name == "AMDGPU" and n.type == NT_AMDGPU_METADATA]
    if not notes:
        raise CodeObjectError.make(name, "no NT_AMDGPU_METADATA note (is this a code object v3+ .hsaco?)")
    try:
        target, version, metas = decode_metadata(notes[0].desc)
    except ValueError as exc:
        raise CodeObjectError.make(name, str(exc)) from None
    symbols = {s.name: s for s in elf.symtab if s.defined}
    kernels: dict[str, Kernel] = {}
    for meta in metas:
        symbol = symbols.get(meta.symbol)
        if symbol is None:
            raise CodeObjectError.make(
                name, f"kernel {meta.name!r}: descriptor symbol {meta.symbol!r} not defined"
            )
        raw = _read_bytes(elf, symbol.value, KERNEL_DESCRIPTOR_SIZE)
        if raw is None:
            raise CodeObjectError.make(
                name, f"kernel {meta.name!r}: descriptor at 0x{symbol.value:x} outside the image"
            )
        kernels[meta.name] = Kernel(meta, KernelDescriptor.decode(raw), symbol.value)
    return CodeObject(elf, target, version, kernels)


# --- CUDA assert(): the record a failing __assertfail leaves before it traps ---------------------

ASSERT_RECORD_SYMBOL = "__ptx2gcn_assert"
"""Exported ``.global`` object (64 bytes) in code objects whose PTX calls ``__assertfail``."""
ASSERT_RECORD_SIZE = 64
ASSERT_RECORD = struct.Struct("<II QQQ 3I 3I")
"""Layout: state (0 empty, 1 written by the first failing thread), line, generic addresses of the
message, file and function C strings, the thread's ``%ctaid.xyz`` and ``%tid.xyz``."""
ASSERT_STATE, ASSERT_LINE, ASSERT_MESSAGE, ASSERT_FILE, ASSERT_FUNCTION, ASSERT_CTAID, ASSERT_TID = (
    0, 4, 8, 16, 24, 32, 44)


class AssertionFailure(NamedTuple):
    """One failed device-side ``assert``, as CUDA prints it."""

    file: str
    line: int
    function: str
    message: str
    block: tuple[int, int, int]
    thread: tuple[int, int, int]

    def __str__(self) -> str:
        block, thread = ",".join(map(str, self.block)), ",".join(map(str, self.thread))
        return (f"{self.file}:{self.line}: {self.function}: block: [{block}], thread: [{thread}] "
                f"Assertion `{self.message}` failed.")


# --- CUDA printf(): the FIFO a kernel appends records to, set up by the runtime before a launch -------

PRINTF_CONTROL_SYMBOL = "__ptx2gcn_printf"
"""Exported ``.global`` object (``PRINTF_CONTROL_SIZE`` bytes) in code objects whose PTX calls
``vprintf``: the runtime points it at a FIFO before each launch, the kernel appends records."""
PRINTF_CONTROL_SIZE = 24
PRINTF_BUFFER, PRINTF_CAPACITY, PRINTF_USED = 0, 8, 16
"""Control block fields (u64 each): device address of the FIFO (0: none, ``printf`` returns -2),
its size in bytes, and the bytes reserved so far (threads reserve with an atomic add; a record that
does not fit entirely is dropped, and so is every later one, as CUDA drops what overflows)."""
PRINTF_RECORD_HEADER = struct.Struct("<IIQ")
"""Record header: record size in bytes (header included, a multiple of 8), size of the argument
bytes that follow the header, generic address of the format string. The argument bytes are the
buffer ``vprintf`` received, as CUDA packs it: each argument aligned to its own size, ``float``
promoted to ``double``, integers narrower than ``int`` promoted to ``int``; after them, up to the
record's end, the text of each non-null ``%s`` argument with its NUL, in order (then padding)."""


ReadMemory = Callable[[int, int], bytes]
"""``read(address, size)``: device memory, raising when it cannot be read."""


def read_assertion(record: bytes, read_memory: ReadMemory, limit: int = 4096) -> AssertionFailure | None:
    """Decode the assertion record (``ASSERT_RECORD_SIZE`` bytes read at ``ASSERT_RECORD_SYMBOL``);
    ``None`` when no thread failed. ``read_memory(address, size) -> bytes`` reads device memory (for
    the strings; at most ``limit`` bytes each, a string it cannot read shows as ``?``). A runtime
    calls this after a kernel trapped, and zeroes the state word before the next launch."""
    state, line, message, file, function, *ids = ASSERT_RECORD.unpack_from(record)
    if state == 0:
        return None

    def text(address: int) -> str:
        data = _c_string(read_memory, address, limit)
        return "?" if data is None else data.decode("utf-8", "replace")

    return AssertionFailure(text(file), line, text(function), text(message),
                            (ids[0], ids[1], ids[2]), (ids[3], ids[4], ids[5]))


def _c_string(read_memory: ReadMemory, address: int, limit: int) -> bytes | None:
    """The NUL-terminated string at ``address`` (64-byte reads, then byte by byte near the end of
    readable memory); None if not even its first byte can be read."""
    data = b""
    while len(data) < limit:
        try:
            chunk = bytes(read_memory(address + len(data), 64))
        except Exception:  # noqa: BLE001 — any unreadable byte ends the string, never the report
            try:
                chunk = bytes(read_memory(address + len(data), 1))
            except Exception:  # noqa: BLE001
                return data or None
        end = chunk.find(b"\0")
        if end >= 0:
            return data + chunk[:end]
        data += chunk
    return data
