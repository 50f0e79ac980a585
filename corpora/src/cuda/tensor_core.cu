// SPDX-License-Identifier: Apache-2.0
// corpus: tensor cores: wmma fragments (f16 -> f32 16x16x16, f16 -> f16, u8/s8 -> s32, and on sm_80+ bf16,
//         tf32 and f64), inline-asm mma.sync (m16n8k8/m16n8k16 f16, m16n8k16 bf16, m16n8k32 s8), ldmatrix
//         (.x1/.x2/.x4, .trans), movmatrix (sm_75+), stmatrix (sm_90).

#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

using namespace nvcuda;

extern "C" __global__ void wmma_f16_f32(const half *a, const half *b, float *c, int lda, int ldb, int ldc) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int k = 0; k < lda; k += 16) {
        wmma::load_matrix_sync(fa, a + k, lda);
        wmma::load_matrix_sync(fb, b + k, ldb);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    for (int t = 0; t < fc.num_elements; ++t) fc.x[t] = fc.x[t] > 0.0f ? fc.x[t] : 0.0f;  // ReLU epilogue
    wmma::store_matrix_sync(c, fc, ldc, wmma::mem_row_major);
}

extern "C" __global__ void wmma_f16_f16_32x8(const half *a, const half *b, half *c) {
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, half> fc;
    wmma::load_matrix_sync(fa, a, 32);
    wmma::load_matrix_sync(fb, b, 8);
    wmma::load_matrix_sync(fc, c, 8, wmma::mem_col_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 8, wmma::mem_col_major);
}

extern "C" __global__ void wmma_s8_s32(const signed char *a, const signed char *b, int *c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::fill_fragment(fc, 0);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc, true);  // saturating
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

#if __CUDA_ARCH__ >= 800
extern "C" __global__ void wmma_bf16_tf32_f64(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c,
                                              const float *ta, const float *tb, float *tc, const double *da,
                                              const double *db, double *dc) {
    {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
        wmma::fill_fragment(fc, 1.0f);
        wmma::load_matrix_sync(fa, a, 16);
        wmma::load_matrix_sync(fb, b, 16);
        wmma::mma_sync(fc, fa, fb, fc);
        wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
    }
    {
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
        wmma::fill_fragment(fc, 0.0f);
        wmma::load_matrix_sync(fa, ta, 8);
        wmma::load_matrix_sync(fb, tb, 8);
        for (int t = 0; t < fa.num_elements; ++t) fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
        wmma::mma_sync(fc, fa, fb, fc);
        wmma::store_matrix_sync(tc, fc, 16, wmma::mem_row_major);
    }
    {
        wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
        wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
        wmma::fill_fragment(fc, 0.0);
        wmma::load_matrix_sync(fa, da, 4);
        wmma::load_matrix_sync(fb, db, 8);
        wmma::mma_sync(fc, fa, fb, fc);
        wmma::store_matrix_sync(dc, fc, 8, wmma::mem_row_major);
    }
}
#endif

// Raw mma.sync m16n8k8 (sm_75+) and m16n8k16 (sm_80+) with fragments loaded by ldmatrix from shared memory.
extern "C" __global__ void mma_ldmatrix_f16(const half *A, const half *B, float *C) {
    __shared__ __align__(16) half As[16 * 16];
    __shared__ __align__(16) half Bs[16 * 8];
    int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) As[i] = A[i];
    for (int i = lane; i < 128; i += 32) Bs[i] = B[i];
    __syncwarp();
    unsigned a0, a1, a2, a3, b0, b1;
    unsigned a_addr = (unsigned)__cvta_generic_to_shared(&As[(lane % 16) * 16 + (lane / 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(a_addr));
    unsigned b_addr = (unsigned)__cvta_generic_to_shared(&Bs[(lane % 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(b_addr));
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
#if __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#else
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(b0));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a2), "r"(a3), "r"(b1));
#endif
    int row = lane / 4, col = (lane % 4) * 2;
    C[row * 8 + col] = d0;
    C[row * 8 + col + 1] = d1;
    C[(row + 8) * 8 + col] = d2;
    C[(row + 8) * 8 + col + 1] = d3;
    unsigned x1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(x1) : "r"(a_addr));
    unsigned moved;
#if __CUDA_ARCH__ >= 750
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(moved) : "r"(x1));
#else
    moved = x1;
#endif
    C[128 + lane] = __uint_as_float(moved);
}

#if __CUDA_ARCH__ >= 800
extern "C" __global__ void mma_bf16_s8(const unsigned *a, const unsigned *b, float *c, int *ci) {
    int lane = threadIdx.x;
    unsigned a0 = a[lane * 4], a1 = a[lane * 4 + 1], a2 = a[lane * 4 + 2], a3 = a[lane * 4 + 3];
    unsigned b0 = b[lane * 2], b1 = b[lane * 2 + 1];
    float d[4] = {0, 0, 0, 0};
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    int e[4] = {0, 0, 0, 0};
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+r"(e[0]), "+r"(e[1]), "+r"(e[2]), "+r"(e[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    for (int t = 0; t < 4; ++t) {
        c[lane * 4 + t] = d[t];
        ci[lane * 4 + t] = e[t];
    }
}
#endif

#if __CUDA_ARCH__ >= 900
extern "C" __global__ void stmatrix_sm90(const unsigned *in, unsigned *out) {
    __shared__ __align__(16) unsigned short s[8 * 8 * 4];
    unsigned lane = threadIdx.x;
    unsigned r0 = in[lane * 4], r1 = in[lane * 4 + 1], r2 = in[lane * 4 + 2], r3 = in[lane * 4 + 3];
    unsigned addr = (unsigned)__cvta_generic_to_shared(&s[(lane % 32) * 8]);
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0), "r"(r1),
                 "r"(r2), "r"(r3));
    __syncwarp();
    for (int i = lane; i < 128; i += 32) out[i] = ((unsigned *)s)[i];
}
#endif
