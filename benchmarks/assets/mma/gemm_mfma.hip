// The same 128x128x128 f16 GEMM as gemm_wmma.cu, written for gfx942: one wave64 computes one 16x16
// tile of C with v_mfma_f32_16x16x16f16 (A, B, C row-major, n x n; blocks of 128 threads = 2 waves).
// Operand layout (CDNA3 ISA, 16x16x16 f16): lane l holds A[l%16][4*(l/16)+i] and B[4*(l/16)+i][l%16],
// i = 0..3; the result D[4*(l/16)+i][l%16].
// Build: see build_mfma.sh (clang-22 -x hip --offload-arch=gfx942 -nogpulib -nogpuinc -O3).
#include "gfx942_hip.h"

extern "C" __global__ void gemm_mfma(const _Float16* a, const _Float16* b, float* c, int n) {
    unsigned lane = thread_x() % 64;
    unsigned wave = (block_x() * 128 + thread_x()) / 64;
    unsigned tiles = n / 16;
    unsigned tm = wave / tiles, tn = wave % tiles;
    unsigned row = lane % 16, quad = lane / 16;
    const _Float16* pa = a + (tm * 16 + row) * n + 4 * quad;
    const _Float16* pb = b + (4 * quad) * n + tn * 16 + row;
    float4_t acc = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k < n; k += 16) {
        half4_t fa, fb;
        for (int i = 0; i < 4; ++i) {
            fa[i] = pa[k + i];
            fb[i] = pb[(k + i) * n];
        }
        acc = __builtin_amdgcn_mfma_f32_16x16x16f16(fa, fb, acc, 0, 0, 0);
    }
    for (int i = 0; i < 4; ++i)
        c[(tm * 16 + 4 * quad + i) * n + tn * 16 + row] = acc[i];
}
