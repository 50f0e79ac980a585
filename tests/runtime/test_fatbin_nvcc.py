"""Fatbins as nvcc 13 writes them: standalone files, executables, shared libraries, objects and
``-rdc`` builds, in every compression mode; the extracted PTX is compared with ``nvcc -ptx``."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from ptx2gcn.runtime.fatbin import (
    EntryKind,
    FatbinError,
    ImageKind,
    entry_options,
    module_containers,
    ptx_modules,
    read_fatbin,
    read_fatbin_file,
    select_ptx,
    sniff_image,
)

Build = Callable[..., Path]
GENCODE_80_PTX = "-gencode=arch=compute_80,code=compute_80"
GENCODE_90_SASS = "-gencode=arch=compute_90,code=sm_90"
MODES = {"speed": "lz4", "default": "zstd", "none": "none"}


def _mode_args(mode: str) -> list[str]:
    return ["-no-compress"] if mode == "none" else [f"--compress-mode={mode}"]


def normalise_ptx(text: str) -> list[str]:
    """PTX lines without comments and with single blanks: what fatbinary keeps (docs/fatbin-format.md)."""
    return [" ".join(re.sub(r"//.*", "", line).split()) for line in text.rstrip("\n").split("\n")]


@pytest.fixture(scope="module")
def reference_ptx(cuda_build: Build) -> list[str]:
    return normalise_ptx(cuda_build("saxpy.ptx", "-ptx", "-arch=compute_80", "saxpy.cu").read_text())


@pytest.mark.parametrize("mode", sorted(MODES))
def test_standalone_fatbin_each_compression(cuda_build: Build, reference_ptx: list[str], mode: str) -> None:
    path = cuda_build(
        f"saxpy-{mode}.fatbin", "-fatbin", GENCODE_80_PTX, GENCODE_90_SASS, *_mode_args(mode), "saxpy.cu"
    )
    fatbin = read_fatbin_file(path)
    assert len(fatbin.containers) == 1
    kinds = sorted((e.kind, e.arch) for e in fatbin.entries)
    assert kinds == [(EntryKind.PTX, 80), (EntryKind.ELF, 90)]
    ptx = select_ptx(fatbin.containers[0])
    assert ptx.compression == MODES[mode]
    assert ptx.ptx_version == (9, 0)  # nvcc 13.0 writes .version 9.0
    assert normalise_ptx(ptx.ptx_text()) == reference_ptx
    cubin = next(e for e in fatbin.entries if e.kind == EntryKind.ELF)
    assert cubin.compression == "none"
    assert cubin.payload()[:4] == b"\x7fELF"


def test_compression_modes_decode_to_identical_ptx(cuda_build: Build) -> None:
    texts = {
        mode: select_ptx(
            read_fatbin_file(
                cuda_build(
                    f"saxpy-{mode}.fatbin",
                    "-fatbin",
                    GENCODE_80_PTX,
                    GENCODE_90_SASS,
                    *_mode_args(mode),
                    "saxpy.cu",
                )
            ).containers[0]
        ).payload()
        for mode in MODES
    }
    assert texts["speed"] == texts["default"] == texts["none"]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_executable_registers_the_ptx_container(
    cuda_build: Build, reference_ptx: list[str], mode: str
) -> None:
    args = _mode_args(mode) if mode != "default" else []  # the plain build is nvcc's default mode
    exe = cuda_build(
        "saxpy.exe" if mode == "default" else f"saxpy-{mode}.exe",
        GENCODE_80_PTX,
        GENCODE_90_SASS,
        *args,
        "saxpy.cu",
    )
    fatbin = read_fatbin_file(exe)
    assert [w.version for w in fatbin.wrappers] == [2, 1]
    modules = module_containers(fatbin)
    assert len(modules) == 1 and modules[0].section == ".nv_fatbin" and modules[0].registered
    entry = select_ptx(modules[0])
    assert entry.compression == MODES[mode]
    assert normalise_ptx(entry.ptx_text()) == reference_ptx
    assert not entry_options(entry).compile_only


@pytest.mark.parametrize("mode", ["speed", "none"])
def test_shared_library(cuda_build: Build, reference_ptx: list[str], mode: str) -> None:
    lib = cuda_build(
        f"libsaxpy-{mode}.so", "-shared", "-Xcompiler", "-fPIC", GENCODE_80_PTX, *_mode_args(mode), "saxpy.cu"
    )
    modules = module_containers(read_fatbin_file(lib))
    assert len(modules) == 1
    entry = select_ptx(modules[0])
    assert entry.compression == MODES[mode]
    assert normalise_ptx(entry.ptx_text()) == reference_ptx


def test_object_file_wrapper_is_resolved_through_its_relocation(cuda_build: Build) -> None:
    obj = cuda_build("saxpy.o", "-c", GENCODE_80_PTX, "saxpy.cu")
    fatbin = read_fatbin_file(obj)
    assert [c.registered for c in fatbin.containers] == [True]
    assert fatbin.wrappers[0].data == 0  # unlinked: the pointer is a relocation


@pytest.mark.parametrize("mode", ["speed", "default"])
def test_rdc_executable_ptx_is_relocatable(cuda_build: Build, mode: str) -> None:
    exe = cuda_build(
        f"rdc-{mode}.exe", "-rdc=true", GENCODE_80_PTX, *_mode_args(mode), "rdc_kernel.cu", "rdc_helper.cu"
    )
    fatbin = read_fatbin_file(exe)
    modules = [c for c in module_containers(fatbin) if c.section == "__nv_relfatbin"]
    texts = {}
    for container in modules:
        entry = select_ptx(container)
        assert container.relocatable and entry_options(entry).compile_only
        texts[container.offset] = entry.ptx_text()
    joined = "\n".join(texts.values())
    # The kernel's module calls scale(); the helper's defines it (both as relocatable PTX).
    assert re.search(r"\.extern \.func \(\.param \.b32 func_retval0\) _Z5scalei", joined)
    assert re.search(r"\.visible \.func \(\.param \.b32 func_retval0\) _Z5scalei", joined)
    assert ".entry scale_all" in joined


def test_rdc_ptx_matches_nvcc_ptx(cuda_build: Build) -> None:
    obj = cuda_build("rdc_helper.o", "-rdc=true", "-c", GENCODE_80_PTX, "rdc_helper.cu")
    reference = cuda_build("rdc_helper.ptx", "-rdc=true", "-ptx", "-arch=compute_80", "rdc_helper.cu")
    entry = select_ptx(module_containers(read_fatbin_file(obj))[0])
    assert normalise_ptx(entry.ptx_text()) == normalise_ptx(reference.read_text())


def test_ptxas_options_recorded_by_nvcc(cuda_build: Build) -> None:
    debug = cuda_build("saxpy-G.fatbin", "-fatbin", "-G", GENCODE_80_PTX, "saxpy.cu")
    limited = cuda_build(
        "saxpy-maxr.fatbin", "-fatbin", "-maxrregcount=40", "-lineinfo", GENCODE_80_PTX, "saxpy.cu"
    )
    debug_entry = select_ptx(read_fatbin_file(debug).containers[0])
    assert entry_options(debug_entry).debug
    assert debug_entry.identifier == "saxpy.cu"
    options = entry_options(select_ptx(read_fatbin_file(limited).containers[0]))
    assert options.max_registers == 40 and options.line_info and not options.debug


def test_policy_prefers_generic_then_newest(cuda_build: Build) -> None:
    path = cuda_build(
        "multi.fatbin",
        "-fatbin",
        "-gencode=arch=compute_75,code=compute_75",
        GENCODE_80_PTX,
        "-gencode=arch=compute_90a,code=compute_90a",
        "saxpy.cu",
    )
    container = read_fatbin_file(path).containers[0]
    assert sorted(e.arch_name for e in container.entries) == ["sm_75", "sm_80", "sm_90a"]
    assert select_ptx(container).arch_name == "sm_80"


def test_sass_only_build_explains_how_to_rebuild(cuda_build: Build) -> None:
    path = cuda_build("sass-only.fatbin", "-fatbin", GENCODE_90_SASS, "saxpy.cu")
    with pytest.raises(FatbinError) as info:
        select_ptx(read_fatbin_file(path).containers[0])
    message = str(info.value)
    assert "no PTX" in message and "elf sm_90" in message
    assert "-gencode arch=compute_90,code=compute_90" in message


def test_sniff_what_nvcc_writes(cuda_build: Build) -> None:
    products = {
        ImageKind.FATBIN: cuda_build(
            "saxpy-none.fatbin", "-fatbin", GENCODE_80_PTX, GENCODE_90_SASS, "-no-compress", "saxpy.cu"
        ),
        ImageKind.ELF_HOST: cuda_build("saxpy.exe", GENCODE_80_PTX, GENCODE_90_SASS, "saxpy.cu"),
        ImageKind.ELF_CUBIN: cuda_build("saxpy.cubin", "-cubin", "-arch=sm_90", "saxpy.cu"),
        ImageKind.PTX: cuda_build("saxpy.ptx", "-ptx", "-arch=compute_80", "saxpy.cu"),
    }
    assert {kind: sniff_image(path.read_bytes()) for kind, path in products.items()} == {
        k: k for k in products
    }
    with pytest.raises(FatbinError, match="this is a CUDA cubin"):
        read_fatbin_file(products[ImageKind.ELF_CUBIN])


@pytest.mark.parametrize("target", ["fatbin", "so"])
def test_mutated_nvcc_output_fails_cleanly(cuda_build: Build, target: str) -> None:
    """Random byte changes in real nvcc output (zstd PTX; an ELF's headers, fatbin and wrapper
    sections) parse, or raise FatbinError naming the file: never another exception."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    if target == "fatbin":
        path = cuda_build(
            "saxpy-default.fatbin",
            "-fatbin",
            GENCODE_80_PTX,
            GENCODE_90_SASS,
            "--compress-mode=default",
            "saxpy.cu",
        )
    else:
        path = cuda_build(
            "libsaxpy-speed.so",
            "-shared",
            "-Xcompiler",
            "-fPIC",
            GENCODE_80_PTX,
            "--compress-mode=speed",
            "saxpy.cu",
        )
    image = path.read_bytes()
    fatbin = read_fatbin_file(path)
    hot = (
        [(0, 64)]
        + [(c.offset, c.offset + c.size) for c in fatbin.containers]
        + [(w.offset, w.offset + 24) for w in fatbin.wrappers]
    )

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def mutate(data: st.DataObject) -> None:
        mutated = bytearray(image)
        for _ in range(data.draw(st.integers(1, 8))):
            start, end = data.draw(st.sampled_from(hot))
            mutated[data.draw(st.integers(start, end - 1))] = data.draw(st.integers(0, 255))
        try:
            for entry in read_fatbin(bytes(mutated), "mutant").entries:
                entry.payload()
        except FatbinError as error:
            assert str(error).startswith("mutant: error: ")

    mutate()


def test_lld_linked_library_wrappers_resolve_through_dynamic_relocations(
    nvcc: str, llvm_tool: Callable[[str], str], tmp_path: Path, reference_ptx: list[str]
) -> None:
    """lld leaves the wrapper's pointer as 0 plus an R_X86_64_RELATIVE relocation (GNU ld stores it)."""
    import os
    import subprocess

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ld.lld").symlink_to(llvm_tool("ld.lld-22"))
    lib = tmp_path / "libsaxpy-lld.so"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run(
        [
            nvcc,
            "-shared",
            "-Xcompiler",
            "-fPIC",
            "-Xcompiler",
            "-fuse-ld=lld",
            GENCODE_80_PTX,
            "saxpy.cu",
            "-o",
            str(lib),
        ],
        cwd=Path(__file__).resolve().parent / "data",
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    fatbin = read_fatbin_file(lib)
    assert all(w.data == 0 for w in fatbin.wrappers)  # nothing stored in place
    (module,) = module_containers(fatbin)
    assert module.registered
    assert normalise_ptx(select_ptx(module).ptx_text()) == reference_ptx


def test_ptx_modules_of_programs(cuda_build: Build, reference_ptx: list[str]) -> None:
    exe = cuda_build("saxpy.exe", GENCODE_80_PTX, GENCODE_90_SASS, "saxpy.cu")
    (module,) = ptx_modules(read_fatbin_file(exe))
    assert not module.relocatable and normalise_ptx(module.ptx_text()) == reference_ptx
    rdc = cuda_build(
        "rdc-default.exe",
        "-rdc=true",
        GENCODE_80_PTX,
        "--compress-mode=default",
        "rdc_kernel.cu",
        "rdc_helper.cu",
    )
    modules = ptx_modules(read_fatbin_file(rdc))
    assert modules and all(m.relocatable for m in modules)
    sass_only = cuda_build("sass-only.exe", GENCODE_90_SASS, "saxpy.cu")
    with pytest.raises(FatbinError, match="no PTX"):
        ptx_modules(read_fatbin_file(sass_only))
    with pytest.raises(FatbinError, match="no PTX"):
        ptx_modules(read_fatbin_file(sass_only), strict=False)
