"""CUDA fatbinaries: the public interface of the fatbin reader (import from here).

Reading (``docs/fatbin-format.md``):

* ``read_fatbin_file(path)`` / ``read_fatbin(data, name)``: a standalone ``.fatbin``, or every
  container in an ELF host object, executable or shared library (``.nv_fatbin``,
  ``__nv_relfatbin``, resolved through the ``.nvFatBinSegment`` wrappers);
* ``fatbin_from_pointer(address)``: a container or wrapper in this process's memory, as handed to
  ``cuModuleLoadData``; ``sniff_image(data)`` says what an image is before choosing a reader.

Each ``FatbinEntry`` has its kind (PTX, ELF/SASS, LTO-IR), arch, PTX version, flags, ptxas options
string, identifier and payload (``payload()`` decompresses zstd and raw-LZ4-block entries).

Choosing: ``module_containers`` (the containers a program registers), ``select_ptx`` (the PTX entry to
recompile, by the policy documented in ``ptx2gcn.runtime.fatbin.select``: generic targets first, then
the newest supported PTX ISA, then the highest ``sm``), ``ptx_modules`` (both, plus the parsed
``PtxasOptions``; ``--compile-only`` marks relocatable ``-rdc`` code).

Invariant: every failure on bad input is a ``FatbinError`` naming the source and byte offset. This
module only re-exports; the parts live in ``container`` (layout and decompression),
``image`` (where containers are found), ``select`` (policy) and ``image_kind``.
"""

from __future__ import annotations

from ptx2gcn.runtime.fatbin.container import (
    CONTAINER_MAGIC,
    Container,
    EntryFlags,
    EntryKind,
    FatbinEntry,
    FatbinError,
    parse_container,
    parse_containers,
)
from ptx2gcn.runtime.fatbin.image import (
    WRAPPER_MAGIC,
    Fatbin,
    Wrapper,
    fatbin_from_pointer,
    read_fatbin,
    read_fatbin_file,
)
from ptx2gcn.runtime.fatbin.image_kind import ImageKind, sniff_image
from ptx2gcn.runtime.fatbin.select import (
    NEWEST_SUPPORTED_PTX_ISA,
    PtxasOptions,
    PtxModule,
    entry_options,
    module_containers,
    parse_ptxas_options,
    ptx_entries,
    ptx_modules,
    select_ptx,
)

__all__ = [
    "CONTAINER_MAGIC",
    "NEWEST_SUPPORTED_PTX_ISA",
    "WRAPPER_MAGIC",
    "Container",
    "EntryFlags",
    "EntryKind",
    "Fatbin",
    "FatbinEntry",
    "FatbinError",
    "ImageKind",
    "PtxModule",
    "PtxasOptions",
    "Wrapper",
    "entry_options",
    "fatbin_from_pointer",
    "module_containers",
    "parse_container",
    "parse_containers",
    "parse_ptxas_options",
    "ptx_entries",
    "ptx_modules",
    "read_fatbin",
    "read_fatbin_file",
    "select_ptx",
    "sniff_image",
]
