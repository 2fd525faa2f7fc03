// Three-point sum through a shared-memory tile with one halo cell on each side:
// out[i] = in[i - 1] + in[i] + in[i + 1], with 0 outside [0, n).
//
// Planted bug (uninitialised shared memory): the tile's interior is loaded but its two halo cells
// tile[0] and tile[BLOCK + 1] are never written, so the first and last thread of every block read
// whatever the shared memory held.  The fixed twin uninit_stencil_halo_fixed.cu loads the halos.
#define BLOCK 64
#define R 1

extern "C" __global__ void uninit_stencil_halo(const float* in, float* out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int t = threadIdx.x + R;
    tile[t] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    if (i < n)
        out[i] = tile[t - 1] + tile[t] + tile[t + 1];  // BUG: the halo cells read here were never written
}
