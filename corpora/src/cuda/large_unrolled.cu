// SPDX-License-Identifier: Apache-2.0
// corpus: benchmark input for the parser and compiler: a fully unrolled mixing kernel whose PTX is well over
//         100k lines. Each of the STEPS steps loads one input word, mixes it into a 16-word register state
//         (add/xor/funnel-shift rotate, a float fma chain), and every 64 steps stores a checksum.
//         NVVM declines to fully unroll a `#pragma unroll` loop this long (it keeps a 64x-unrolled loop
//         marked .pragma "nounroll"), so the steps are expanded at compile time with a fold over an
//         integer sequence, the way CUTLASS-style code unrolls.
// corpus-output: large
// corpus-archs: 80

#include <utility>

constexpr int STEPS = 6400;

struct State {
    unsigned s[16];
    float f;
};

__device__ __forceinline__ unsigned rotl(unsigned x, unsigned r) { return __funnelshift_l(x, x, r); }

template <int STEP>
__device__ __forceinline__ void mix_step(State &st, const unsigned *__restrict__ p, int stride,
                                         unsigned *__restrict__ out) {
    unsigned w = __ldg(p + STEP * stride);
    unsigned a = st.s[STEP & 15], b = st.s[(STEP + 5) & 15], c = st.s[(STEP + 11) & 15];
    a = rotl(a + w + (unsigned)STEP * 0x85ebca6bu, (STEP * 7 + 3) & 31) ^ b;
    st.s[STEP & 15] = a + (c ^ (unsigned)STEP);
    st.f = fmaf(st.f, 0.999f + (float)(STEP & 7) * 1e-4f, __uint_as_float((a & 0x007fffffu) | 0x3f800000u));
    if constexpr ((STEP & 63) == 63) {
        unsigned h = 0;
#pragma unroll
        for (int k = 0; k < 16; ++k) h ^= st.s[k];
        out[STEP / 64] = h;
    }
}

template <int... STEP>
__device__ __forceinline__ void mix_all(State &st, const unsigned *__restrict__ p, int stride,
                                        unsigned *__restrict__ out, std::integer_sequence<int, STEP...>) {
    (mix_step<STEP>(st, p, stride, out), ...);
}

extern "C" __global__ void __launch_bounds__(128) unrolled_mix(const unsigned *__restrict__ in,
                                                               unsigned *__restrict__ out, float *__restrict__ fout,
                                                               int stride) {
    State st;
#pragma unroll
    for (int k = 0; k < 16; ++k) st.s[k] = 0x9e3779b9u * (k + 1) + threadIdx.x;
    st.f = (float)threadIdx.x;
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    mix_all(st, in + tid, stride, out + tid * (STEPS / 64), std::make_integer_sequence<int, STEPS>{});
    fout[tid] = st.f;
}
