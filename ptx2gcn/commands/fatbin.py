"""``ptx2gcn fatbin list|extract FILE``: show and unpack the CUDA fatbins in a file.

Invariant: the command only reads its input and (for ``extract``) writes into the output folder
(one file per entry, named ``<container>.<entry>.<arch>[.<source>].<ptx|cubin|ltoir>``, and
``manifest.json``); a
malformed input is a ``FatbinError`` (exit 1) naming the file and offset. The entry ptx2gcn would
recompile from each module container is marked ``*`` (``selected`` in JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.output_file import write_output
from ptx2gcn.runtime.fatbin import (
    Container,
    EntryFlags,
    Fatbin,
    FatbinEntry,
    module_containers,
    read_fatbin_file,
    select_ptx,
)

_EXTENSIONS = {"ptx": "ptx", "elf": "cubin", "ltoir": "ltoir"}


_DESCRIPTION = (
    "Inspect CUDA fatbinaries: standalone .fatbin files, or the fatbins inside ELF executables, shared "
    "libraries and objects."
)
_FILE_HELP = "a .fatbin, or an ELF file built by nvcc"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "fatbin", help="list or extract the entries of CUDA fatbins", description=_DESCRIPTION
    )
    actions = parser.add_subparsers(dest="fatbin_action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="print every container and entry")
    listing.add_argument("file", type=Path, help=_FILE_HELP)
    listing.add_argument("--json", action="store_true", help="print JSON instead of a table")
    listing.set_defaults(handler=_list)
    extract = actions.add_parser("extract", help="write every entry's (decompressed) payload to a folder")
    extract.add_argument("file", type=Path, help=_FILE_HELP)
    extract.add_argument("-o", "--output", type=Path, required=True, help="output folder (created)")
    extract.set_defaults(handler=_extract)


def _selected(fatbin: Fatbin) -> set[int]:
    """Offsets of the entries ptx2gcn would recompile (containers without usable PTX have none)."""
    chosen: set[int] = set()
    for container in module_containers(fatbin):
        try:
            chosen.add(select_ptx(container).offset)
        except Ptx2GcnError:
            continue
    return chosen


def _describe(ci: int, ei: int, container: Container, entry: FatbinEntry, selected: bool) -> dict[str, Any]:
    return {
        "container": ci,
        "entry": ei,
        "offset": entry.offset,
        "section": container.section,
        "registered": container.registered,
        "kind": entry.kind_label,
        "arch": entry.arch_name,
        "ptx_version": f"{entry.ptx_version[0]}.{entry.ptx_version[1]}" if entry.is_ptx else None,
        "compression": entry.compression,
        "stored_bytes": entry.payload_size,
        "size": entry.uncompressed_size if entry.compression != "none" else entry.payload_size,
        "flags": entry.flags,
        "flag_names": [flag.name.lower() for flag in EntryFlags if flag.name and entry.flags & flag],
        "options": entry.options,
        "identifier": entry.identifier,
        "selected": selected,
    }


def _rows(fatbin: Fatbin) -> list[dict[str, Any]]:
    chosen = _selected(fatbin)
    return [
        _describe(ci, ei, c, e, e.offset in chosen)
        for ci, c in enumerate(fatbin.containers)
        for ei, e in enumerate(c.entries)
    ]


def _list(args: argparse.Namespace) -> int:
    fatbin = read_fatbin_file(args.file)
    rows = _rows(fatbin)
    if args.json:
        containers = [
            {
                "index": i,
                "offset": c.offset,
                "section": c.section,
                "registered": c.registered,
                "entries": [r for r in rows if r["container"] == i],
            }
            for i, c in enumerate(fatbin.containers)
        ]
        json.dump({"file": str(args.file), "containers": containers}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    header = ("", "C.E", "OFFSET", "KIND", "ARCH", "PTX", "COMPRESS", "SIZE", "SECTION", "OPTIONS")
    table = [header] + [
        (
            "*" if r["selected"] else "",
            f"{r['container']}.{r['entry']}",
            f"0x{r['offset']:x}",
            r["kind"],
            r["arch"],
            r["ptx_version"] or "-",
            r["compression"],
            str(r["size"]),
            (r["section"] or "-") + ("" if r["registered"] or not r["section"] else " (unregistered)"),
            repr(r["options"].strip()) if r["options"].strip() else "-",
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        sys.stdout.write(
            "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)).rstrip() + "\n"
        )
    if not rows:
        sys.stdout.write("(no entries)\n")
    return 0


def entry_file_name(ci: int, ei: int, entry: FatbinEntry) -> str:
    """``<container>.<entry>.<arch>[.<identifier>].<ext>``, e.g. ``0.1.sm_80.ptx``."""
    ext = _EXTENSIONS.get(entry.kind_label, "bin")
    ident = Path(entry.identifier).name if entry.identifier else ""
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in ident).strip(".")
    return f"{ci}.{ei}.{entry.arch_name}{'.' + safe if safe else ''}.{ext}"


def _extract(args: argparse.Namespace) -> int:
    """Write every payload, plus ``manifest.json``: the ``list --json`` rows with a ``file`` field."""
    fatbin = read_fatbin_file(args.file)
    rows = _rows(fatbin)
    entries = [e for c in fatbin.containers for e in c.entries]
    payloads = [
        (entry_file_name(r["container"], r["entry"], e), e.payload())
        for r, e in zip(rows, entries, strict=True)
    ]
    manifest = {
        "file": str(args.file),
        "entries": [{**r, "file": name} for r, (name, _) in zip(rows, payloads, strict=True)],
    }
    try:
        args.output.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise Ptx2GcnError.at(None, f"{args.output}: cannot write: {error.strerror or error}") from None
    for name, data in payloads:
        write_output(str(args.output / name), data)
    write_output(str(args.output / "manifest.json"), (json.dumps(manifest, indent=2) + "\n").encode())
    for name, data in payloads:
        sys.stdout.write(f"{args.output / name}  ({len(data)} bytes)\n")
    return 0
