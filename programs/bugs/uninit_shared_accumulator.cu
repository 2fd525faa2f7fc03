// Per-block sum of ints accumulated with shared atomics into one shared word.
//
// Planted bug (uninitialised shared memory): the shared accumulator block_sum is never zeroed, so the
// first atomicAdd reads (and adds to) whatever the shared memory held.  The fixed twin
// uninit_shared_accumulator_fixed.cu zeroes it and waits before the first add.
extern "C" __global__ void uninit_shared_accumulator(const int* in, int* out, int n)
{
    __shared__ int block_sum;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&block_sum, in[i]);  // BUG: read-modify-write of a shared word nothing initialised
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = block_sum;
}
