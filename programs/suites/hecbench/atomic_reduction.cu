// HeCBench "atomicReduction": integer sum reduction with atomics (after the HIP examples' reduction).
//
// Follows HeCBench's atomicReduction: a fixed grid of threads strides over the array, each thread summing
// its elements in a register, then adds its partial sum to the single global result with one atomicAdd:
// every thread of the grid updates the same address.
// Launch: grid 2048, block 256 (the grid-stride loop covers any ARRAYSIZE).

extern "C" __global__ void hecbench_atomic_reduction(const int *in, int *out, int ARRAYSIZE)
{
    int sum = 0;
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = idx; i < ARRAYSIZE; i += blockDim.x * gridDim.x)
        sum += in[i];
    atomicAdd(out, sum);
}
