// Relocatable device code, part 2: the device function rdc_kernel.cu links against.
__device__ int scale(int v) { return 3 * v + 1; }
