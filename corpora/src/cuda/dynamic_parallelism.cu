// SPDX-License-Identifier: Apache-2.0
// corpus: relocatable device code (-rdc=true): dynamic parallelism (a kernel launching a kernel through
//         cudaGetParameterBufferV2/cudaLaunchDeviceV2), an .extern device function defined in another
//         translation unit, and extern __device__ data. The PTX declares what it does not define.
// corpus-flags: -rdc=true

extern __device__ float other_unit_scale(float x);  // defined elsewhere: an .extern .func in the PTX
extern __device__ int other_unit_table[64];          // defined elsewhere: an .extern .global

__global__ void child(float *data, int n, float factor) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = other_unit_scale(data[i] * factor) + other_unit_table[i & 63];
}

__global__ void parent(float *data, int n) {
    if (threadIdx.x == 0) {
        int chunk = n / gridDim.x;
        float *mine = data + blockIdx.x * chunk;
        child<<<(chunk + 127) / 128, 128>>>(mine, chunk, 2.0f);
    }
}

// Tail launch into the same stream, the CUDA 12 replacement for device-side synchronisation.
__global__ void recursive_halving(float *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) data[i] += data[i + n / 2];
    if (i == 0 && n > 2) recursive_halving<<<1, 128, 0, cudaStreamTailLaunch>>>(data, n / 2);
}
