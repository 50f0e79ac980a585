"""Symbol resolution: every symbol of every input object mapped to one ``LinkSymbol``.

Invariant: after ``resolve_symbols`` ran over all objects in link order, each global name has exactly
one ``LinkSymbol`` in the table, shared by every object's reference to it: a strong definition wins
over a weak one, the first weak one over none, two strong ones are a ``LinkError``, and the
visibility is the most constraining one any object gave (ld.lld's rules). Locals stay private to
their object; ``InputObject.locals`` keeps the ones ld.lld writes to ``.symtab``.
"""

from __future__ import annotations

from ptx2gcn.link import elf
from ptx2gcn.link.elf import Symbol
from ptx2gcn.link.inputs import InputObject, InputSection, LinkError, LinkSymbol


def _min_visibility(a: int, b: int) -> int:
    """The more constraining of two visibilities (internal < hidden < protected < default)."""
    if a == elf.STV_DEFAULT:
        return b
    if b == elf.STV_DEFAULT:
        return a
    return min(a, b)


def _symbol_of(obj: InputObject, raw: Symbol) -> LinkSymbol:
    section: InputSection | None = None
    defined = raw.shndx != elf.SHN_UNDEF
    if raw.shndx == elf.SHN_COMMON:
        raise LinkError.of(obj.name, f"common symbol '{raw.name}' is not supported")
    if defined and raw.shndx != elf.SHN_ABS:
        if raw.shndx >= 0xFF00:
            raise LinkError.of(obj.name, f"symbol '{raw.name}' has unsupported section index 0x{raw.shndx:x}")
        section = obj.sections.get(raw.shndx)
        defined = section is not None
    name = section.name if section is not None and raw.type == elf.STT_SECTION else raw.name
    return LinkSymbol(name, raw.binding, raw.type, raw.size, raw.visibility, section, raw.value, defined,
                      obj.name)


def resolve_symbols(obj: InputObject, table: dict[str, LinkSymbol]) -> None:
    """Fill ``obj.symbols``: locals are private; globals are merged into ``table``."""
    symtab = next((s for s in obj.elf.sections if s.type == elf.SHT_SYMTAB), None)
    raw_symbols = obj.elf.symbols(symtab) if symtab is not None else []
    first_global = symtab.info if symtab is not None else 0
    for index, raw in enumerate(raw_symbols):
        symbol = _symbol_of(obj, raw)
        if index == 0:
            symbol.defined = True  # the null symbol: S = 0
        if (index < first_global) != (raw.binding == elf.STB_LOCAL):
            side = "before" if index < first_global else "after"
            raise LinkError.of(obj.name, f"symbol '{raw.name}' (#{index}) has binding {raw.binding} but lies "
                               f"{side} the first global (#{first_global})")
        if index < first_global:
            if _keep_local(symbol, raw) and index:
                obj.locals.append(symbol)
            obj.symbols.append(symbol)
            continue
        obj.symbols.append(_merge_global(table, symbol))


def _keep_local(symbol: LinkSymbol, raw: Symbol) -> bool:
    """ld.lld's .symtab rule for locals: no section symbols, and no assembler temporaries (.L*) in
    mergeable sections (they are why the assembler kept such labels)."""
    if not symbol.defined or raw.type == elf.STT_SECTION or not raw.name:
        return False
    in_merge = symbol.section is not None and symbol.section.header.flags & elf.SHF_MERGE
    return not (raw.name.startswith(".L") and in_merge)


def _merge_global(table: dict[str, LinkSymbol], new: LinkSymbol) -> LinkSymbol:
    old = table.setdefault(new.name, new)
    if old is new:
        return new
    old.visibility = _min_visibility(old.visibility, new.visibility)
    if not new.defined:
        return old
    if not old.defined or (old.binding == elf.STB_WEAK and new.binding != elf.STB_WEAK):
        old.adopt(new)
    elif new.binding != elf.STB_WEAK and old.binding != elf.STB_WEAK:
        raise LinkError.of(new.where, f"duplicate symbol '{new.name}' (also defined in {old.where})")
    return old
