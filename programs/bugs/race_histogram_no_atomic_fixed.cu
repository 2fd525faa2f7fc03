// Histogram of NUM_BINS bins with a privatised shared-memory copy per block.
//
// The fixed twin of race_histogram_no_atomic.cu: the count into the shared histogram is an atomicAdd.
#define NUM_BINS 16

extern "C" __global__ void race_histogram_no_atomic_fixed(const unsigned int* data, unsigned int* histo, int n)
{
    __shared__ unsigned int histo_s[NUM_BINS];
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        histo_s[b] = 0u;
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&histo_s[data[i] % NUM_BINS], 1u);  // FIX: shared atomic
    __syncthreads();

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        atomicAdd(&histo[b], histo_s[b]);
}
