// SPDX-License-Identifier: Apache-2.0
// Device printf test kernels for tests/codegen/test_printf.py (nvcc -arch=sm_80 -ptx):
// every conversion, flag, width, precision and length modifier ptx2gcn's host formatter handles,
// with values read from device arrays so the test can give C's snprintf the same values.
#include <cstdio>

extern "C" __global__ void ints(const int *v, const long long *w, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    int x = v[i];
    long long y = w[i];
    printf("[%d] [%i] [%u] [%x] [%X] [%o] [%#x] [%#o] [%+d] [% d] [%5d] [%-5d|] [%05d] [%.3d] [%.0d] [%hhd] "
           "[%hd] [%hu] [%hhx]\n",
           x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x);
    printf("[%lld] [%llu] [%llx] [%ld] [%lu] [%#llo] [%+.20lld] [%-22lld|] [%c] [%3c] [%-3c|]\n", y, y, y, (long)y,
           (unsigned long)y, y, y, y, x, x, x);
}

extern "C" __global__ void floats(const double *d, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    double x = d[i];
    float f = (float)x;
    printf("[%f] [%e] [%g] [%a] [%F] [%E] [%G] [%A] [%.2f] [%10.3e] [%-12g|] [%+.1f] [% f] [%#g] [%#.0f] "
           "[%010.2f] [%.0e] [%.10g] [%.3a] [%.0a] [%la] [%f]\n",
           x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, f);
}

extern "C" __global__ void strings(const char *s, const char *t, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    const char *which = (i & 1) ? t : s;
    const char *maybe_null = (i & 2) ? nullptr : s;
    printf("[%s] [%.3s] [%10s] [%-10s|] [%s] [%p] [%p] [%%] %d%%\n", which, which, which, which, maybe_null,
           (void *)maybe_null, (void *)0, i);
}

extern "C" __global__ void counted(int *result) {
    int i = threadIdx.x;
    int a = printf("thread %d\n", i);
    int b = printf("no arguments\n");
    int c = printf("%d %f %s\n", i, 1.5, "x");
    result[3 * i + 0] = a;
    result[3 * i + 1] = b;
    result[3 * i + 2] = c;
}

extern "C" __global__ void many(int rounds) {
    for (int r = 0; r < rounds; ++r) printf("block %d thread %d round %d\n", blockIdx.x, threadIdx.x, r);
}
