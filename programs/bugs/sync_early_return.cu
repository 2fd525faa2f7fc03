// Forward difference within each block through a shared tile with one extra cell:
// out[i] = in[i + 1] - in[i], with in[n] counting as 0.
//
// Planted bug (barrier reached by part of the block): threads past n return before the __syncthreads(),
// so in the last block only the threads with i < n reach it.  The fixed twin sync_early_return_fixed.cu
// keeps every thread to the barrier and guards the loads and the store instead.
#define BLOCK 64

extern "C" __global__ void sync_early_return(const int* in, int* out, int n)
{
    __shared__ int tile[BLOCK + 1];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    if (i >= n)
        return;
    tile[t] = in[i];
    if (t == BLOCK - 1 || i == n - 1)
        tile[t + 1] = (i + 1 < n) ? in[i + 1] : 0;
    __syncthreads();  // BUG: in the last block the threads past n have returned
    out[i] = tile[t + 1] - tile[t];
}
