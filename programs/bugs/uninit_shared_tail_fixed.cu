// Block sum of ints by a shared-memory tree reduction; n is not a multiple of the block size.
//
// The fixed twin of uninit_shared_tail.cu: threads past n store 0.
#define BLOCK 64

extern "C" __global__ void uninit_shared_tail_fixed(const int* in, int* out, int n)
{
    __shared__ int sdata[BLOCK];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * BLOCK + t;
    sdata[t] = (i < n) ? in[i] : 0;  // FIX: every slot written
    __syncthreads();
    for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}
