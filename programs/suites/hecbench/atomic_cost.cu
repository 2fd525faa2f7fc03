// HeCBench "atomicCost": the cost of global atomic additions, with a chosen number of distinct addresses.
//
// Follows HeCBench's atomicCost (with-atomics kernel): thread tid adds the parities of its `size`
// consecutive element indices one atomicAdd at a time.  The suite gives every thread its own word (no
// contention); here thread tid adds into result[tid % naddr], so one kernel covers the three regimes the
// simulator must model: one address (naddr = 1: every atomic of the grid serialises at one L2 location), a
// few (naddr = 8: four lanes of every warp share a word), and distinct addresses (naddr = threads, the
// suite's case).  float atomics of the values 0 and 1 (exact in any order below 2^24).
// Launch: grid threads / 256, block 256.

#define BLOCK_SIZE 256

extern "C" __global__ void hecbench_atomic_cost(float *result, int size, int naddr)
{
    const unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float *word = &result[tid % naddr];
    for (unsigned int i = tid * size; i < (tid + 1) * size; i++)
        atomicAdd(word, (float)(i % 2));
}
