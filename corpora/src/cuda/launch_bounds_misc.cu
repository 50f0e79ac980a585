// SPDX-License-Identifier: Apache-2.0
// corpus: kernel attributes (__launch_bounds__ -> .maxntid/.minnctapersm, __maxnreg__ -> .maxnreg, the
//         sm_90 third __launch_bounds__ argument -> .maxclusterrank), timers (clock, clock64, globaltimer), __nanosleep (sm_70+),
//         volatile accesses, __syncthreads in loops, special registers (nctaid, nsmid, gridid), __grid_constant__,
//         ld/st cache hints (__ldcg, __ldcs, __stwt, __ldlu), prefetch and restrict.

struct Config {
    int n;
    float scale;
    int offsets[8];
};

extern "C" __global__ void __launch_bounds__(256) lb_256(float *p) { p[threadIdx.x] *= 2.0f; }

extern "C" __global__ void __launch_bounds__(128, 4) lb_128_4(float *p) { p[threadIdx.x] += 1.0f; }

extern "C" __global__ void __launch_bounds__(1024, 1) lb_1024(double *p) { p[threadIdx.x] = sqrt(p[threadIdx.x]); }

extern "C" __global__ void __maxnreg__(40) maxnreg_40(float *p) { p[threadIdx.x] = rsqrtf(p[threadIdx.x]); }

extern "C" __global__ void timers(unsigned long long *out) {
    unsigned long long t0 = clock64();
    unsigned c0 = clock();
    unsigned long long g;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
    __nanosleep(100);
    unsigned long long t1 = clock64();
    out[threadIdx.x * 3 + 0] = t1 - t0;
    out[threadIdx.x * 3 + 1] = clock() - c0;
    out[threadIdx.x * 3 + 2] = g;
}

extern "C" __global__ void special_registers(unsigned *out) {
    unsigned nsmid, gridid_lo, dynsmem, totalsmem;
    unsigned long long gridid;
    asm("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
    asm("mov.u64 %0, %%gridid;" : "=l"(gridid));
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynsmem));
    asm("mov.u32 %0, %%total_smem_size;" : "=r"(totalsmem));
    gridid_lo = (unsigned)gridid;
    unsigned *o = out + (blockIdx.x * blockDim.x + threadIdx.x) * 10;
    o[0] = gridDim.x;
    o[1] = gridDim.y;
    o[2] = gridDim.z;
    o[3] = blockDim.y;
    o[4] = blockDim.z;
    o[5] = threadIdx.z;
    o[6] = nsmid;
    o[7] = gridid_lo;
    o[8] = dynsmem;
    o[9] = totalsmem + warpSize;
}

extern "C" __global__ void grid_constant_param(const __grid_constant__ Config cfg, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int *offs = cfg.offsets;  // address of a kernel parameter: needs __grid_constant__ to avoid a copy
    if (i < cfg.n) out[i] = cfg.scale * offs[i & 7];
}

extern "C" __global__ void by_value_config(Config cfg, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < cfg.n) out[i] = cfg.scale * cfg.offsets[i & 7];  // dynamic index into a param array
}

extern "C" __global__ void cache_hints(const float *a, float *b, const int *c, int *d, volatile int *v) {
    int i = threadIdx.x;
    float x = __ldcg(&a[i]) + __ldcs(&a[i + 32]) + __ldca(&a[i + 64]) + __ldlu(&a[i + 96]) + __ldcv(&a[i + 128]);
    __stwt(&b[i], x);
    __stcs(&b[i + 32], x * 2.0f);
    __stcg(&d[i], __ldg(&c[i]));
    asm volatile("prefetch.global.L2 [%0];" ::"l"(&a[i + 256]));
    v[i] = v[i] + 1;  // volatile load and store
}

extern "C" __global__ void barrier_loop(float *data, int iters) {
    __shared__ float s[256];
    s[threadIdx.x] = data[threadIdx.x];
    for (int it = 0; it < iters; ++it) {
        __syncthreads();
        float left = s[(threadIdx.x + 255) & 255], right = s[(threadIdx.x + 1) & 255];
        __syncthreads();
        s[threadIdx.x] = 0.25f * left + 0.5f * s[threadIdx.x] + 0.25f * right;
    }
    __syncthreads();
    data[threadIdx.x] = s[threadIdx.x];
}

// Named barriers (bar.sync id, count) for producer/consumer warps.
extern "C" __global__ void named_barriers(int *data) {
    __shared__ int buf[64];
    int warp = threadIdx.x / 32;
    if (warp == 0) {
        buf[threadIdx.x] = data[threadIdx.x] * 3;
        asm volatile("bar.arrive 1, 64;");
    } else {
        asm volatile("bar.sync 1, 64;");
        data[threadIdx.x] = buf[threadIdx.x - 32];
    }
}

#if __CUDA_ARCH__ >= 900
extern "C" __global__ void __launch_bounds__(256, 1, 2) lb_cluster_sm90(float *p) { p[threadIdx.x] -= 1.0f; }
#endif
