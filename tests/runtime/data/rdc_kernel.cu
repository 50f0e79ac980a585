// Relocatable device code, part 1: a kernel calling a device function defined in rdc_helper.cu.
extern __device__ int scale(int v);

extern "C" __global__ void scale_all(int* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = scale(data[i]);
}

int main(int argc, char**)
{
    if (argc > 100)
        scale_all<<<1, 1>>>(nullptr, 0);
    return 0;
}
