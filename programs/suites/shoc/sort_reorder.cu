// SHOC "Sort" (level 1), the radix sort of Satish, Harris and Garland that SHOC runs (4-bit digits, a pass
// per digit): the reorderData step, the scatter that ends a pass.  Written for gpusim from the published
// algorithm: a block stages its 2 * SCAN_BLOCK_SIZE keys and values (sorted by the digit within the block)
// in shared memory with its 16 digit starts (blockOffsets) and the 16 global destinations of its digit runs
// (offsets: the exclusive scan of all blocks' digit counts, digit-major), and every key and value goes to
// offsets[digit] + (its position - its run's start): 16 contiguous runs of stores per block.
#define SCAN_BLOCK_SIZE 256

extern "C" __global__ void reorderData(unsigned int startbit, unsigned int *outKeys, unsigned int *outValues,
                                       const uint2 *keys, const uint2 *values, const unsigned int *blockOffsets,
                                       const unsigned int *offsets, unsigned int totalBlocks)
{
    __shared__ uint2 sKeys2[SCAN_BLOCK_SIZE];
    __shared__ uint2 sValues2[SCAN_BLOCK_SIZE];
    __shared__ unsigned int sOffsets[16];
    __shared__ unsigned int sBlockOffsets[16];
    unsigned int *sKeys1 = (unsigned int *)sKeys2;
    unsigned int *sValues1 = (unsigned int *)sValues2;

    unsigned int blockId = blockIdx.x;
    unsigned int i = blockId * blockDim.x + threadIdx.x;

    sKeys2[threadIdx.x] = keys[i];
    sValues2[threadIdx.x] = values[i];
    if (threadIdx.x < 16) {
        sOffsets[threadIdx.x] = offsets[threadIdx.x * totalBlocks + blockId];
        sBlockOffsets[threadIdx.x] = blockOffsets[blockId * 16 + threadIdx.x];
    }
    __syncthreads();

    unsigned int radix = (sKeys1[threadIdx.x] >> startbit) & 0xF;
    unsigned int globalOffset = sOffsets[radix] + threadIdx.x - sBlockOffsets[radix];
    outKeys[globalOffset] = sKeys1[threadIdx.x];
    outValues[globalOffset] = sValues1[threadIdx.x];

    radix = (sKeys1[threadIdx.x + blockDim.x] >> startbit) & 0xF;
    globalOffset = sOffsets[radix] + threadIdx.x + blockDim.x - sBlockOffsets[radix];
    outKeys[globalOffset] = sKeys1[threadIdx.x + blockDim.x];
    outValues[globalOffset] = sValues1[threadIdx.x + blockDim.x];
}
