// Sum of n ints: each block reduces its BLOCK elements in shared memory and stores partial[blockIdx.x];
// total receives the sum of all the partial sums.
//
// The fixed twin of race_global_crossblock_raw.cu: no block reads another's partial sum; each adds its
// own into total with atomicAdd (total starts at 0).
#define BLOCK 64

extern "C" __global__ void race_global_crossblock_raw_fixed(const int* in, int* partial, int* total, int n)
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
        partial[blockIdx.x] = s[0];
        atomicAdd(total, s[0]);  // FIX: combine through an atomic, no cross-block load
    }
}
