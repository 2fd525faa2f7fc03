// Forward difference within each block, in place in shared memory: out[i] = in[i + 1] - in[i], where the
// element after the block's last one counts as 0.
//
// Planted bug (racecheck, shared WAR): each thread overwrites its own slot s[t] with the difference while
// thread t - 1 may not yet have read s[t] as its right neighbour; a __syncthreads() between the reads and
// the in-place writes is missing.  The fixed twin race_war_inplace_update_fixed.cu has it.
#define BLOCK 64

extern "C" __global__ void race_war_inplace_update(const int* in, int* out, int n)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    s[t] = (i < n) ? in[i] : 0;
    __syncthreads();

    int right = (t + 1 < BLOCK) ? s[t + 1] : 0;  // BUG: read of the neighbour's slot ...
    s[t] = right - s[t];                          // BUG: ... which the neighbour overwrites in place
    __syncthreads();

    if (i < n)
        out[i] = s[t];
}
