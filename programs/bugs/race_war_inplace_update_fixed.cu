// Forward difference within each block, in place in shared memory: out[i] = in[i + 1] - in[i], where the
// element after the block's last one counts as 0.
//
// The fixed twin of race_war_inplace_update.cu: every thread reads its neighbour before anyone
// overwrites a slot.
#define BLOCK 64

extern "C" __global__ void race_war_inplace_update_fixed(const int* in, int* out, int n)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    s[t] = (i < n) ? in[i] : 0;
    __syncthreads();

    int right = (t + 1 < BLOCK) ? s[t + 1] : 0;
    int mine = s[t];
    __syncthreads();  // FIX: all reads before the in-place writes
    s[t] = right - mine;
    __syncthreads();

    if (i < n)
        out[i] = s[t];
}
