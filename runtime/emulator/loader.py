"""Loads an AMDGPU code object for the emulator: PT_LOAD image, dynamic relocations, kernels.

Invariant: a ``Program`` is immutable after ``load``; it holds the unrelocated image, the dynamic
relocations to apply, the kernels (``ptx2gcn.link.codeobject``) and the executable ranges (decoded and
bound once by the executor). ``map_into``
places the image in a ``DeviceMemory`` once per memory (relocations applied against that base, so
GOT entries hold device addresses) and returns the base; PCs the executor sees are device addresses.
Unsupported relocation types and undefined symbols are load errors, never silent zeros.
"""

from __future__ import annotations

import struct
import weakref
from dataclasses import dataclass, field

from ptx2gcn.link.codeobject import CodeObject, CodeObjectError, Kernel, read_code_object
from ptx2gcn.link.elf import (
    PT_LOAD,
    R_AMDGPU_ABS64,
    R_AMDGPU_NONE,
    R_AMDGPU_RELATIVE64,
    SHF_ALLOC,
    SHF_EXECINSTR,
    SHN_ABS,
    SHT_DYNSYM,
    SHT_RELA,
    Symbol,
)
from ptx2gcn.runtime.emulator.memory import DeviceMemory

IMAGE_ALIGN = 4096


@dataclass(frozen=True, slots=True)
class DynamicRelocation:
    """A relocation to apply when the image is placed: the 8 bytes at ``offset`` get ``value``."""

    offset: int
    type: int
    symbol_value: int | None  # image offset of the symbol for ABS64; None for RELATIVE64
    addend: int

    def value(self, base: int) -> int:
        if self.type == R_AMDGPU_RELATIVE64:
            return base + self.addend
        assert self.symbol_value is not None
        return base + self.symbol_value + self.addend


@dataclass(frozen=True, slots=True)
class TextRange:
    """An executable section of the image (image offsets, end exclusive)."""

    start: int
    end: int


@dataclass(eq=False)
class Program:
    """A loaded code object: image, relocations, kernels, executable ranges."""

    name: str
    code_object: CodeObject
    image: bytes
    relocations: tuple[DynamicRelocation, ...]
    text: tuple[TextRange, ...]
    _bases: weakref.WeakKeyDictionary[DeviceMemory, int] = field(default_factory=weakref.WeakKeyDictionary)

    @property
    def kernels(self) -> dict[str, Kernel]:
        return self.code_object.kernels

    def kernel(self, name: str) -> Kernel:
        from ptx2gcn.runtime.emulator.errors import LaunchError

        found = self.kernels.get(name)
        if found is None:
            known = ", ".join(sorted(self.kernels)) or "none"
            raise LaunchError(f"{self.name}: no kernel named {name!r} (kernels: {known})")
        return found

    def relocated_image(self, base: int) -> bytes:
        image = bytearray(self.image)
        for reloc in self.relocations:
            struct.pack_into("<Q", image, reloc.offset, reloc.value(base) & (2**64 - 1))
        return bytes(image)

    def _symbol(self, name: str) -> Symbol:
        from ptx2gcn.runtime.emulator.errors import LaunchError

        for symbol in self.code_object.elf.symtab:
            if symbol.name == name and symbol.defined and symbol.shndx != SHN_ABS:
                return symbol
        raise LaunchError(f"{self.name}: no symbol named {name!r} in the code object")

    def symbol_address(self, memory: DeviceMemory, name: str) -> int:
        """Device address of a defined symbol (a global variable, a kernel) once mapped into ``memory``;
        ``LaunchError`` naming the symbol when it is not defined."""
        return self.map_into(memory) + self._symbol(name).value

    def symbol_size(self, name: str) -> int:
        """Size in bytes of a defined symbol (``st_size``), e.g. for ``cuModuleGetGlobal``."""
        return self._symbol(name).size

    def map_into(self, memory: DeviceMemory) -> int:
        """Device address of this program's image in ``memory`` (placed on first use)."""
        base = self._bases.get(memory)
        if base is None:
            base = memory.alloc(len(self.image), IMAGE_ALIGN)
            memory.write(base, self.relocated_image(base))
            self._bases[memory] = base
        return base


def _image(code: CodeObject, name: str) -> bytes:
    loads = [s for s in code.elf.segments if s.type == PT_LOAD]
    if not loads:
        raise CodeObjectError.make(name, "no PT_LOAD segment")
    size = max(s.vaddr + s.memsz for s in loads)
    image = bytearray(size)
    for seg in loads:
        if seg.filesz > seg.memsz or seg.offset + seg.filesz > len(code.elf.data):
            raise CodeObjectError.make(name, f"PT_LOAD at 0x{seg.vaddr:x} has inconsistent sizes")
        image[seg.vaddr : seg.vaddr + seg.filesz] = code.elf.data[seg.offset : seg.offset + seg.filesz]
    return bytes(image)


def _relocations(code: CodeObject, name: str, image_size: int) -> tuple[DynamicRelocation, ...]:
    elf = code.elf
    out: list[DynamicRelocation] = []
    for section in elf.sections:
        if section.type != SHT_RELA or not section.flags & SHF_ALLOC:
            continue
        symtab = elf.sections[section.link] if 0 < section.link < len(elf.sections) else None
        symbols = elf.symbols(symtab) if symtab is not None and symtab.type == SHT_DYNSYM else []
        for reloc in elf.relocations(section):
            if reloc.type == R_AMDGPU_NONE:
                continue
            if reloc.offset + 8 > image_size:
                raise CodeObjectError.make(name, f"relocation at 0x{reloc.offset:x} lies outside the image")
            if reloc.type == R_AMDGPU_RELATIVE64:
                out.append(DynamicRelocation(reloc.offset, reloc.type, None, reloc.addend))
            elif reloc.type == R_AMDGPU_ABS64:
                if not 0 < reloc.symbol < len(symbols) or not symbols[reloc.symbol].defined:
                    raise CodeObjectError.make(
                        name,
                        f"relocation at 0x{reloc.offset:x} names an undefined "
                        f"symbol (index {reloc.symbol}); the emulator links nothing",
                    )
                out.append(
                    DynamicRelocation(reloc.offset, reloc.type, symbols[reloc.symbol].value, reloc.addend)
                )
            else:
                raise CodeObjectError.make(
                    name,
                    f"unsupported dynamic relocation type {reloc.type} "
                    f"at 0x{reloc.offset:x} in {section.name}",
                )
    return tuple(out)


def load(hsaco: bytes, name: str = "<code object>") -> Program:
    """Parse and prepare a code object (``ld.lld -shared`` output or the project's own linker's)."""
    code = read_code_object(hsaco, name)
    image = _image(code, name)
    text = tuple(
        TextRange(s.addr, s.addr + s.size)
        for s in code.elf.sections
        if s.flags & SHF_EXECINSTR and s.flags & SHF_ALLOC and s.size
    )
    for kernel in code.kernels.values():
        if not any(r.start <= kernel.entry_address < r.end for r in text):
            raise CodeObjectError.make(
                name,
                f"kernel {kernel.name!r}: entry 0x{kernel.entry_address:x} is not in an executable section",
            )
    return Program(name, code, image, _relocations(code, name, len(image)), text)
