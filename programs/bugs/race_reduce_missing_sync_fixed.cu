// Block sum of ints by a shared-memory tree reduction, sequential addressing (Harris kernel 3).
//
// The fixed twin of race_reduce_missing_sync.cu: a __syncthreads() ends every step, so the reads of step
// s/2 come after all the writes of step s.
#define BLOCK 128

extern "C" __global__ void race_reduce_missing_sync_fixed(const int* in, int* out, int n)
{
    __shared__ int sdata[BLOCK];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    sdata[t] = (i < n) ? in[i] : 0;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            int other = sdata[t + s];
            sdata[t] += other;
        }
        __syncthreads();  // FIX: every step's writes before the next step's reads
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}
