// A second translation unit for the multi-module executable test (tests/run/test_run.py): nvcc links
// it with tests/driver/data/kernels.cu into one program whose fatbin holds one PTX module per unit.
extern "C" __global__ void fill(int *out, int value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = value + i;
}

int main() { return 0; }
