// SPDX-License-Identifier: Apache-2.0
// Device printf from a non-inlined device function, and from divergent control flow
// (tests/codegen/test_printf.py; nvcc -arch=sm_80 -ptx).
#include <cstdio>

__device__ __noinline__ int report(int i, double x) {
    return printf("f(%d) = %.3f\n", i, x);
}

extern "C" __global__ void from_function(int *result) {
    int i = threadIdx.x;
    if (i % 3 == 0) {
        result[i] = report(i, i * 0.5);
    } else {
        result[i] = printf("skip %u\n", (unsigned)i);
    }
}
