// SHOC "Sort" (level 1), the radix sort of Satish, Harris and Garland that SHOC runs (4-bit digits, a pass
// per digit: sort each block's keys locally by the digit, find each block's digit offsets, scan the counts,
// scatter): the findRadixOffsets step.  Written for gpusim from the published algorithm: a block of
// SCAN_BLOCK_SIZE threads takes 2 * SCAN_BLOCK_SIZE keys (one uint2 per thread) already sorted by the digit
// within the block, puts their digits in shared memory, finds where each digit's run starts (a key whose
// digit differs from its predecessor's), then each run's length from the next start, and writes the start
// of every digit (blockOffsets, block-major) and its count (counters, digit-major, for the scan).
#define SCAN_BLOCK_SIZE 256

extern "C" __global__ void findRadixOffsets(const uint2 *keys, unsigned int *counters, unsigned int *blockOffsets,
                                            unsigned int startbit, unsigned int numElements,
                                            unsigned int totalBlocks)
{
    __shared__ unsigned int sRadix1[2 * SCAN_BLOCK_SIZE];
    __shared__ unsigned int sStartPointers[16];

    unsigned int groupId = blockIdx.x;
    unsigned int localId = threadIdx.x;
    unsigned int groupSize = blockDim.x;

    uint2 radix2 = keys[groupId * groupSize + localId];
    sRadix1[2 * localId] = (radix2.x >> startbit) & 0xF;
    sRadix1[2 * localId + 1] = (radix2.y >> startbit) & 0xF;
    if (localId < 16) {
        sStartPointers[localId] = 0;
    }
    __syncthreads();

    // the start of each run: position 0 is the start of its digit's run (the pointer is already 0)
    unsigned int lo = localId, hi = localId + groupSize;
    if (lo > 0 && sRadix1[lo] != sRadix1[lo - 1]) {
        sStartPointers[sRadix1[lo]] = lo;
    }
    if (sRadix1[hi] != sRadix1[hi - 1]) {
        sStartPointers[sRadix1[hi]] = hi;
    }
    __syncthreads();

    if (localId < 16) {
        blockOffsets[groupId * 16 + localId] = sStartPointers[localId];
    }
    __syncthreads();

    // the length of each run: where the next one starts (or the end of the block) minus its own start
    if (lo > 0 && sRadix1[lo] != sRadix1[lo - 1]) {
        sStartPointers[sRadix1[lo - 1]] = lo - sStartPointers[sRadix1[lo - 1]];
    }
    if (sRadix1[hi] != sRadix1[hi - 1]) {
        sStartPointers[sRadix1[hi - 1]] = hi - sStartPointers[sRadix1[hi - 1]];
    }
    if (localId == groupSize - 1) {
        sStartPointers[sRadix1[2 * groupSize - 1]] = 2 * groupSize - sStartPointers[sRadix1[2 * groupSize - 1]];
    }
    __syncthreads();

    if (localId < 16) {
        counters[localId * totalBlocks + groupId] = sStartPointers[localId];
    }
}
