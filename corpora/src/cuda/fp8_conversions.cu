// SPDX-License-Identifier: Apache-2.0
// corpus: 8-bit float types from cuda_fp8.h (e4m3, e5m2): hardware cvt with .satfinite on sm_89+, software
//         emulation on older targets; packed x2 conversions to and from half2 and float2.

#include <cuda_fp8.h>
#include <cuda_fp16.h>

extern "C" __global__ void fp8_roundtrip(const float *in, float *out, unsigned char *raw) {
    int i = threadIdx.x;
    __nv_fp8_e4m3 a(in[i]);
    __nv_fp8_e5m2 b(in[i]);
    raw[i * 2] = a.__x;
    raw[i * 2 + 1] = b.__x;
    out[i * 2] = (float)a;
    out[i * 2 + 1] = (float)b;
}

extern "C" __global__ void fp8_packed(const float2 *in, __half2 *out, unsigned short *raw) {
    int i = threadIdx.x;
    __nv_fp8x2_e4m3 p(in[i]);
    raw[i] = p.__x;
    out[i] = (__half2)p;
    __nv_fp8x2_e5m2 q(__float22half2_rn(in[i]));
    out[i + blockDim.x] = (__half2)q;
}

extern "C" __global__ void fp8_intrinsics(const float2 *in, unsigned short *raw, __half *h) {
    int i = threadIdx.x;
    raw[i] = __nv_cvt_float2_to_fp8x2(in[i], __NV_SATFINITE, __NV_E4M3);
    __half_raw hr = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)(raw[i] & 0xff), __NV_E5M2);
    h[i] = __half(hr);
}
