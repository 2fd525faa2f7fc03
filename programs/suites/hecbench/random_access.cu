// HeCBench "randomAccess": the HPCC RandomAccess (GUPS) update loop.
//
// Follows HeCBench's randomAccess (after the HPC Challenge RandomAccess): a table of 2^k 64-bit words is
// updated with Table[ran & (size - 1)] ^= ran, where ran walks the HPCC shift-register sequence
// ran <- (ran << 1) ^ (ran < 0 ? POLY : 0), POLY = 7.  Each thread runs its own stretch of the sequence
// from a starting value; the XOR is an atomicXor (the GPU ports' choice: no lost updates, and the result is
// independent of the order).  Every update is a read-modify-write of a random 8-byte word: scattered
// atomics over a table that is L2-resident (32 MB) or not (256 MB) on the H100.
// Launch: grid threads / 256, block 256.

#define POLY 0x0000000000000007ULL

extern "C" __global__ void hecbench_random_access(unsigned long long *Table, const unsigned long long *starts,
                                                  unsigned long long TableSize, int updates)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long ran = starts[t];
    for (int i = 0; i < updates; i++) {
        ran = (ran << 1) ^ ((long long)ran < 0 ? POLY : 0ULL);
        atomicXor(&Table[ran & (TableSize - 1)], ran);
    }
}
