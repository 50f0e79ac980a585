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

// %s of strings in a thread's local memory and in shared memory: gone when the kernel ends, so the
// kernel must copy them into its printf record.
extern "C" __global__ void local_strings(int n) {
    __shared__ char shared_text[4];
    char name[8];
    int i = threadIdx.x;
    name[0] = 'a' + i;
    name[1] = '-';
    name[2] = '0' + (i % 10);
    name[3] = 0;
    if (i == 0) {
        shared_text[0] = 'S';
        shared_text[1] = 'H';
        shared_text[2] = 0;
    }
    __syncthreads();
    if (i < n) printf("%s %s %.2s|%s\n", name, shared_text, name, (const char *)0);
}

// %.Ns reads at most N bytes: the text need not be NUL-terminated (C11 7.21.6.1).
extern "C" __global__ void precise_strings(const char *unterminated, const char *text) {
    printf("[%.3s] [%.5s] [%.0s] [%-6.2s] [%s]\n", unterminated, text, unterminated, unterminated, text);
}
