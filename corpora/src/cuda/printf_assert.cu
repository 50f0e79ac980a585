// SPDX-License-Identifier: Apache-2.0
// corpus: device printf (vprintf with a .local argument buffer and .global format strings) and assert
//         (__assertfail), plus __trap and __brkpt.
// corpus-variants: lineinfo=-lineinfo

#include <cassert>
#include <cstdio>

extern "C" __global__ void hello(int n) {
    printf("Hello from block %d thread %d of %d\n", blockIdx.x, threadIdx.x, n);
}

extern "C" __global__ void printf_types(const double *d, const long long *ll, const char *s) {
    int i = threadIdx.x;
    printf("i=%d u=%u x=%#x ll=%lld f=%f e=%e g=%g c=%c s=%s p=%p\n", i, (unsigned)i * 3u, i, ll[i], (float)d[i],
           d[i], d[i] * 1e-10, 'A' + (i % 26), s, (void *)d);
    printf("no arguments at all\n");
    printf("%%literal percent, width [%8.3f] [%-5d]\n", (float)i / 3.0f, i);
}

extern "C" __global__ void checked_divide(const int *a, const int *b, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    assert(b[i] != 0);
    assert(i < n && "index in range");
    out[i] = a[i] / b[i];
}

extern "C" __global__ void trap_on_negative(const int *a) {
    if (a[threadIdx.x] < 0) __trap();
    if (a[threadIdx.x] == 12345) __brkpt();
}
