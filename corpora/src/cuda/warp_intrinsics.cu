// SPDX-License-Identifier: Apache-2.0
// corpus: warp-level primitives: shfl (idx/up/down/bfly, widths), vote (ballot/any/all/uni), activemask,
//         match.any/all (sm_70+), redux.sync (__reduce_*_sync, sm_80+), lanemask registers, warp-synchronous
//         inclusive scan.

extern "C" __global__ void shuffles(const int *in, int *out, int src, int delta) {
    int lane = threadIdx.x & 31;
    int v = in[threadIdx.x];
    float f = (float)v * 0.5f;
    double d = (double)v * 0.25;
    out[threadIdx.x * 8 + 0] = __shfl_sync(0xffffffffu, v, src);
    out[threadIdx.x * 8 + 1] = __shfl_up_sync(0xffffffffu, v, delta);
    out[threadIdx.x * 8 + 2] = __shfl_down_sync(0xffffffffu, v, delta);
    out[threadIdx.x * 8 + 3] = __shfl_xor_sync(0xffffffffu, v, lane & 7);
    out[threadIdx.x * 8 + 4] = __shfl_sync(0xffffffffu, v, src, 8);      // width 8 segments
    out[threadIdx.x * 8 + 5] = (int)__shfl_down_sync(0x0000ffffu, f, 1, 16);  // partial mask, width 16
    out[threadIdx.x * 8 + 6] = (int)__shfl_xor_sync(0xffffffffu, d, 16);     // 64-bit shuffle = 2 x 32
    out[threadIdx.x * 8 + 7] = (int)__shfl_sync(0xffffffffu, (long long)v << 33, 31) >> 1;
}

extern "C" __global__ void votes(const int *in, unsigned *out) {
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
    int any = __any_sync(0xffffffffu, v < 0);
    int all = __all_sync(0xffffffffu, v != 0);
    int uni = __uni_sync(0xffffffffu, v);
    unsigned active = 0;
    if (v & 1) active = __activemask();
    unsigned *o = out + (blockIdx.x * blockDim.x + threadIdx.x) * 5;
    o[0] = ballot;
    o[1] = any;
    o[2] = all;
    o[3] = uni;
    o[4] = active;
}

extern "C" __global__ void lane_masks(unsigned *out) {
    unsigned lt, le, eq, ge, gt, lane, warpid, smid;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    unsigned *o = out + threadIdx.x * 8;
    o[0] = lt; o[1] = le; o[2] = eq; o[3] = ge; o[4] = gt; o[5] = lane; o[6] = warpid; o[7] = smid;
}

extern "C" __global__ void match(const int *in, unsigned *out) {
    int v = in[threadIdx.x];
    long long w = (long long)v * 0x100000001ll;
    int pred = 0;
    out[threadIdx.x * 4 + 0] = __match_any_sync(0xffffffffu, v);
    out[threadIdx.x * 4 + 1] = __match_any_sync(0xffffffffu, w);
    out[threadIdx.x * 4 + 2] = __match_all_sync(0xffffffffu, v, &pred);
    out[threadIdx.x * 4 + 3] = pred;
}

extern "C" __global__ void warp_reduce_redux(const unsigned *in, unsigned *out) {
    unsigned v = in[threadIdx.x];
#if __CUDA_ARCH__ >= 800
    out[threadIdx.x * 6 + 0] = __reduce_add_sync(0xffffffffu, v);
    out[threadIdx.x * 6 + 1] = __reduce_min_sync(0xffffffffu, v);
    out[threadIdx.x * 6 + 2] = __reduce_max_sync(0xffffffffu, (int)v);
    out[threadIdx.x * 6 + 3] = __reduce_and_sync(0xffffffffu, v);
    out[threadIdx.x * 6 + 4] = __reduce_or_sync(0xffffffffu, v);
    out[threadIdx.x * 6 + 5] = __reduce_xor_sync(0x55555555u, v);
#else
    // Pre-sm_80 fallback: butterfly shuffles (keeps the kernel present on every target).
    unsigned s = v;
    for (int off = 16; off; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    out[threadIdx.x * 6 + 0] = s;
#endif
}

extern "C" __global__ void warp_scan(const int *in, int *out) {
    int lane = threadIdx.x & 31;
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        int n = __shfl_up_sync(0xffffffffu, v, off);
        if (lane >= off) v += n;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// Divergent code with independent thread scheduling: __syncwarp with a sub-mask.
extern "C" __global__ void syncwarp_divergent(int *data) {
    int lane = threadIdx.x & 31;
    __shared__ int buf[32];
    if (lane < 16) {
        buf[lane] = data[lane] * 2;
        __syncwarp(0x0000ffffu);
        data[lane] = buf[15 - lane];
    } else {
        buf[lane] = data[lane] + 1;
        __syncwarp(0xffff0000u);
        data[lane] = buf[47 - lane];
    }
    __syncwarp();
}
