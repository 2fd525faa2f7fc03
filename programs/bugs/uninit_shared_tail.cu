// Block sum of ints by a shared-memory tree reduction; n is not a multiple of the block size.
//
// Planted bug (uninitialised shared memory): only threads with i < n store their element, so in the last
// block the slots of the threads past n are never written, and the tree adds them in.  (The classic
// missing ": 0" of the load.)  The fixed twin uninit_shared_tail_fixed.cu stores 0 for them.
#define BLOCK 64

extern "C" __global__ void uninit_shared_tail(const int* in, int* out, int n)
{
    __shared__ int sdata[BLOCK];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * BLOCK + t;
    if (i < n)
        sdata[t] = in[i];
    __syncthreads();
    for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            sdata[t] += sdata[t + s];  // BUG: in the last block, adds slots that were never written
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}
