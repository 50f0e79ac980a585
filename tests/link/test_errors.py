"""Bad input to ``link_hsaco`` gives a ``LinkError`` (a ``Ptx2GcnError``) whose message names the
object and the symbol or section, never a traceback from deep inside the linker."""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Callable
from typing import cast

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.link import elf
from ptx2gcn.link.elf import ElfFile
from ptx2gcn.link.linker import EF_AMDGPU_MACH, LinkError, link_hsaco
from ptx2gcn.link.sections import metadata_document
from ptx2gcn.options import CompileOptions


def patch_section_header(obj: bytes, name: str, field_offset: int, fmt: str, value: int) -> bytes:
    image = ElfFile(obj)
    section = image.section(name)
    assert section is not None
    out = bytearray(obj)
    struct.pack_into(fmt, out, image.shoff + section.index * 64 + field_offset, value)
    return bytes(out)


def patch_first_relocation_type(obj: bytes, rela_name: str, kind: int) -> bytes:
    image = ElfFile(obj)
    rela = image.section(rela_name)
    assert rela is not None
    out = bytearray(obj)
    info = struct.unpack_from("<Q", out, rela.offset + 8)[0]
    struct.pack_into("<Q", out, rela.offset + 8, (info & ~0xFFFFFFFF) | kind)
    return bytes(out)


def link_error(*objects: bytes) -> str:
    with pytest.raises(LinkError) as caught:
        link_hsaco(objects)
    assert isinstance(caught.value, Ptx2GcnError)
    return str(caught.value)


def test_no_objects() -> None:
    with pytest.raises(LinkError, match="no input objects"):
        link_hsaco([])


def test_names_label_the_objects(compile_kernel: Callable[..., bytes]) -> None:
    with pytest.raises(LinkError) as caught:
        link_hsaco([compile_kernel("multi_main")], names=["main.o"])
    assert str(caught.value).startswith("main.o: error: undefined symbol ")


def test_undefined_symbol(compile_kernel: Callable[..., bytes]) -> None:
    message = link_error(compile_kernel("multi_main"))
    assert message == ("<object 0>: error: undefined symbol 'lib_scale' "
                       "(referenced by R_AMDGPU_GOTPCREL32_LO at section .text+0xc)")


def test_duplicate_definition(compile_kernel: Callable[..., bytes]) -> None:
    lib = compile_kernel("multi_lib")
    assert link_error(lib, lib) == "<object 1>: error: duplicate symbol 'lib_fn' (also defined in <object 0>)"


def test_mismatched_e_flags(compile_kernel: Callable[..., bytes]) -> None:
    message = link_error(compile_kernel("vadd"), compile_kernel("multi_lib", arch="gfx90a"))
    assert "<object 1>: error: e_flags 0x" in message and "do not match 0x54c of <object 0>" in message


def test_wrong_machine(compile_kernel: Callable[..., bytes]) -> None:
    obj = bytearray(compile_kernel("vadd"))
    struct.pack_into("<H", obj, 18, elf.EM_X86_64)
    assert link_error(bytes(obj)) == "<object 0>: error: wrong machine 62, expected EM_AMDGPU (224)"


def test_not_relocatable(compile_kernel: Callable[..., bytes]) -> None:
    linked = link_hsaco([compile_kernel("vadd")])
    assert link_error(linked) == "<object 0>: error: not a relocatable object (ELF type 3)"


def test_not_elf() -> None:
    assert "not an ELF file" in link_error(b"PK\x03\x04 not an object")


@pytest.mark.parametrize("fraction", [0.0, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99])
def test_truncated_object(fraction: float, compile_kernel: Callable[..., bytes]) -> None:
    obj = compile_kernel("globals")
    message = link_error(obj[:int(len(obj) * fraction)])
    assert message.startswith("<object 0>: error: ")


def first_relocation_offset(obj: bytes, rela_name: str) -> int:
    image = ElfFile(obj)
    rela = image.section(rela_name)
    assert rela is not None
    return image.relocations(rela)[0].offset


def test_unsupported_relocation_type(compile_kernel: Callable[..., bytes]) -> None:
    obj = patch_first_relocation_type(compile_kernel("calls"), ".rela.text", elf.R_AMDGPU_ABS32_LO)
    where = first_relocation_offset(obj, ".rela.text")
    assert link_error(obj) == ("<object 0>: error: unsupported relocation R_AMDGPU_ABS32_LO at section "
                               f".text+0x{where:x}")


def test_unknown_relocation_type(compile_kernel: Callable[..., bytes]) -> None:
    obj = patch_first_relocation_type(compile_kernel("calls"), ".rela.text", 99)
    where = first_relocation_offset(obj, ".rela.text")
    assert link_error(obj) == (f"<object 0>: error: unsupported relocation type 99 at section "
                               f".text+0x{where:x}")


def test_dynamic_relocation_in_read_only_section(compile_kernel: Callable[..., bytes]) -> None:
    # .data.rel.ro without SHF_WRITE: its function pointers would need load-time patching of read-only memory.
    obj = patch_section_header(compile_kernel("calls"), ".data.rel.ro", 8, "<Q", elf.SHF_ALLOC)
    assert link_error(obj) == ("<object 0>: error: R_AMDGPU_ABS64 against symbol 'plus_one' at section "
                               ".data.rel.ro+0x0 needs a dynamic relocation, but section .data.rel.ro is "
                               "read-only")


def test_abs32_against_relocatable_symbol(compile_kernel: Callable[..., bytes]) -> None:
    obj = patch_first_relocation_type(compile_kernel("calls"), ".rela.data", elf.R_AMDGPU_ABS32)
    assert link_error(obj) == ("<object 0>: error: R_AMDGPU_ABS32 against symbol 'twice' at section "
                               ".data+0x0 cannot be relocated at load time (only R_AMDGPU_ABS64 can)")


def test_pc_relative_reference_to_preemptible_symbol(compile_kernel: Callable[..., bytes]) -> None:
    # The kernel's GOT load of 'table' rewritten as a PC-relative reference: 'table' has default visibility.
    obj = patch_first_relocation_type(compile_kernel("globals"), ".rela.text", elf.R_AMDGPU_REL32_LO)
    assert link_error(obj) == ("<object 0>: error: R_AMDGPU_REL32_LO against symbol 'table' at section "
                               ".text+0x10 cannot be resolved at link time: the symbol is preemptible "
                               "(default visibility)")


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_corrupted_bytes_never_escape_as_other_exceptions(data: st.DataObject,
                                                          compile_kernel: Callable[..., bytes]) -> None:
    names = data.draw(st.sampled_from([("globals",), ("calls",), ("multi_main", "multi_lib")]))
    obj = bytearray(compile_kernel(names[0]))
    for _ in range(data.draw(st.integers(1, 8))):
        # Half the hits go to the tail, where the section headers and symbol/relocation tables are.
        low = data.draw(st.sampled_from([0, max(0, len(obj) - 0x400)]))
        position = data.draw(st.integers(low, len(obj) - 1))
        obj[position] = data.draw(st.integers(0, 255))
    with contextlib.suppress(LinkError):  # a LinkError is fine; any other exception fails
        link_hsaco([bytes(obj), *(compile_kernel(name) for name in names[1:])])


def test_writable_mergeable_section(compile_kernel: Callable[..., bytes]) -> None:
    obj = patch_section_header(compile_kernel("strings"), ".rodata.str1.1", 8, "<Q",
                               elf.SHF_ALLOC | elf.SHF_WRITE | 0x30)
    assert link_error(obj) == "<object 0>: error: mergeable section .rodata.str1.1 is writable"


def test_unterminated_mergeable_string(compile_kernel: Callable[..., bytes]) -> None:
    obj = bytearray(compile_kernel("strings"))
    strings = ElfFile(bytes(obj)).section(".rodata.str1.1")
    assert strings is not None
    obj[strings.offset + strings.size - 1] = ord("!")
    assert link_error(bytes(obj)) == ("<object 0>: error: mergeable section .rodata.str1.1: "
                                      "the last string is not null-terminated")


def test_unreferenced_undefined_symbol(compile_kernel: Callable[..., bytes]) -> None:
    # multi_lib defines lib_scale but never refers to it; make the definition an undefined symbol.
    obj = bytearray(compile_kernel("multi_lib"))
    image = ElfFile(bytes(obj))
    symtab = image.section(".symtab")
    assert symtab is not None
    index = [s.name for s in image.symbols(symtab)].index("lib_scale")
    struct.pack_into("<H", obj, symtab.offset + 24 * index + 6, elf.SHN_UNDEF)
    assert link_error(bytes(obj)) == "<object 0>: error: undefined symbol 'lib_scale'"


def test_unreadable_metadata_in_a_second_object(compile_kernel: Callable[..., bytes]) -> None:
    lib = bytearray(compile_kernel("multi_lib"))
    note = ElfFile(bytes(lib)).section(".note")
    assert note is not None
    lib[note.offset + 12 + 8] = 0xC1  # the descriptor's first byte (after the header and "AMDGPU\0\0")
    message = link_error(compile_kernel("multi_main"), bytes(lib))
    assert message.startswith("section .note: error: unreadable AMDGPU metadata: ")


@pytest.mark.parametrize("document", [42, [1, 2], {"amdhsa.kernels": 7}])
def test_metadata_that_is_not_a_kernel_map(document: object) -> None:
    with pytest.raises(LinkError, match="AMDGPU metadata is not a map with an amdhsa.kernels list"):
        metadata_document(cast(bytes, msgpack.packb(document)), "section .note")


def test_dynamic_section_in_a_relocatable_object(compile_kernel: Callable[..., bytes]) -> None:
    obj = patch_section_header(compile_kernel("vadd"), ".AMDGPU.gpr_maximums", 4, "<I", elf.SHT_DYNAMIC)
    assert link_error(obj) == ("<object 0>: error: section .AMDGPU.gpr_maximums: type 6 belongs in a linked "
                               "file, not in a relocatable object")


def test_relocations_for_a_section_without_contents(compile_kernel: Callable[..., bytes]) -> None:
    obj = patch_section_header(compile_kernel("calls"), ".data", 4, "<I", elf.SHT_NOBITS)
    assert link_error(obj) == ("<object 0>: error: section .rela.data relocates .data, which has no contents "
                               "(SHT_NOBITS)")


_SHDR_FIELDS = [(0, "<I"), (4, "<I"), (8, "<Q"), (24, "<Q"), (32, "<Q"), (40, "<I"), (44, "<I"), (48, "<Q"),
                (56, "<Q")]
_INTERESTING = [0, 1, 2, 3, 4, 6, 7, 8, 9, 11, 14, 0x10, 0x20, 0x30, 0x40, 0xFF, 0x100, 0x1000, 0xFFFF, 0xFF00,
                0xFFF1, 0xFFF2, 2**31, 2**32 - 1, 2**63, 2**64 - 1]


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_corrupted_section_headers_give_link_errors(data: st.DataObject,
                                                   compile_kernel: Callable[..., bytes]) -> None:
    names = data.draw(st.sampled_from([("calls",), ("strings",), ("debug_info",), ("multi_main", "multi_lib")]))
    obj = bytearray(compile_kernel(names[0]))
    image = ElfFile(bytes(obj))
    for _ in range(data.draw(st.integers(1, 3))):
        index = data.draw(st.integers(0, len(image.sections) - 1))
        offset, fmt = data.draw(st.sampled_from(_SHDR_FIELDS))
        bits = 8 * struct.calcsize(fmt)
        value = data.draw(st.sampled_from(_INTERESTING) | st.integers(0, 2**bits - 1)) & (2**bits - 1)
        struct.pack_into(fmt, obj, image.shoff + index * 64 + offset, value)
    with contextlib.suppress(LinkError):  # a LinkError is fine; any other exception fails
        link_hsaco([bytes(obj), *(compile_kernel(name) for name in names[1:])])


@pytest.mark.parametrize("arch", sorted(EF_AMDGPU_MACH))
def test_objects_must_be_for_the_requested_arch(arch: str, compile_kernel: Callable[..., bytes]) -> None:
    """The compilation's options reach the linker: an object LLVM built for ``arch`` carries that
    machine in e_flags (checked here against LLVM itself), links under ``--arch arch`` and is refused
    under any other arch with a located error."""
    obj = compile_kernel("vadd", arch=arch)
    assert struct.unpack_from("<I", obj, 48)[0] & 0xFF == EF_AMDGPU_MACH[arch]
    link_hsaco([obj], options=CompileOptions(arch=arch))
    other = next(a for a in sorted(EF_AMDGPU_MACH) if a != arch)
    with pytest.raises(LinkError) as caught:
        link_hsaco([obj], ["k.o"], CompileOptions(arch=other))
    assert f"k.o: error: built for e_flags machine 0x{EF_AMDGPU_MACH[arch]:03x}, not for --arch {other}" in \
        str(caught.value)
