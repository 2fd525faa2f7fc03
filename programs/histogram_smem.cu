// Byte histogram with a privatised shared-memory copy (seed 003, "compute byte frequency counts"; seed 001,
// "Privatization" and "Example Histogram").
//
// Naive: every input byte is an atomicAdd on the global histogram (n contended global atomics).  Here each
// block first builds its own 256-bin histogram in shared memory with shared atomics (cheap, contention only
// inside the block), then merges it into the global one with at most 256 global atomics per block.
// A grid-stride loop lets a fixed-size grid cover any n (seed 001, "Grid-stride loop").
// histo must be zeroed before the launch.
#define NUM_BINS 256

extern "C" __global__ void histogram_smem(const unsigned char* data, unsigned int* histo, unsigned int n)
{
    __shared__ unsigned int histo_s[NUM_BINS];
    for (unsigned int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x)
        histo_s[bin] = 0u;
    __syncthreads();

    unsigned int stride = blockDim.x * gridDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&histo_s[data[i]], 1u);
    __syncthreads();

    // merge the private copy; empty bins cost no global atomic
    for (unsigned int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x) {
        unsigned int binValue = histo_s[bin];
        if (binValue > 0)
            atomicAdd(&histo[bin], binValue);
    }
}
