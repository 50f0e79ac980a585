"""Driver-API linking that stays on PTX: ``cuLinkCreate``, ``cuLinkAddData``, ``cuLinkAddFile``,
``cuLinkComplete``, ``cuLinkDestroy``.

CUDA's driver linker turns PTX, cubins, fatbins, objects and libraries into one cubin. ptx2gcn
recompiles PTX, so its linker gathers PTX units (PTX itself; the PTX a fatbin or a host object's
fatbin holds) and links them into one PTX module (``ptx_link.link_ptx``). ``cuLinkComplete``
returns that PTX text, NUL-terminated, as the "cubin": every loader of this driver
(``cuModuleLoadData``, ``cuLibraryLoadData``) takes it, so clients that link and then load the
result (numba-cuda, cuda.core's driver-linker path) work unchanged. CUDA's device runtime library
(``libcudadevrt.a``, cubins only) links as ptx2gcn's PTX of the functions compiled code calls in it
(``device_runtime.py``: the cooperative-groups grid barrier). Any other well-formed input that holds no
PTX (a cubin, LTO-IR, another library of cubins) is accepted by ``cuLinkAddData`` (with the
reason in the error log) and makes ``cuLinkComplete`` fail with ``CUDA_ERROR_NO_BINARY_FOR_GPU`` (or
``CUDA_ERROR_NOT_SUPPORTED`` for LTO-IR) and a message naming the flag that embeds PTX: the link, not
the input, is what cannot be done, and clients report a failing ``cuLinkComplete`` with its log
(cuda.core 1.2.2 turns a failing ``cuLinkAddData`` into a bare ``SystemError``). Malformed input (PTX
that is not PTX, an unknown input type, a missing file) fails ``cuLinkAddData`` itself.

JIT options are those of ``cuModuleLoadDataEx``: the log buffers given to ``cuLinkCreate`` are
filled by ``cuLinkAddData`` and ``cuLinkComplete`` (error log on failure, info log on success);
``CU_JIT_MAX_REGISTERS`` becomes ``.maxnreg`` on every kernel of the linked PTX (its loader is not
given the link's options; a cubin, likewise, records each kernel's registers).

Invariant: a link state is valid from ``cuLinkCreate`` until ``cuLinkDestroy``; the buffer
``cuLinkComplete`` returns stays valid (and unchanged) until then.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from pathlib import Path

from ptx2gcn.runtime.driver.args import enum_member, handle, integer, invalid, name
from ptx2gcn.runtime.driver.device_runtime import DEVICE_RUNTIME_PTX, is_device_runtime
from ptx2gcn.runtime.driver.enums import CUjitInputType, CUresult
from ptx2gcn.runtime.driver.errors import CudaError, plain
from ptx2gcn.runtime.driver.host import readable
from ptx2gcn.runtime.driver.module import JitRequest, jit_request
from ptx2gcn.runtime.driver.ptx_link import PtxLinkError, cap_registers, link_ptx
from ptx2gcn.runtime.driver.state import driver
from ptx2gcn.runtime.driver.types import HandleBase
from ptx2gcn.runtime.fatbin import FatbinError
from ptx2gcn.runtime.fatbin.image import read_fatbin
from ptx2gcn.runtime.fatbin.image_kind import ImageKind, sniff_image
from ptx2gcn.runtime.fatbin.select import ptx_modules

EMBED_PTX = (
    "ptx2gcn recompiles PTX: give it PTX (NVRTC's nvrtcGetPTX, nvcc -ptx) or a fatbin/object with "
    "PTX embedded (nvcc -gencode arch=compute_80,code=compute_80)"
)


class CUlinkState(HandleBase):
    __slots__ = ()


@dataclass(eq=False)
class LinkRecord:
    handle: int
    request: JitRequest
    units: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    """(name, PTX text) of each unit added, in order."""
    output: ctypes.Array[ctypes.c_char] | None = None
    refused: list[CudaError] = field(default_factory=list[CudaError])
    """Inputs accepted by ``cuLinkAddData`` that hold no PTX: ``cuLinkComplete`` fails with the first."""


_links: dict[int, LinkRecord] = {}


def _record(state: object) -> LinkRecord:
    driver().initialised()
    value = handle(state, CUlinkState, "state")
    found = _links.get(value)
    if found is None:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_HANDLE, f"link state 0x{value:x} does not exist (destroyed?)")
    return found


def link_create(numOptions: object, options: object, optionValues: object) -> CUlinkState:
    state = driver()
    state.require_current()
    record = LinkRecord(state.new_handle(), jit_request(numOptions, options, optionValues))
    with state.lock:
        _links[record.handle] = record
    return CUlinkState(record.handle)


def _ptx_text(data: bytes, what: str) -> str:
    return data.split(b"\0", 1)[0].decode("utf-8", errors="replace")


def _ptx_of_container(data: bytes, what: str) -> list[str]:
    try:
        return [module.ptx_text() for module in ptx_modules(read_fatbin(data, what))]
    except FatbinError as error:
        message = plain(error)
        code = CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU if "no PTX" in message else CUresult.CUDA_ERROR_INVALID_IMAGE
        raise CudaError(code, f"{what}: {message}") from None


def _units(kind: CUjitInputType, data: bytes, what: str) -> list[str]:
    """The PTX texts an input of ``kind`` contributes."""
    sniffed = sniff_image(data)
    if kind is CUjitInputType.CU_JIT_INPUT_PTX or sniffed is ImageKind.PTX:
        if sniffed is not ImageKind.PTX:
            raise CudaError(CUresult.CUDA_ERROR_INVALID_PTX, f"{what}: declared CU_JIT_INPUT_PTX but is not PTX text")
        return [_ptx_text(data, what)]
    if kind in (CUjitInputType.CU_JIT_INPUT_FATBINARY, CUjitInputType.CU_JIT_INPUT_OBJECT) and sniffed in (
        ImageKind.FATBIN, ImageKind.ELF_HOST,
    ):  # fmt: skip
        return _ptx_of_container(data, what)
    if sniffed is ImageKind.ARCHIVE and is_device_runtime(data):
        return [DEVICE_RUNTIME_PTX]  # CUDA's cubin-only libcudadevrt: ptx2gcn's PTX of its grid functions
    if kind is CUjitInputType.CU_JIT_INPUT_NVVM:
        raise CudaError(
            CUresult.CUDA_ERROR_NOT_SUPPORTED,
            f"{what}: CU_JIT_INPUT_NVVM (LTO-IR) cannot be linked by ptx2gcn's driver; have nvJitLink "
            "produce PTX (-ptx) or compile without LTO (numba-cuda: NUMBA_CUDA_ENABLE_LTO=0)",
        )
    raise CudaError(
        CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU,
        f"{what}: a {kind.name} input ({sniffed.value} image) holds no PTX; {EMBED_PTX}",
    )


def _add(record: LinkRecord, kind_value: object, data: bytes, what: str, options: tuple[object, ...]) -> None:
    jit_request(*options)  # checked as cuModuleLoadDataEx checks them; they change nothing per input
    kind = enum_member(kind_value, CUjitInputType, "type")
    try:
        texts = _units(kind, data, what)
    except CudaError as error:
        record.request.failed(error.message)
        if error.result in (CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU, CUresult.CUDA_ERROR_NOT_SUPPORTED):
            record.refused.append(error)  # a well-formed input without PTX: the link cannot complete
            return
        raise
    record.units.extend((what if len(texts) == 1 else f"{what}#{i}", text) for i, text in enumerate(texts))


def link_add_data(
    state: object,
    type: object,  # noqa: A002 - cuda-python's parameter name
    data: object,
    size: object,
    name_: object,
    numOptions: object,
    options: object,
    optionValues: object,
) -> None:
    record = _record(state)
    count = integer(size, "size", 64)
    if count == 0:
        raise invalid("size is 0: nothing to link")
    what = name(name_, "name") if name_ not in (None, 0, b"") else "<link input>"
    _add(record, type, bytes(readable(data, count, "data")), what, (numOptions, options, optionValues))


def link_add_file(
    state: object,
    type: object,  # noqa: A002 - cuda-python's parameter name
    path: object,
    numOptions: object,
    options: object,
    optionValues: object,
) -> None:
    record = _record(state)
    file = Path(name(path, "path"))
    try:
        data = file.read_bytes()
    except OSError as error:
        raise CudaError(CUresult.CUDA_ERROR_FILE_NOT_FOUND, f"{file}: {error.strerror or error}") from None
    _add(record, type, data, str(file), (numOptions, options, optionValues))


def link_complete(state: object) -> tuple[int, int]:
    """(address, size) of the linked image: PTX text with its terminating NUL."""
    record = _record(state)
    if record.refused:
        record.request.failed(record.refused[0].message)
        raise record.refused[0]
    try:
        text = link_ptx(record.units)
        ceiling = record.request.options.max_registers
        if ceiling is not None:  # the loader of the result gets no JIT options: the PTX carries it
            text = cap_registers(text, ceiling)
    except PtxLinkError as error:
        record.request.failed(str(error))
        raise CudaError(CUresult.CUDA_ERROR_INVALID_PTX, f"cuLinkComplete: {error}") from None
    record.output = ctypes.create_string_buffer(text.encode())
    record.request.succeeded()
    return ctypes.addressof(record.output), len(record.output)


def link_destroy(state: object) -> None:
    record = _record(state)
    with driver().lock:
        _links.pop(record.handle, None)
