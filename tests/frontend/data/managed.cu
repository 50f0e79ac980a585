__managed__ int counter;
__device__ __managed__ float arr[4];
__global__ void k(int *o) { o[0] = counter + (int)arr[1]; }
