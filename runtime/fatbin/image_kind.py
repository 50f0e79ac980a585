"""What a code image handed to a module-load call is, from its first bytes.

``cuModuleLoadData``-style calls receive a pointer to "an image" that may be a fatbin container, a
fatbin wrapper, an ELF (a host object with fatbins, an NVIDIA cubin, or an AMDGPU code object), an
``ar`` archive, or NUL-terminated PTX text (the same cases vosen/ZLUDA's ``CodeLibraryRef`` sniffs).

Invariant: ``sniff_image`` only looks at the bytes given, never raises, and answers ``UNKNOWN`` rather
than guessing.
"""

from __future__ import annotations

import re
import struct
from enum import Enum

from ptx2gcn.link.elf import ELF_MAGIC, EM_AMDGPU
from ptx2gcn.runtime.fatbin.container import CONTAINER_MAGIC
from ptx2gcn.runtime.fatbin.image import EM_CUDA, WRAPPER_MAGIC

_PTX_START = re.compile(rb"^\s*(?://[^\n]*\n\s*|/\*.*?\*/\s*)*\.version\s+\d+\.\d+", re.DOTALL)
_SNIFF_BYTES = 4096


class ImageKind(Enum):
    FATBIN = "fatbin"
    FATBIN_WRAPPER = "fatbin wrapper"
    ELF_HOST = "host ELF"
    ELF_CUBIN = "NVIDIA cubin"
    ELF_AMDGPU = "AMDGPU code object"
    ARCHIVE = "ar archive"
    PTX = "PTX text"
    UNKNOWN = "unknown"


def sniff_image(data: bytes) -> ImageKind:
    if len(data) >= 4:
        magic = struct.unpack_from("<I", data)[0]
        if magic == CONTAINER_MAGIC:
            return ImageKind.FATBIN
        if magic == WRAPPER_MAGIC:
            return ImageKind.FATBIN_WRAPPER
    if data[:4] == ELF_MAGIC:
        if len(data) < 20:
            return ImageKind.UNKNOWN
        machine = struct.unpack_from("<H", data, 18)[0]
        return {EM_CUDA: ImageKind.ELF_CUBIN, EM_AMDGPU: ImageKind.ELF_AMDGPU}.get(
            machine, ImageKind.ELF_HOST
        )
    if data[:8] == b"!<arch>\n":
        return ImageKind.ARCHIVE
    if _PTX_START.match(data[:_SNIFF_BYTES]):
        return ImageKind.PTX
    return ImageKind.UNKNOWN
