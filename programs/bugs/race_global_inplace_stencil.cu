// Three-point sum in place in global memory, one block: a[i] = a[i - 1] + a[i] + a[i + 1] for the interior
// points (the old values on the right-hand side); the two end points stay.
//
// Planted bug (global-memory race within a block, RAW/WAR): thread i reads its neighbours' elements while
// the neighbours overwrite them in place, with no barrier between the loads and the stores.  The fixed
// twin race_global_inplace_stencil_fixed.cu loads into registers, waits at __syncthreads() (enough here:
// one block), then stores.
extern "C" __global__ void race_global_inplace_stencil(int* a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) {
        int left = a[i - 1];          // BUG: load of a neighbour's element, which it overwrites below
        int right = a[i + 1];         // BUG: load of a neighbour's element, which it overwrites below
        a[i] = left + a[i] + right;   // BUG: in-place store racing with the neighbours' loads
    }
}
