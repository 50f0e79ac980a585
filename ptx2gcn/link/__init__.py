"""ELF and AMDGPU code objects: reading and writing ELF, ptx2gcn's own linker, the code-object reader.

Invariant: ``linker.link_hsaco`` turns LLVM's relocatable AMDGPU objects into an HSA code object v5
that ``ld.lld`` would produce for the same inputs (checked against it in ``tests/link``), or raises a
``LinkError``; ``codeobject.read_code_object`` reads such an object back (metadata note, kernel
descriptors) or raises a ``CodeObjectError``. Nothing here knows PTX or the IR; the runtime reads
code objects through ``elf`` and ``codeobject`` only.

Layout: ``elf`` (reader, constants) and ``elf_writer``; ``linker`` over ``inputs`` (reading the
objects), ``symbols``, ``sections``, ``layout`` (addresses), ``relocs`` (applying relocations);
``codeobject`` (the reader). This ``__init__`` imports nothing, so loading ``link.elf`` stays cheap.
"""
