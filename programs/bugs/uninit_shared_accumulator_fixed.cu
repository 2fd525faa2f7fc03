// Per-block sum of ints accumulated with shared atomics into one shared word.
//
// The fixed twin of uninit_shared_accumulator.cu: thread 0 zeroes the accumulator before the adds.
extern "C" __global__ void uninit_shared_accumulator_fixed(const int* in, int* out, int n)
{
    __shared__ int block_sum;
    if (threadIdx.x == 0)
        block_sum = 0;  // FIX: initialise the accumulator ...
    __syncthreads();    // FIX: ... before anyone adds to it
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&block_sum, in[i]);
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = block_sum;
}
