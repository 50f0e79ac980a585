"""The C structs the C ABI reads (copies, the array descriptors, the texture object descriptions,
graph nodes, memory pools): every field's offset and the size equal the C compiler's for NVIDIA's
cuda.h."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from ptx2gcn.runtime.libcuda import structs

CUDA_H = Path("/usr/local/cuda/include/cuda.h")


@pytest.mark.skipif(not CUDA_H.exists() or shutil.which("cc") is None, reason="needs cuda.h and a C compiler")
@pytest.mark.parametrize(
    "struct",
    [
        structs.CUDA_MEMCPY2D, structs.CUDA_MEMCPY3D, structs.CUDA_ARRAY_DESCRIPTOR, structs.CUDA_ARRAY3D_DESCRIPTOR,
        structs.CUDA_RESOURCE_DESC, structs.CUDA_TEXTURE_DESC, structs.CUDA_RESOURCE_VIEW_DESC,
        structs.CUDA_KERNEL_NODE_PARAMS_v1, structs.CUDA_KERNEL_NODE_PARAMS_v2, structs.CUDA_MEMSET_NODE_PARAMS,
        structs.CUDA_HOST_NODE_PARAMS, structs.CUmemPoolProps, structs.CUgraphExecUpdateResultInfo,
        structs.CUDA_GRAPH_INSTANTIATE_PARAMS, structs.CUDA_MEM_ALLOC_NODE_PARAMS_v1,
    ],
)  # fmt: skip
def test_copy_struct_layout_matches_cuda_h(tmp_path: Path, struct: type[ctypes.Structure]) -> None:
    name = struct.__name__
    fields = _paths(struct)
    lines = "".join(f'printf("%zu\\n", offsetof({name}, {field}));\n' for field in fields)
    probe = tmp_path / "probe.c"
    probe.write_text(
        "#include <stdio.h>\n#include <stddef.h>\n#include <cuda.h>\nint main(void) {\n"
        f'{lines}printf("%zu\\n", sizeof({name}));\nreturn 0;\n}}\n'
    )
    exe = tmp_path / "probe"
    subprocess.run(["cc", f"-I{CUDA_H.parent}", "-o", str(exe), str(probe)], check=True)
    measured = [int(v) for v in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()]
    ours = [_offset(struct, field) for field in fields] + [ctypes.sizeof(struct)]
    assert ours == measured
    assert structs.SIZES[name] == measured[-1]


def _paths(layout: type[ctypes.Structure | ctypes.Union], prefix: str = "") -> list[str]:
    """Every field of ``layout`` as a C member path (``res.linear.devPtr``), nested members included."""
    paths = []
    for name, kind in layout._fields_:
        paths.append(prefix + name)
        if issubclass(kind, (ctypes.Structure, ctypes.Union)):
            paths += _paths(kind, f"{prefix}{name}.")
    return paths


def _offset(layout: type[ctypes.Structure | ctypes.Union], path: str) -> int:
    total = 0
    for name in path.split("."):
        field = getattr(layout, name)
        total += field.offset
        layout = dict(layout._fields_)[name]
    return total
