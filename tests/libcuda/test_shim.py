"""The shim's construction: the export table, the generated C text and ``ptx2gcn exec``'s own behaviour."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ptx2gcn.runtime.libcuda import abi, bridge
from ptx2gcn.runtime.libcuda.csource import c_source

CUDA_H = Path("/usr/local/cuda/include/cuda.h")


def test_every_export_has_a_handler_and_no_handler_is_extra() -> None:
    assert set(bridge.HANDLERS) == {export.symbol for export in abi.EXPORTS}


def test_generated_source_compiles_cleanly_with_warnings_as_errors(tmp_path: Path, shim_dir: Path) -> None:
    source = tmp_path / "shim.c"
    source.write_text(c_source("/nonexistent/libpython.so"))
    command = ["cc", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", str(source)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_exported_dynamic_symbols_are_the_table_plus_proc_address_and_export_table(shim_dir: Path) -> None:
    done = subprocess.run(
        ["nm", "-D", "--defined-only", str(shim_dir / "libcuda.so.1")], capture_output=True, text=True, check=True
    )
    functions = {line.split()[-1] for line in done.stdout.splitlines() if line.split()[1] == "T"}
    in_c = {"cuGetProcAddress", "cuGetProcAddress_v2", "cuGetExportTable"}
    expected = {export.symbol for export in abi.EXPORTS} | in_c
    assert functions == expected


@pytest.mark.skipif(not CUDA_H.exists(), reason="needs NVIDIA's cuda.h to compare declarations")
def test_parameter_counts_match_cuda_h() -> None:
    profiler = CUDA_H.with_name("cudaProfiler.h")  # cuProfilerStart/Stop are declared there
    text = CUDA_H.read_text() + (profiler.read_text() if profiler.exists() else "")
    for export in abi.EXPORTS:
        if export.symbol.startswith("ptx2gcn"):
            continue
        # cuda.h declares the versioned ABI symbol under the base name (#define base base_vN) or as is.
        symbol = export.variant_of or export.symbol
        names = {symbol, re.sub(r"_v[0-9]+$", "", symbol)}
        names |= {proc for proc, aliased, _since in abi.PROC_ALIASES if aliased == symbol}  # #define proc symbol
        counts = set()
        for name in names:
            for match in re.finditer(rf"CUresult CUDAAPI\s+{name}\(([^)]*)\)", text):
                params = match.group(1).strip()
                counts.add(0 if params in ("", "void") else params.count(",") + 1)
        assert len(export.params) in counts, (export.symbol, counts)


def test_exec_help_and_missing_command(tmp_path: Path) -> None:
    help_text = subprocess.run(
        [sys.executable, "-m", "ptx2gcn", "exec", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "libcuda.so.1" in help_text and "--backend" in help_text
    done = subprocess.run(
        [sys.executable, "-m", "ptx2gcn", "exec", "--", str(tmp_path / "no-such-program")],
        capture_output=True, text=True, check=False,
        env={"PATH": "/usr/bin:/bin", "PTX2GCN_CACHE_DIR": str(tmp_path), "HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 1
    assert "cannot run" in done.stderr and "no-such-program" in done.stderr


@pytest.mark.skipif(not CUDA_H.exists(), reason="needs NVIDIA's cuda.h to compare struct layouts")
def test_struct_layouts_match_cuda_h(tmp_path: Path, shim_dir: Path) -> None:
    import ctypes

    from ptx2gcn.runtime.libcuda import structs

    probe = tmp_path / "probe.c"
    probe.write_text(
        "#include <stdio.h>\n#include <stddef.h>\n#include <cuda.h>\nint main(void) {\n"
        'printf("%zu %zu %zu %zu %zu %zu\\n", sizeof(CUlaunchConfig), offsetof(CUlaunchConfig, hStream),\n'
        "offsetof(CUlaunchConfig, attrs), offsetof(CUlaunchConfig, numAttrs), sizeof(CUlaunchAttribute),\n"
        "offsetof(CUlaunchAttribute, value));\nreturn 0;\n}\n"
    )
    exe = tmp_path / "probe"
    subprocess.run(["cc", f"-I{CUDA_H.parent}", "-o", str(exe), str(probe)], check=True)
    measured = [int(v) for v in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()]
    config, attribute = structs.CUlaunchConfig, structs.CUlaunchAttribute
    ours = [
        ctypes.sizeof(config), config.hStream.offset, config.attrs.offset, config.numAttrs.offset,
        ctypes.sizeof(attribute), attribute.value.offset,
    ]  # fmt: skip
    assert ours == measured
    assert [structs.SIZES["CUlaunchConfig"], structs.SIZES["CUlaunchAttribute"]] == [measured[0], measured[4]]
