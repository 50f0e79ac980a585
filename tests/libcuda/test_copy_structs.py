"""The C structs the C ABI reads (copies, graph nodes, memory pools): every field's offset and the size
equal the C compiler's for NVIDIA's cuda.h."""

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
        structs.CUDA_MEMCPY2D, structs.CUDA_MEMCPY3D, structs.CUDA_KERNEL_NODE_PARAMS_v1,
        structs.CUDA_KERNEL_NODE_PARAMS_v2, structs.CUDA_MEMSET_NODE_PARAMS, structs.CUDA_HOST_NODE_PARAMS,
        structs.CUmemPoolProps, structs.CUgraphExecUpdateResultInfo, structs.CUDA_GRAPH_INSTANTIATE_PARAMS,
        structs.CUDA_MEM_ALLOC_NODE_PARAMS_v1,
    ],
)  # fmt: skip
def test_copy_struct_layout_matches_cuda_h(tmp_path: Path, struct: type[ctypes.Structure]) -> None:
    name = struct.__name__
    fields = [field[0] for field in struct._fields_]
    lines = "".join(f'printf("%zu\\n", offsetof({name}, {field}));\n' for field in fields)
    probe = tmp_path / "probe.c"
    probe.write_text(
        "#include <stdio.h>\n#include <stddef.h>\n#include <cuda.h>\nint main(void) {\n"
        f'{lines}printf("%zu\\n", sizeof({name}));\nreturn 0;\n}}\n'
    )
    exe = tmp_path / "probe"
    subprocess.run(["cc", f"-I{CUDA_H.parent}", "-o", str(exe), str(probe)], check=True)
    measured = [int(v) for v in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()]
    ours = [getattr(struct, field).offset for field in fields] + [ctypes.sizeof(struct)]
    assert ours == measured
    assert structs.SIZES[name] == measured[-1]
