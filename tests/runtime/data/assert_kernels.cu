// SPDX-License-Identifier: Apache-2.0
// Device assert test kernels for tests/codegen/test_assert_runtime.py (nvcc -arch=sm_80 -ptx).
#include <cassert>
#include <cstdio>

extern "C" __global__ void check_positive(const int *a, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    printf("before %d\n", i);
    assert(a[i] > 0);
    out[i] = 2 * a[i];
}

extern "C" __global__ void plain_trap(const int *a) {
    if (a[threadIdx.x] < 0) __trap();
}

extern "C" __global__ void breakpoint(int *out) {
    __brkpt();
    out[threadIdx.x] = 7;
}
