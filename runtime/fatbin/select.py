"""Which PTX entry of a fatbin container ptx2gcn recompiles, and what its ptxas options mean for us.

Selection policy (``select_ptx``), applied to the entries of one container (one translation unit):

1. Only PTX entries count (kind 1, without the LTO-IR flag). SASS cubins are for NVIDIA hardware and
   LTO-IR is an opaque NVVM format; neither can be recompiled. A container with no PTX is an error
   that says how to rebuild the program with PTX embedded.
2. Entries whose PTX ISA version is newer than ``NEWEST_SUPPORTED_PTX_ISA`` are set aside (an error
   only when nothing else is left).
3. Generic targets (``compute_80``) are preferred over arch-specific (``compute_90a``) and
   family-specific (``compute_120f``) ones: those may use instructions (``wgmma``, ``tcgen05``…) that
   exist on one NVIDIA chip only.
4. Then the newest PTX ISA version wins (newer ISA = more explicit semantics, fewer legacy forms),
   and among equal versions the highest ``sm`` target (its PTX was written for the most capable GPU,
   which a recompiler translates as readily as an older one).
5. A remaining tie (identical version and target) picks the first entry in file order.

Invariant: ``select_ptx`` returns a PTX entry or raises ``FatbinError`` naming the source and
container offset; it never decompresses anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ptx2gcn.runtime.fatbin.container import Container, EntryFlags, EntryKind, FatbinEntry, FatbinError
from ptx2gcn.runtime.fatbin.image import Fatbin

# The newest PTX ISA the front end is written against (nvcc 13.0 writes `.version 9.0`).
NEWEST_SUPPORTED_PTX_ISA: tuple[int, int] = (9, 0)

_SPECIFIC = EntryFlags.ARCH_SPECIFIC | EntryFlags.FAMILY_SPECIFIC


@dataclass(frozen=True, slots=True)
class PtxasOptions:
    """The options nvcc stored for JIT-compiling an entry's PTX, as far as they affect ptx2gcn."""

    compile_only: bool = False
    """``--compile-only``: relocatable code (``-rdc``); compile without final linking."""
    debug: bool = False
    """``-g`` (from ``nvcc -G``): keep debug information, no optimisation."""
    line_info: bool = False
    """``--generate-line-info``: keep ``.loc`` line information."""
    opt_level: int | None = None
    """``-O0``…``-O3`` when given."""
    max_registers: int | None = None
    """``-maxrregcount=N`` / ``--maxrregcount N``: a register budget per thread."""
    ignored: tuple[str, ...] = ()
    """Options with no meaning for AMDGPU code (``--dont-merge-basicblocks``, ``--return-at-end``…)."""


_FLAG_OPTIONS = {
    "--compile-only": "compile_only",
    "-c": "compile_only",
    "-g": "debug",
    "--device-debug": "debug",
    "--generate-line-info": "line_info",
    "-lineinfo": "line_info",
}
_MAXRREG = re.compile(r"^-{1,2}maxrregcount(?:=(\d+))?$")
_OPT = re.compile(r"^-O([0-3])$")


def parse_ptxas_options(text: str) -> PtxasOptions:
    """Read the options string of a fatbin entry (whitespace-separated ptxas options)."""
    flags: dict[str, bool] = {}
    opt_level: int | None = None
    max_registers: int | None = None
    ignored: list[str] = []
    tokens = text.split()
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token in _FLAG_OPTIONS:
            flags[_FLAG_OPTIONS[token]] = True
        elif (match := _OPT.match(token)) is not None:
            opt_level = int(match.group(1))
        elif (match := _MAXRREG.match(token)) is not None:
            value = match.group(1)
            if value is None and index < len(tokens) and tokens[index].isdigit():
                value = tokens[index]
                index += 1
            max_registers = int(value) if value is not None else None
        else:
            ignored.append(token)
    return PtxasOptions(opt_level=opt_level, max_registers=max_registers, ignored=tuple(ignored), **flags)


def ptx_entries(entries: Iterable[FatbinEntry]) -> list[FatbinEntry]:
    """The recompilable PTX entries (LTO-IR excluded)."""
    return [e for e in entries if e.kind == EntryKind.PTX and not e.flags & EntryFlags.LTO_IR]


def select_ptx(container: Container, newest: tuple[int, int] = NEWEST_SUPPORTED_PTX_ISA) -> FatbinEntry:
    """The PTX entry of ``container`` to recompile, by the policy in this module's docstring."""
    candidates = ptx_entries(container.entries)
    if not candidates:
        raise FatbinError.located(container.source, container.offset, _no_ptx_message(container))
    usable = [e for e in candidates if e.ptx_version <= newest]
    if not usable:
        versions = ", ".join(sorted({_version(e) for e in candidates}))
        raise FatbinError.located(
            container.source,
            container.offset,
            f"the PTX here is ISA {versions}, newer than ptx2gcn supports "
            f"({newest[0]}.{newest[1]}); rebuild with an older -gencode "
            "arch=compute_XX,code=compute_XX or a CUDA release that writes it",
        )
    return max(usable, key=lambda e: (not e.flags & _SPECIFIC, e.ptx_version, e.arch, -e.offset))


def entry_options(entry: FatbinEntry) -> PtxasOptions:
    return parse_ptxas_options(entry.options)


def _version(entry: FatbinEntry) -> str:
    return f"{entry.ptx_version[0]}.{entry.ptx_version[1]}"


def _no_ptx_message(container: Container) -> str:
    held = sorted({f"{e.kind_label} {e.arch_name}" for e in container.entries})
    what = f"it holds only {', '.join(held)}" if held else "it is empty"
    arch = max((e.arch for e in container.entries), default=80)
    return (
        f"no PTX in this fatbin container ({what}); ptx2gcn recompiles PTX, so rebuild with "
        f"PTX embedded: nvcc -gencode arch=compute_{arch},code=compute_{arch} ..."
    )


def module_containers(fatbin: Fatbin) -> list[Container]:
    """The containers a program loads as modules: those a version-1 wrapper registers, or, without
    wrapper information (a standalone fatbin, an image), every container that has entries."""
    registered = [c for c in fatbin.containers if c.registered and c.entries]
    return registered or [c for c in fatbin.containers if c.entries]


@dataclass(frozen=True, slots=True)
class PtxModule:
    """The PTX of one module (translation unit) to recompile, with what nvcc recorded about it."""

    container: Container
    entry: FatbinEntry
    options: PtxasOptions

    @property
    def relocatable(self) -> bool:
        """Relocatable device code (``-rdc``): compile with ``--compile-only`` semantics, then link
        every relocatable module of the program together."""
        return self.options.compile_only or self.container.relocatable

    def ptx_text(self) -> str:
        return self.entry.ptx_text()


def ptx_modules(fatbin: Fatbin, *, strict: bool = True) -> list[PtxModule]:
    """The selected PTX of every module container (``module_containers``). A module without usable
    PTX is an error when ``strict``; otherwise it is left out (its kernels will be missing)."""
    modules: list[PtxModule] = []
    first_error: FatbinError | None = None
    for container in module_containers(fatbin):
        try:
            entry = select_ptx(container)
        except FatbinError as error:
            if strict:
                raise
            first_error = first_error or error
            continue
        modules.append(PtxModule(container, entry, entry_options(entry)))
    if not modules and first_error is not None:
        raise first_error
    if not modules:
        raise FatbinError.located(fatbin.source, None, "the fatbin holds no entries")
    return modules
