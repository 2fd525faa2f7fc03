// out[i] = in[i + 1] + 2 * in[i] within each block (in[i + 1] counting as 0 at the block's end), through
// two shared arrays a (the values) and b (the doubled values).
//
// Planted bug (out of bounds of one shared variable, inside the block's shared memory): the last thread
// of each block reads a[BLOCK], past the end of a; the address may fall inside b (or past the block's
// shared memory, depending on where the compiler places the two arrays).  The fixed twin
// oob_shared_into_neighbor_fixed.cu stays inside a.
#define BLOCK 64

extern "C" __global__ void oob_shared_into_neighbor(const int* in, int* out)
{
    __shared__ int a[BLOCK];
    __shared__ int b[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    a[t] = in[i];
    b[t] = 2 * in[i];
    __syncthreads();
    out[i] = a[t + 1] + b[t];  // BUG: t == BLOCK - 1 reads a[BLOCK], outside the array a
}
