// out[i] = 2 * in[i], one thread per element, several blocks.
//
// Planted bug (global-memory race across blocks, WAW): the store indexes out with threadIdx.x instead of
// the global index, so every block writes the same first blockDim.x elements; the survivor of each is up
// to the block schedule (and the rest of out is never written).  The fixed twin
// race_global_crossblock_waw_fixed.cu indexes with the global index.
extern "C" __global__ void race_global_crossblock_waw(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[threadIdx.x] = 2 * in[i];  // BUG: all blocks store to the same elements
}
