// Histogram of NUM_BINS bins with a privatised shared-memory copy per block.
//
// Each block zeroes its shared histogram, counts its elements into it, then merges it into the global
// histogram with one atomicAdd per bin.  Planted bug (racecheck, shared RAW/WAW): the count is a plain
// read-modify-write (histo_s[b] += 1) instead of atomicAdd, so threads with the same bin lose updates.
// The fixed twin race_histogram_no_atomic_fixed.cu uses a shared atomicAdd.
#define NUM_BINS 16

extern "C" __global__ void race_histogram_no_atomic(const unsigned int* data, unsigned int* histo, int n)
{
    __shared__ unsigned int histo_s[NUM_BINS];
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        histo_s[b] = 0u;
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        histo_s[data[i] % NUM_BINS] += 1u;  // BUG: non-atomic read-modify-write of a shared bin
    __syncthreads();

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        atomicAdd(&histo[b], histo_s[b]);
}
