#!/bin/sh
# Rebuilds gemm_mfma.hsaco (a committed test asset: the benchmark needs no clang).
set -e
cd "$(dirname "$0")"
clang-22 -x hip --offload-arch=gfx942 -nogpulib -nogpuinc --offload-device-only --no-gpu-bundle-output -O3 \
    -o gemm_mfma.hsaco gemm_mfma.hip
