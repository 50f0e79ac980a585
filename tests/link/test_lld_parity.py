"""``link_hsaco`` against ``ld.lld-22 -shared`` on LLVM IR kernels that exercise every relocation LLVM
emits for gfx942: kernel descriptors (REL64), calls and globals through the GOT (GOTPCREL32_LO/HI),
PC-relative calls and hidden/protected/internal globals (REL32_LO/HI), pointers in data (ABS64 →
RELATIVE64 or symbolic ABS64), function-pointer tables, recursion, private stack, LDS, .bss, and two
objects.

The reference is ld.lld's output, read with ``ptx2gcn.link.elf`` and with llvm-readelf/llvm-objdump.
Our layout is ld.lld's (down to the hash-sharded order of deduplicated SHF_MERGE strings), so links
with one metadata note are compared address for address and byte for byte; the only section we
leave out is ``.comment`` (ld.lld's version string). One legitimate difference is compared after
normalising: with several metadata notes (one per object) we merge them where ld.lld concatenates
them, which moves everything after ``.note``; that link is compared with addresses as (section,
offset) pairs. For the exact comparisons, objects after the first have their note removed.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgpack
import pytest

from ptx2gcn.link import elf
from ptx2gcn.link.elf import ElfFile
from ptx2gcn.link.linker import LinkError, link_hsaco

CASES: dict[str, tuple[str, ...]] = {
    "vadd": ("vadd",),
    "many_kernels": ("many_kernels",),
    "globals": ("globals",),
    "calls": ("calls",),
    "two_objects": ("multi_main", "multi_lib"),
    "debug_info": ("debug_info",),
    "strings": ("strings",),
    "five_objects": ("debug_info", "strings", "calls", "globals", "many_kernels"),
    "weak": ("weak_a",),
    "weak_overridden": ("weak_a", "weak_b"),
    "lds_functions": ("lds_functions",),
}
BASE = 0x7F12_3450_0000


def without_metadata_note(obj: bytes) -> bytes:
    """The object with its .note section renamed to .note.GNU-stack, which every linker drops."""
    image = ElfFile(obj)
    note, stack = image.section(".note"), image.section(".note.GNU-stack")
    assert note is not None and stack is not None
    stack_name = struct.unpack_from("<I", obj, image.shoff + stack.index * 64)[0]
    patched = bytearray(obj)
    struct.pack_into("<I", patched, image.shoff + note.index * 64, stack_name)
    return bytes(patched)


@pytest.fixture(scope="session")
def case_objects(compile_kernel: Callable[..., bytes]) -> Callable[[str], list[bytes]]:
    def get(case: str) -> list[bytes]:
        objects = [compile_kernel(name) for name in CASES[case]]
        # One metadata note per link keeps ld.lld's output directly comparable (see module doc).
        return [objects[0], *(without_metadata_note(o) for o in objects[1:])]

    return get


@pytest.fixture(scope="session")
def pair(case_objects: Callable[[str], list[bytes]], lld_link: Callable[[Sequence[bytes]], bytes]
         ) -> Callable[[str], tuple[ElfFile, ElfFile]]:
    cache: dict[str, tuple[ElfFile, ElfFile]] = {}

    def get(case: str) -> tuple[ElfFile, ElfFile]:
        if case not in cache:
            objects = case_objects(case)
            cache[case] = (ElfFile(link_hsaco(objects)), ElfFile(lld_link(objects)))
        return cache[case]

    return get


# -- views of a linked file -------------------------------------------------------------------

def section_name(image: ElfFile, index: int) -> str:
    return {elf.SHN_ABS: "*ABS*", elf.SHN_UNDEF: "*UND*"}.get(index) or image.sections[index].name


def symbols(image: ElfFile, table: str) -> list[tuple[Any, ...]]:
    section = image.section(table)
    assert section is not None
    return [(s.name, s.value, s.size, s.info, s.other, section_name(image, s.shndx))
            for s in image.symbols(section)]


def dynamic_relocations(image: ElfFile) -> list[tuple[int, int, str, int]]:
    rela = image.section(".rela.dyn")
    if rela is None:
        return []
    names = [s.name for s in image.dynsym]
    return [(r.offset, r.type, names[r.symbol], r.addend) for r in image.relocations(rela)]


def loaded_segments(image: ElfFile, base: int) -> list[bytes]:
    """Each PT_LOAD as the loader sees it at ``base`` after applying .rela.dyn."""
    loads = [p for p in image.segments if p.type == elf.PT_LOAD]
    memory = bytearray(max(p.vaddr + p.memsz for p in loads))
    for p in loads:
        memory[p.vaddr:p.vaddr + p.filesz] = image.data[p.offset:p.offset + p.filesz]
    dynsym = image.dynsym
    rela = image.section(".rela.dyn")
    for reloc in image.relocations(rela) if rela is not None else []:
        if reloc.type == elf.R_AMDGPU_RELATIVE64:
            value = base + reloc.addend
        else:
            assert reloc.type == elf.R_AMDGPU_ABS64
            target = dynsym[reloc.symbol]
            assert target.defined
            value = base + target.value + reloc.addend
        struct.pack_into("<Q", memory, reloc.offset, value % (1 << 64))
    # The first segment maps the ELF header, whose section-header fields (e_shoff, e_shnum,
    # e_shstrndx) legitimately differ: ld.lld adds a non-allocated .comment section.
    memory[0x28:0x30] = bytes(8)
    memory[0x3C:0x40] = bytes(4)
    return [bytes(memory[p.vaddr:p.vaddr + p.memsz]) for p in loads]


def metadata(image: ElfFile) -> list[dict[str, Any]]:
    return [msgpack.unpackb(n.desc, raw=False) for n in image.notes()
            if n.name == "AMDGPU" and n.type == elf.NT_AMDGPU_METADATA]


def alloc_sections(image: ElfFile) -> list[tuple[Any, ...]]:
    return [(s.name, s.type, s.flags, s.addr, s.offset, s.size, s.addralign, s.entsize,
             section_name(image, s.link) if s.link else "", s.info)
            for s in image.sections[1:] if s.flags & elf.SHF_ALLOC]


# -- exact comparisons --------------------------------------------------------------------------

@pytest.mark.parametrize("case", list(CASES))
def test_file_header(case: str, pair: Callable[[str], tuple[ElfFile, ElfFile]],
                     case_objects: Callable[[str], list[bytes]]) -> None:
    ours, lld = pair(case)
    first = ElfFile(case_objects(case)[0])
    assert (ours.type, ours.machine, ours.osabi, ours.abiversion) == (elf.ET_DYN, elf.EM_AMDGPU, 64, 3)
    assert ours.flags == first.flags == lld.flags == 0x54C
    assert ours.entry == 0


@pytest.mark.parametrize("case", list(CASES))
def test_layout_is_lld_layout(case: str, pair: Callable[[str], tuple[ElfFile, ElfFile]]) -> None:
    ours, lld = pair(case)
    assert ours.segments == lld.segments
    assert alloc_sections(ours) == alloc_sections(lld)
    expected_non_alloc = [s.name for s in lld.sections[1:]
                          if not s.flags & elf.SHF_ALLOC and s.name != ".comment"]
    assert [s.name for s in ours.sections[1:] if not s.flags & elf.SHF_ALLOC] == expected_non_alloc
    for section in ours.sections[1:]:
        if not section.flags & elf.SHF_ALLOC and section.type not in (elf.SHT_SYMTAB, elf.SHT_STRTAB):
            theirs = lld.section(section.name)
            assert theirs is not None
            assert (section.type, section.flags, section.size, section.entsize, section.addralign) == (
                theirs.type, theirs.flags, theirs.size, theirs.entsize, theirs.addralign)
            assert ours.section_data(section) == lld.section_data(theirs), section.name


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("table", [".dynsym", ".symtab"])
def test_symbols(case: str, table: str, pair: Callable[[str], tuple[ElfFile, ElfFile]]) -> None:
    ours, lld = pair(case)
    assert symbols(ours, table) == symbols(lld, table)
    symtab = ours.section(".symtab")
    assert symtab is not None and symtab.info == lld.section(".symtab").info  # type: ignore[union-attr]


@pytest.mark.parametrize("case", list(CASES))
def test_dynamic_section_and_relocations(case: str, pair: Callable[[str], tuple[ElfFile, ElfFile]]) -> None:
    ours, lld = pair(case)
    assert ours.dynamic_entries() == lld.dynamic_entries()
    assert dynamic_relocations(ours) == dynamic_relocations(lld)


@pytest.mark.parametrize("case", list(CASES))
def test_kernel_descriptors(case: str, pair: Callable[[str], tuple[ElfFile, ElfFile]]) -> None:
    ours, lld = pair(case)
    by_name = {s.name: s for s in ours.symtab}
    descriptors = [s for s in ours.symtab if s.name.endswith(".kd")]
    assert descriptors
    for kd in descriptors:
        assert kd.size == 64 and kd.value % 64 == 0
        raw = ours.data[ours.vaddr_to_offset(kd.value):][:64]  # type: ignore[index]
        expected = lld.data[lld.vaddr_to_offset(kd.value):][:64]  # type: ignore[index]
        assert raw == expected
        entry = kd.value + struct.unpack_from("<q", raw, 16)[0]
        kernel = by_name[kd.name.removesuffix(".kd")]
        assert entry == kernel.value and entry % 256 == 0


@pytest.mark.parametrize("case", list(CASES))
def test_loaded_segments(case: str, pair: Callable[[str], tuple[ElfFile, ElfFile]]) -> None:
    ours, lld = pair(case)
    assert loaded_segments(ours, BASE) == loaded_segments(lld, BASE)


@pytest.mark.parametrize("case", list(CASES))
def test_metadata_note(case: str, pair: Callable[[str], tuple[ElfFile, ElfFile]]) -> None:
    ours, lld = pair(case)
    assert metadata(ours) == metadata(lld)
    assert len(metadata(ours)) == 1


@pytest.mark.parametrize("case", list(CASES))
def test_llvm_tools_read_it_cleanly(case: str, pair: Callable[[str], tuple[ElfFile, ElfFile]],
                                    llvm_tool: Callable[[str], str], tmp_path: Path) -> None:
    ours, lld = pair(case)
    outputs: list[tuple[str, str]] = []
    for label, image in (("ours", ours), ("lld", lld)):
        path = tmp_path / f"{label}.hsaco"
        path.write_bytes(image.data)
        readelf = subprocess.run([llvm_tool("llvm-readelf-22"), "-a", str(path)], capture_output=True,
                                 text=True)
        objdump = subprocess.run([llvm_tool("llvm-objdump-22"), "-d", str(path)], capture_output=True,
                                 text=True)
        for run in (readelf, objdump):
            assert run.returncode == 0 and run.stderr == "" and "warning" not in run.stdout.lower()
        outputs.append((readelf.stdout, objdump.stdout.replace(str(path), "FILE")))
    assert outputs[0][1] == outputs[1][1].replace("lld.hsaco", "ours.hsaco")
    assert "s_endpgm" in outputs[0][1]


def test_deterministic(case_objects: Callable[[str], list[bytes]], tmp_path: Path) -> None:
    """Same bytes for the same inputs, also across processes with different string-hash seeds."""
    objects = case_objects("five_objects")
    expected = link_hsaco(objects)
    assert link_hsaco(list(objects)) == expected
    paths = []
    for index, data in enumerate(objects):
        paths.append(tmp_path / f"{index}.o")
        paths[-1].write_bytes(data)
    script = ("import sys; from ptx2gcn.link.linker import link_hsaco; "
              "sys.stdout.buffer.write(link_hsaco([open(p, 'rb').read() for p in sys.argv[1:]]))")
    for seed in ("1", "2"):
        run = subprocess.run([sys.executable, "-c", script, *map(str, paths)], capture_output=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": seed})
        assert run.stdout == expected


def test_globals_case_has_every_relocation_kind(pair: Callable[[str], tuple[ElfFile, ElfFile]]) -> None:
    """Guards the test inputs: they must keep exercising RELATIVE64, ABS64, the GOT and .bss."""
    ours, _ = pair("globals")
    kinds = {kind for _, kind, _, _ in dynamic_relocations(ours)}
    assert kinds == {elf.R_AMDGPU_RELATIVE64, elf.R_AMDGPU_ABS64}
    assert ours.section(".got") is not None and ours.section(".bss") is not None
    assert ours.section(".data.rel.ro") is not None


# -- two objects with two metadata notes: merged by us, concatenated by ld.lld ------------------

def placed(image: ElfFile, address: int) -> tuple[str, int]:
    for section in image.sections:
        if section.flags & elf.SHF_ALLOC and section.addr <= address < section.addr + max(section.size, 1):
            return section.name, address - section.addr
    raise AssertionError(f"address 0x{address:x} is in no section")


@pytest.fixture(scope="session")
def merged_pair(compile_kernel: Callable[..., bytes], lld_link: Callable[[Sequence[bytes]], bytes]
                ) -> tuple[ElfFile, ElfFile]:
    objects = [compile_kernel("multi_main"), compile_kernel("multi_lib")]
    return ElfFile(link_hsaco(objects)), ElfFile(lld_link(objects))


def test_two_notes_merge_into_one(merged_pair: tuple[ElfFile, ElfFile]) -> None:
    ours, lld = merged_pair
    (merged,) = metadata(ours)
    theirs = metadata(lld)
    assert len(theirs) == 2
    assert merged["amdhsa.kernels"] == theirs[0]["amdhsa.kernels"] + theirs[1]["amdhsa.kernels"]
    for key in ("amdhsa.version", "amdhsa.target"):
        assert merged[key] == theirs[0][key] == theirs[1][key]


def test_two_notes_symbols_and_relocations_normalised(merged_pair: tuple[ElfFile, ElfFile]) -> None:
    ours, lld = merged_pair

    def symbol_view(image: ElfFile, table: str) -> list[tuple[Any, ...]]:
        section = image.section(table)
        assert section is not None
        def relative(s: elf.Symbol) -> int:
            return s.value - (image.sections[s.shndx].addr if s.shndx < len(image.sections) else 0)

        return [(s.name, section_name(image, s.shndx), relative(s), s.size, s.info, s.other)
                for s in image.symbols(section)]

    def reloc_view(image: ElfFile) -> list[tuple[Any, ...]]:
        return sorted((placed(image, o), t, s, placed(image, a) if t == elf.R_AMDGPU_RELATIVE64 else a)
                      for o, t, s, a in dynamic_relocations(image))

    for table in (".dynsym", ".symtab"):
        assert symbol_view(ours, table) == symbol_view(lld, table)
    assert reloc_view(ours) == reloc_view(lld)
    for kd in (s for s in ours.symtab if s.name.endswith(".kd")):
        offset = ours.vaddr_to_offset(kd.value)
        assert offset is not None
        entry = kd.value + struct.unpack_from("<q", ours.data, offset + 16)[0]
        assert placed(ours, entry) == placed(lld, next(s.value for s in lld.symtab if s.name == kd.name[:-3]))


# -- mergeable string sections --------------------------------------------------------------------

def c_string(image: ElfFile, address: int) -> bytes:
    offset = image.vaddr_to_offset(address)
    assert offset is not None
    return image.data[offset:image.data.index(b"\0", offset)]


def test_string_references_resolve_to_the_same_strings(compile_kernel: Callable[..., bytes],
                                                       lld_link: Callable[[Sequence[bytes]], bytes]) -> None:
    objects = [compile_kernel("strings")]
    ours, lld = ElfFile(link_hsaco(objects)), ElfFile(lld_link(objects))

    def resolved(image: ElfFile) -> list[tuple[int, bytes]]:
        return [(offset, c_string(image, addend)) for offset, kind, _, addend in dynamic_relocations(image)
                if kind == elf.R_AMDGPU_RELATIVE64]

    assert resolved(ours) == resolved(lld)
    expected = [b"hello\n", b"world\n", b"value %d\n", b"hello\n", b"%d\n"]
    assert [text for _, text in resolved(ours)] == expected
    # The duplicate "hello\n" is stored once.
    hello = [address for (_, kind, _, address) in dynamic_relocations(ours)
             if kind == elf.R_AMDGPU_RELATIVE64]
    assert hello[0] == hello[3]
    # Assembler temporaries (.L*) in mergeable sections stay out of .symtab, as with ld.lld.
    assert [n for n, *_ in symbols(ours, ".symtab")] == [n for n, *_ in symbols(lld, ".symtab")]


def test_debug_info_reads_the_same(pair: Callable[[str], tuple[ElfFile, ElfFile]],
                                   llvm_tool: Callable[[str], str], tmp_path: Path) -> None:
    dumps = []
    for label, image in zip(("ours", "lld"), pair("debug_info")):
        path = tmp_path / f"{label}.hsaco"
        path.write_bytes(image.data)
        dwarfdump = llvm_tool("llvm-dwarfdump-22")
        verify = subprocess.run([dwarfdump, "--verify", str(path)], capture_output=True, text=True)
        assert verify.returncode == 0 and verify.stderr == "" and "No errors." in verify.stdout
        run = subprocess.run([dwarfdump, "--debug-info", "--debug-line", "--debug-addr", "--debug-frame",
                              "--debug-names", str(path)], capture_output=True, text=True)
        assert run.returncode == 0 and run.stderr == ""
        dumps.append(run.stdout.replace(str(path), "FILE"))
    assert dumps[0] == dumps[1]
    assert '"kernel.ptx"' in dumps[0] and "DW_AT_low_pc" in dumps[0] and "0x0000000000001600" in dumps[0]


# -- e_flags of several objects (code object v5: per-feature "any" yields to a specific setting) ---

def with_flags(obj: bytes, flags: int) -> bytes:
    patched = bytearray(obj)
    struct.pack_into("<I", patched, 0x30, flags)
    return bytes(patched)


GFX942, XNACK_ANY, XNACK_OFF, XNACK_ON, SRAMECC_ANY, SRAMECC_ON = 0x4C, 0x100, 0x200, 0x300, 0x400, 0xC00


@pytest.mark.parametrize(("first", "second"), [
    (GFX942 | XNACK_ANY | SRAMECC_ANY, GFX942 | XNACK_ON | SRAMECC_ANY),
    (GFX942 | XNACK_OFF | SRAMECC_ANY, GFX942 | XNACK_ANY | SRAMECC_ON),
    (GFX942 | XNACK_ON | SRAMECC_ON, GFX942 | XNACK_ON | SRAMECC_ON),
])
def test_compatible_e_flags_merge_as_lld(first: int, second: int, compile_kernel: Callable[..., bytes],
                                         lld_link: Callable[[Sequence[bytes]], bytes]) -> None:
    objects = [with_flags(compile_kernel("multi_main"), first),
               with_flags(without_metadata_note(compile_kernel("multi_lib")), second)]
    assert ElfFile(link_hsaco(objects)).flags == ElfFile(lld_link(objects)).flags


@pytest.mark.parametrize(("first", "second"), [
    (GFX942 | XNACK_ON | SRAMECC_ANY, GFX942 | XNACK_OFF | SRAMECC_ANY),
    (GFX942 | XNACK_ANY | SRAMECC_ON, GFX942 | XNACK_ANY),  # sramecc unsupported in the second
    (GFX942 | XNACK_ANY | SRAMECC_ANY, 0x4A | XNACK_ANY | SRAMECC_ANY),  # another machine
])
def test_incompatible_e_flags_fail_as_in_lld(first: int, second: int, compile_kernel: Callable[..., bytes],
                                             lld_link: Callable[[Sequence[bytes]], bytes]) -> None:
    objects = [with_flags(compile_kernel("multi_main"), first),
               with_flags(without_metadata_note(compile_kernel("multi_lib")), second)]
    with pytest.raises(subprocess.CalledProcessError):
        lld_link(objects)
    with pytest.raises(LinkError, match=r"^<object 1>: error: e_flags 0x"):
        link_hsaco(objects)


# -- relocation types LLVM rarely emits, on the same site: compared with ld.lld -------------------

def with_first_text_relocation(obj: bytes, kind: int) -> bytes:
    """``calls`` with its first .text relocation (REL32_LO against .text+0x1c) turned into ``kind``."""
    image = ElfFile(obj)
    rela = image.section(".rela.text")
    assert rela is not None and image.relocations(rela)[0].type == elf.R_AMDGPU_REL32_LO
    patched = bytearray(obj)
    info = struct.unpack_from("<Q", patched, rela.offset + 8)[0]
    struct.pack_into("<Q", patched, rela.offset + 8, (info & ~0xFFFFFFFF) | kind)
    return bytes(patched)


@pytest.mark.parametrize("kind", [elf.R_AMDGPU_REL16, elf.R_AMDGPU_REL32, elf.R_AMDGPU_REL64,
                                  elf.R_AMDGPU_GOTPCREL, elf.R_AMDGPU_GOTPCREL32_LO])
def test_other_relocation_types_as_lld(kind: int, compile_kernel: Callable[..., bytes],
                                       lld_link: Callable[[Sequence[bytes]], bytes]) -> None:
    """GOTPCREL against a local section symbol also gives a GOT slot with a RELATIVE64 relocation."""
    objects = [with_first_text_relocation(compile_kernel("calls"), kind)]
    ours, lld = ElfFile(link_hsaco(objects)), ElfFile(lld_link(objects))
    assert ours.segments == lld.segments
    assert dynamic_relocations(ours) == dynamic_relocations(lld)
    assert loaded_segments(ours, BASE) == loaded_segments(lld, BASE)


def test_none_relocation_is_ignored(compile_kernel: Callable[..., bytes]) -> None:
    """ld.lld rejects R_AMDGPU_NONE ("unknown relocation (0)"); AMDGPUUsage defines it as no-op."""
    obj = with_first_text_relocation(compile_kernel("calls"), elf.R_AMDGPU_NONE)
    image = ElfFile(link_hsaco([obj]))
    rela = ElfFile(obj).section(".rela.text")
    assert rela is not None
    site = ElfFile(obj).relocations(rela)[0].offset
    text_in, text_out = ElfFile(obj).section(".text"), image.section(".text")
    assert text_in is not None and text_out is not None
    assert image.section_data(text_out)[site:site + 4] == ElfFile(obj).section_data(text_in)[site:site + 4]
