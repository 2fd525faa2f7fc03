// out[i] = in[i + 1] + 2 * in[i] within each block (in[i + 1] counting as 0 at the block's end), through
// two shared arrays a (the values) and b (the doubled values).
//
// The fixed twin of oob_shared_into_neighbor.cu: the last thread of a block uses 0 for its right
// neighbour.
#define BLOCK 64

extern "C" __global__ void oob_shared_into_neighbor_fixed(const int* in, int* out)
{
    __shared__ int a[BLOCK];
    __shared__ int b[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    a[t] = in[i];
    b[t] = 2 * in[i];
    __syncthreads();
    out[i] = ((t + 1 < BLOCK) ? a[t + 1] : 0) + b[t];  // FIX: stay inside a
}
