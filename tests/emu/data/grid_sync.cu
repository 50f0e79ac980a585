// Grid-wide barriers of CUDA's cooperative groups, for tests/emu/test_cooperative.py.
// Built with: nvcc -arch=compute_80 -ptx -o grid_sync.ptx grid_sync.cu
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Three phases, each reading what other blocks wrote in the phase before: only correct when every
// grid.sync() waits for the whole grid. out[i] = sum over phases of data read across the grid.
extern "C" __global__ void three_phases(int *data, int *out, int n) {
    cg::grid_group grid = cg::this_grid();
    int i = grid.thread_rank();
    if (i < n) data[i] = i;
    grid.sync();
    int a = i < n ? data[(i + 37) % n] : 0;
    grid.sync();
    if (i < n) data[i] = a * 3;
    grid.sync();
    if (i < n) out[i] = data[(n - 1 - i)] + (grid.is_valid() ? 1 : 0);
}
