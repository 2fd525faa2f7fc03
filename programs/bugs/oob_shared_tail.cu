// Sum of neighbours through a shared tile: out[i] = in[i] + in[i + 1], with in[n] counting as 0.
//
// Planted bug (out of bounds, shared): the last thread of each block reads s[BLOCK], one past the end of
// the block's only shared array (and of its whole shared memory).  The fixed twin oob_shared_tail_fixed.cu
// takes the last neighbour from global memory.
#define BLOCK 64

extern "C" __global__ void oob_shared_tail(const int* in, int* out, int n)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    s[t] = (i < n) ? in[i] : 0;
    __syncthreads();
    if (i < n)
        out[i] = s[t] + s[t + 1];  // BUG: t == BLOCK - 1 reads s[BLOCK], past the end of s
}
