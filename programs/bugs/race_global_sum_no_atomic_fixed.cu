// Sum of n ints into one global word, one thread per element (one block of n threads).
//
// The fixed twin of race_global_sum_no_atomic.cu: a global atomicAdd.
extern "C" __global__ void race_global_sum_no_atomic_fixed(const int* in, int* total, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(total, in[i]);  // FIX: global atomic
}
