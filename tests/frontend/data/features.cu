#include <cstdio>
#include <cuda_fp16.h>
__device__ int (*fp)(int);
__device__ __noinline__ int sq(int x){return x*x;}
__device__ __noinline__ int cube(int x){return x*x*x;}
__constant__ float cst[4] = {1.0f, 2.5f, -3.0f, 1e-30f};
__device__ int garr[3] = {1,2,3};
__device__ int *gptr = garr;
__global__ void __launch_bounds__(256, 2) k(float *out, const float *in, int n, int sel) {
  __shared__ float sh[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sh[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  float v = sh[threadIdx.x ^ 1];
  v += __shfl_down_sync(0xffffffff, v, 1);
  int (*f)(int) = sel ? sq : cube;
  int r = f(i);
  unsigned lane; asm volatile("{ .reg .u32 t; mov.u32 t, %%laneid; mov.u32 %0, t; }" : "=r"(lane));
  atomicAdd(out, v + cst[i&3] + r + lane + gptr[0]);
  __half h = __float2half(v); out[i] = __half2float(__hadd(h,h));
  if (i == 0) printf("hello %d %f\n", i, v);
  #pragma unroll 1
  for (int j = 0; j < n; ++j) out[j] += sinf(v) * j;
}
