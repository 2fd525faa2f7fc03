// Sum of n ints: each block reduces its BLOCK elements in shared memory and stores partial[blockIdx.x];
// total receives the sum of all the partial sums.
//
// Planted bug (global-memory race across blocks, RAW): block 0 adds up every block's partial sum right
// after storing its own, but nothing orders the other blocks' stores before its loads (there is no
// grid-wide barrier inside one launch); it reads whatever is there.  The fixed twin
// race_global_crossblock_raw_fixed.cu adds each block's sum into total with atomicAdd.
#define BLOCK 64

extern "C" __global__ void race_global_crossblock_raw(const int* in, int* partial, int* total, int n)
{
    __shared__ int s[BLOCK];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * BLOCK + t;
    s[t] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];  // BUG: store that block 0 loads below, unordered with that load
        if (blockIdx.x == 0) {
            int sum = 0;
            for (unsigned int b = 0; b < gridDim.x; ++b)
                sum += partial[b];  // BUG: load of other blocks' stores with no grid-wide barrier
            *total = sum;
        }
    }
}
