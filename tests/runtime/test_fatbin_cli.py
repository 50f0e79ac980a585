"""``ptx2gcn fatbin list|extract`` through the CLI entry point."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ptx2gcn.cli import main

PTX = b".version 8.0\n.target sm_80\n.address_size 64\n"
SASS = b"\x7fELF" + bytes(60)


@pytest.fixture
def two_entry_fatbin(tmp_path: Path, fatbin_writer: Callable[..., bytes], entry_spec: Any) -> Path:
    path = tmp_path / "app.fatbin"
    path.write_bytes(
        fatbin_writer(
            entry_spec(kind=2, payload=SASS, arch=90, major=1, minor=8),
            entry_spec(payload=PTX, arch=80, compression="lz4", options="-O3", identifier="src/app.cu"),
        )
    )
    return path


def test_list_table(two_entry_fatbin: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fatbin", "list", str(two_entry_fatbin)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == [
        "C.E",
        "OFFSET",
        "KIND",
        "ARCH",
        "PTX",
        "COMPRESS",
        "SIZE",
        "SECTION",
        "OPTIONS",
    ]
    assert lines[1].split()[:4] == ["0.0", "0x10", "elf", "sm_90"]
    assert lines[2].split()[:7] == ["*", "0.1", f"0x{16 + 64 + 64:x}", "ptx", "sm_80", "8.0", "lz4"]
    assert lines[2].split()[-1] == "'-O3'"


def test_list_json(two_entry_fatbin: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fatbin", "list", "--json", str(two_entry_fatbin)]) == 0
    report = json.loads(capsys.readouterr().out)
    (container,) = report["containers"]
    sass, ptx = container["entries"]
    assert (sass["kind"], sass["arch"], sass["selected"]) == ("elf", "sm_90", False)
    assert (ptx["kind"], ptx["ptx_version"], ptx["compression"], ptx["selected"]) == (
        "ptx",
        "8.0",
        "lz4",
        True,
    )
    assert ptx["size"] == len(PTX) + 1 and ptx["identifier"] == "src/app.cu"
    assert ptx["flag_names"] == ["address_64", "host_linux", "compressed_lz4"]


def test_extract_writes_named_payloads(
    two_entry_fatbin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["fatbin", "extract", str(two_entry_fatbin), "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "0.0.sm_90.cubin",
        "0.1.sm_80.app.cu.ptx",
        "manifest.json",
    ]
    manifest = json.loads((out / "manifest.json").read_text())
    assert [(e["file"], e["kind"], e["options"]) for e in manifest["entries"]] == [
        ("0.0.sm_90.cubin", "elf", ""),
        ("0.1.sm_80.app.cu.ptx", "ptx", "-O3"),
    ]
    assert (out / "0.1.sm_80.app.cu.ptx").read_bytes() == PTX
    assert (out / "0.0.sm_90.cubin").read_bytes() == SASS
    assert "0.1.sm_80.app.cu.ptx  (44 bytes)" in capsys.readouterr().out


def test_bad_input_is_a_located_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "truncated.fatbin"
    path.write_bytes(bytes.fromhex("50ed55ba01001000") + (1000).to_bytes(8, "little"))
    assert main(["fatbin", "list", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}: error: offset 0x0: container of 0x3f8 bytes runs past the end")
    assert "Traceback" not in err
    assert main(["fatbin", "list", str(tmp_path / "missing")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_executable_listing(cuda_build: Callable[..., Path], capsys: pytest.CaptureFixture[str]) -> None:
    exe = cuda_build(
        "saxpy.exe",
        "-gencode=arch=compute_80,code=compute_80",
        "-gencode=arch=compute_90,code=sm_90",
        "saxpy.cu",
    )
    assert main(["fatbin", "list", "--json", str(exe)]) == 0
    report = json.loads(capsys.readouterr().out)
    selected = [e for c in report["containers"] for e in c["entries"] if e["selected"]]
    assert [(e["kind"], e["arch"], e["section"], e["registered"]) for e in selected] == [
        ("ptx", "sm_80", ".nv_fatbin", True)
    ]
