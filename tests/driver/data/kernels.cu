// Kernels for the driver-API tests. kernels.ptx is `nvcc -arch=compute_80 -ptx kernels.cu` (CUDA 13.0).
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" __global__ void block_sum(const float *in, float *out, unsigned int n)
{
    extern __shared__ float partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    partial[tid] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

__device__ int counter[4];

extern "C" __global__ void scale_add(long long *out, double scale, char offset, short step)
{
    int i = threadIdx.x;
    out[i] = (long long)(scale * i) + offset + step * i;
    if (i < 4) atomicAdd(&counter[i], i + 1);
}

extern "C" __global__ void poke(int *p, long long index)
{
    p[index] = 7;
}

static __device__ bool isDone;

extern "C" __global__ void set_done()
{
    isDone = true;
}
