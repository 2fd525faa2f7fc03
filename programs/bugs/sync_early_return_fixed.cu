// Forward difference within each block through a shared tile with one extra cell:
// out[i] = in[i + 1] - in[i], with in[n] counting as 0.
//
// The fixed twin of sync_early_return.cu: no early return; every thread reaches the barrier.
#define BLOCK 64

extern "C" __global__ void sync_early_return_fixed(const int* in, int* out, int n)
{
    __shared__ int tile[BLOCK + 1];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    if (i < n) {  // FIX: guard the work, not the barrier
        tile[t] = in[i];
        if (t == BLOCK - 1 || i == n - 1)
            tile[t + 1] = (i + 1 < n) ? in[i + 1] : 0;
    }
    __syncthreads();
    if (i < n)
        out[i] = tile[t + 1] - tile[t];
}
