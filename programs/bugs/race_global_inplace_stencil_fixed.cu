// Three-point sum in place in global memory, one block: a[i] = a[i - 1] + a[i] + a[i + 1] for the interior
// points (the old values on the right-hand side); the two end points stay.
//
// The fixed twin of race_global_inplace_stencil.cu: every thread loads its three values, the block waits
// at __syncthreads() (the launch is one block, so this orders all the loads before all the stores), then
// the interior threads store.
extern "C" __global__ void race_global_inplace_stencil_fixed(int* a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool interior = i > 0 && i < n - 1;
    int left = 0, mid = 0, right = 0;
    if (interior) {
        left = a[i - 1];
        mid = a[i];
        right = a[i + 1];
    }
    __syncthreads();  // FIX: all loads before any in-place store
    if (interior)
        a[i] = left + mid + right;
}
