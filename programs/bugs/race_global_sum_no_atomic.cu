// Sum of n ints into one global word, one thread per element (one block of n threads).
//
// Planted bug (global-memory race within a block, RAW/WAW): *total += in[i] is a plain global
// load-add-store, so the threads of the block overwrite each other's sums.  compute-sanitizer's racecheck
// checks shared memory only.  The fixed twin race_global_sum_no_atomic_fixed.cu uses atomicAdd.
extern "C" __global__ void race_global_sum_no_atomic(const int* in, int* total, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        *total += in[i];  // BUG: non-atomic read-modify-write of one global word by every thread
}
