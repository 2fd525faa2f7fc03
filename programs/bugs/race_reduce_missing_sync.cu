// Block sum of ints by a shared-memory tree reduction, sequential addressing (Harris kernel 3).
//
// Each block loads BLOCK elements (0 past n) into sdata and halves the active threads each step:
// thread t < s adds sdata[t + s] into sdata[t].  out[blockIdx.x] is the block's sum.
// Planted bug (racecheck, shared RAW/WAR): the __syncthreads() between the steps is missing, so in step
// s/2 thread t reads sdata[t + s/2] while thread t + s/2 may still be writing it in step s.
// The fixed twin race_reduce_missing_sync_fixed.cu has the barrier at the end of each step.
#define BLOCK 128

extern "C" __global__ void race_reduce_missing_sync(const int* in, int* out, int n)
{
    __shared__ int sdata[BLOCK];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    sdata[t] = (i < n) ? in[i] : 0;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            int other = sdata[t + s];  // BUG: read of a slot another thread writes in the previous step
            sdata[t] += other;         // BUG: write, with no barrier before the next step's reads
        }
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}
