// Kogge-Stone inclusive scan of one section per block (seed 001, "Kogge-Stone"; PMPP ch. 8).
//
// One thread per element (the section is blockDim.x elements).  In the step with stride s, thread t >= s adds
// XY[t - s] to XY[t]; after log2(blockDim.x) steps XY holds the inclusive prefix sums of the section.
// O(log n) steps but O(n log n) additions.  The two __syncthreads() per step separate the reads of the old
// values from the writes of the new ones (the seed's "double buffer" variant removes the second).
// Each block scans its own section only: Y[i] is the prefix sum of X within block blockIdx.x (the
// hierarchical scan that adds the block sums is a separate lesson).
// Fixes to the seed's listing: tmp is a float (the seed declares int), and elements past InputSize read as 0
// and are not written.
#define SECTION_SIZE 1024

extern "C" __global__ void scan_kogge_stone(const float* X, float* Y, int InputSize)
{
    __shared__ float XY[SECTION_SIZE];

    int i = blockIdx.x * blockDim.x + threadIdx.x;

    // each thread loads one element from global memory to shared memory
    if (i < InputSize)
        XY[threadIdx.x] = X[i];
    else
        XY[threadIdx.x] = 0.0f;

    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        // ensure every thread of the previous step has written its new value
        __syncthreads();
        float tmp;
        if (threadIdx.x >= stride)
            tmp = XY[threadIdx.x] + XY[threadIdx.x - stride];
        // ensure every thread has read what it needs before any value is overwritten
        __syncthreads();
        if (threadIdx.x >= stride)
            XY[threadIdx.x] = tmp;
    }

    if (i < InputSize)
        Y[i] = XY[threadIdx.x];
}
