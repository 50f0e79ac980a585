// SPDX-License-Identifier: Apache-2.0
// corpus: double precision: IEEE div/sqrt/rcp with rounding modes, fma, libdevice math (sin, exp, log, pow,
//         atan2, erf, lgamma), conversions to/from integers and float, special values and bit casts.

#include <cmath>

extern "C" __global__ void double_arith(const double *a, const double *b, double *out) {
    int i = threadIdx.x;
    double x = a[i], y = b[i];
    out[i * 12 + 0] = x / y;
    out[i * 12 + 1] = sqrt(x);
    out[i * 12 + 2] = rsqrt(x);
    out[i * 12 + 3] = fma(x, y, -x);
    out[i * 12 + 4] = __dadd_rz(x, y);
    out[i * 12 + 5] = __dmul_ru(x, y);
    out[i * 12 + 6] = __ddiv_rd(x, y);
    out[i * 12 + 7] = __dsqrt_ru(x);
    out[i * 12 + 8] = __drcp_rn(y);
    out[i * 12 + 9] = __fma_rz(x, y, 1.0);
    out[i * 12 + 10] = fmin(x, y) + fmax(x, y) + fabs(x) + copysign(x, y);
    out[i * 12 + 11] = floor(x) + ceil(y) + trunc(x) + round(y) + rint(x);
}

extern "C" __global__ void double_math(const double *a, double *out) {
    int i = threadIdx.x;
    double x = a[i];
    out[i * 14 + 0] = sin(x);
    out[i * 14 + 1] = cos(x);
    out[i * 14 + 2] = tan(x);
    out[i * 14 + 3] = exp(x);
    out[i * 14 + 4] = log(x);
    out[i * 14 + 5] = log2(x);
    out[i * 14 + 6] = pow(x, 2.5);
    out[i * 14 + 7] = atan2(x, 1.0 - x);
    out[i * 14 + 8] = erf(x);
    out[i * 14 + 9] = lgamma(x);
    out[i * 14 + 10] = cbrt(x);
    out[i * 14 + 11] = tanh(x);
    out[i * 14 + 12] = expm1(x) + log1p(x);
    out[i * 14 + 13] = fmod(x, 0.75) + remainder(x, 0.75);
}

extern "C" __global__ void double_conversions(const double *a, long long *ll, unsigned long long *ull, int *k,
                                             float *f, double *back, int *cls) {
    int i = threadIdx.x;
    double x = a[i];
    ll[i] = __double2ll_rz(x);
    ull[i] = __double2ull_rn(x);
    k[i * 2] = __double2int_rd(x);
    k[i * 2 + 1] = __double2hiint(x) ^ __double2loint(x);
    f[i * 2] = __double2float_rn(x);
    f[i * 2 + 1] = __double2float_ru(x);
    back[i * 3] = __ll2double_rn(ll[i]);
    back[i * 3 + 1] = __hiloint2double(0x3ff00000, i);
    back[i * 3 + 2] = __longlong_as_double(__double_as_longlong(x) & 0x7fffffffffffffffll);
    cls[i] = isnan(x) | (isinf(x) << 1) | (signbit(x) << 2) | (isfinite(x) << 3);
}

// Newton iteration and a Horner polynomial: long dependent fma chains.
extern "C" __global__ void double_poly(const double *x, double *y, int n) {
    const double coeff[9] = {1.0, -0.5, 0.375, -0.3125, 0.2734375, -0.24609375, 0.2255859375, -0.20947265625,
                             0.196380615234375};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i], acc = 0.0;
    for (int k = 8; k >= 0; --k) acc = fma(acc, v, coeff[k]);
    double r = 1.0 / (1.0 + v);
    for (int it = 0; it < 3; ++it) r = r * (2.0 - (1.0 + v) * r);
    y[i] = acc + r;
}
