// Pairs of neighbours exchange values through shared memory: for even t, out[i] = in[i + 1] + 1;
// for odd t, out[i] = 2 * in[i - 1] (i = blockIdx.x * BLOCK + t).
//
// The fixed twin of sync_divergent_if_else.cu: the branches only compute; one barrier follows them.
#define BLOCK 64

extern "C" __global__ void sync_divergent_if_else_fixed(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    if (t % 2 == 0)
        s[t] = 2 * in[i];
    else
        s[t] = in[i] + 1;
    __syncthreads();  // FIX: one barrier, reached by every thread
    out[i] = (t % 2 == 0) ? s[t + 1] : s[t - 1];
}
