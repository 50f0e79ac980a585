"""Input sections grouped into output sections, SHF_MERGE sections merged, metadata notes merged.

Invariant: ``place_inputs`` puts every kept input section into exactly one ``OutputSection`` named by
ld.lld's rule (``.text.foo`` → ``.text``), in first-appearance order, at an offset aligned as the
section asks; non-empty SHF_MERGE sections with an entry size become ``MergedSection`` members
instead (one per output name, flags, entry size and, for strings, alignment). ``merge_metadata``
leaves at most one ``NT_AMDGPU_METADATA`` note per note section, the ``amdhsa.kernels`` lists
concatenated in input order and every other key required to agree. Offsets are relative to the
output section; addresses come later (``ptx2gcn.link.layout.layout``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import msgpack  # pyright: ignore[reportMissingTypeStubs]

from ptx2gcn.link import elf
from ptx2gcn.link.elf import Note, Section, parse_notes
from ptx2gcn.link.elf_writer import pack_note
from ptx2gcn.link.inputs import InputObject, InputSection, LinkError, reading
from ptx2gcn.link.layout import MergedSection, OutputSection, align_up, output_name, split_pieces

_MSGPACK: Any = msgpack  # msgpack ships no type information; results are checked where used
_KEPT_FLAGS = ~(elf.SHF_GROUP | elf.SHF_EXCLUDE) & 0xFFFFFFFFFFFFFFFF
_RELRO_TYPES = {elf.SHT_INIT_ARRAY, elf.SHT_FINI_ARRAY, elf.SHT_PREINIT_ARRAY}


def _output_section(outputs: dict[str, OutputSection], header: Section) -> OutputSection:
    """The output section an input section goes to (created on first use), its attributes merged."""
    name = output_name(header.name)
    out = outputs.get(name)
    if out is None:
        out = outputs[name] = OutputSection(name, header.type, header.flags & _KEPT_FLAGS,
                                            entsize=header.entsize)
        out.relro = bool(out.flags & elf.SHF_WRITE) and (
            name in (".data.rel.ro", ".bss.rel.ro") or header.type in _RELRO_TYPES)
    if out.type == elf.SHT_NOBITS and header.type != elf.SHT_NOBITS:
        out.type = header.type
    if out.entsize != header.entsize:
        out.entsize = 0
    out.flags |= header.flags & _KEPT_FLAGS
    return out


def _mergeable(section: InputSection) -> bool:
    """ld.lld merges non-empty elf.SHF_MERGE sections with an entry size (strings or records)."""
    header = section.header
    if not header.flags & elf.SHF_MERGE or not header.entsize or not header.size:
        return False
    if header.type != elf.SHT_PROGBITS:
        return False
    if header.size % header.entsize or header.flags & elf.SHF_WRITE:
        problem = ("is writable" if header.flags & elf.SHF_WRITE
                   else f"size is not a multiple of {header.entsize}")
        raise LinkError.of(section.obj.name, f"mergeable section {header.name} {problem}")
    try:
        section.pieces = split_pieces(bytes(section.data), header.entsize, bool(header.flags & elf.SHF_STRINGS))
        section.piece_starts = [piece.offset for piece in section.pieces]
    except ValueError as error:
        raise LinkError.of(section.obj.name, f"mergeable section {header.name}: {error}") from None
    return True


def _merge_into(groups: dict[tuple[str, int, int, int], MergedSection], out: OutputSection,
                section: InputSection) -> MergedSection | None:
    """Add a mergeable section to its MergedSection; returns the group when it is new."""
    header = section.header
    strings = bool(header.flags & elf.SHF_STRINGS)
    key = (out.name, header.flags, header.entsize, header.addralign if strings else 0)
    group = groups.get(key)
    created = group is None
    if group is None:
        group = groups[key] = MergedSection(max(header.addralign, 1))
    group.align = max(group.align, header.addralign, 1)
    section.merged, section.member, section.output = group, len(group.members), out
    group.members.append(section.pieces)
    return group if created else None


def place_inputs(objects: Sequence[InputObject]) -> list[OutputSection]:
    """Group input sections into output sections (first-appearance order) and give them offsets;
    mergeable sections become one MergedSection each, where the first of them was."""
    outputs: dict[str, OutputSection] = {}
    groups: dict[tuple[str, int, int, int], MergedSection] = {}
    for obj in objects:
        for section in obj.sections.values():
            out = _output_section(outputs, section.header)
            if _mergeable(section):
                group = _merge_into(groups, out, section)
                if group is not None:
                    out.parts.append(group)
            else:
                section.output = out
                out.parts.append(section)
    for out in outputs.values():
        for part in out.parts:
            if isinstance(part, MergedSection):
                part.build()
                part.offset = align_up(out.size, part.align)
                out.size, out.align = part.offset + len(part.data), max(out.align, part.align)
            else:
                section = cast(InputSection, part)
                section.offset = align_up(out.size, section.header.addralign)
                out.size = section.offset + section.header.size
                out.align = max(out.align, section.header.addralign, 1)
    return list(outputs.values())


def metadata_document(desc: bytes, where: str) -> dict[str, Any]:
    """A decoded NT_AMDGPU_METADATA map whose ``amdhsa.kernels``, if present, is a list."""
    try:
        document: object = _MSGPACK.unpackb(desc, raw=False, strict_map_key=False)
    except (ValueError, TypeError, _MSGPACK.UnpackException) as error:
        raise LinkError.of(where, f"unreadable AMDGPU metadata: {error}") from None
    kernels = cast(dict[str, Any], document).get("amdhsa.kernels", []) if isinstance(document, dict) else None
    if not isinstance(kernels, list):
        raise LinkError.of(where, "AMDGPU metadata is not a map with an amdhsa.kernels list")
    return cast(dict[str, Any], document)


def merge_metadata(section: OutputSection) -> None:
    """Replace several NT_AMDGPU_METADATA notes in one note section by a single merged note."""
    notes: list[Note] = []
    for part in cast(list[InputSection], section.parts):
        with reading(part.obj.name):
            notes += parse_notes(bytes(part.data))
    metadata = [n for n in notes if n.name == "AMDGPU" and n.type == elf.NT_AMDGPU_METADATA]
    if len(metadata) < 2:
        return
    where = f"section {section.name}"
    merged: dict[str, Any] = {}
    for note in metadata:
        document = metadata_document(note.desc, where)
        for key, value in document.items():
            if key == "amdhsa.kernels":
                merged.setdefault(key, []).extend(value)
            elif merged.setdefault(key, value) != value:
                raise LinkError.of(where, f"conflicting AMDGPU metadata '{key}': "
                                   f"{merged[key]!r} vs {value!r}")
    desc: bytes = _MSGPACK.packb(merged, use_bin_type=True)
    others = [pack_note(n.name, n.type, n.desc) for n in notes if not any(n is m for m in metadata)]
    section.data = b"".join(others) + pack_note("AMDGPU", elf.NT_AMDGPU_METADATA, desc)
    section.size = len(section.data)
