// Brent-Kung inclusive scan of one section per block (seed 001, "Brent-Kung"; PMPP ch. 8).
//
// A section of SECTION_SIZE = 2 * blockDim.x elements; each thread loads and stores two of them.  The
// reduction-tree phase builds partial sums at indices (t+1)*2*stride - 1 (the seed's "method 2": the active
// threads are contiguous, so only the last steps diverge inside a warp); the post-scan (distribution) phase
// pushes them down to the remaining positions.  About 2n additions in 2 log2(n) steps: work-efficient, but
// the idle threads of a block still hold their resources.
// Launch with blockDim.x = SECTION_SIZE / 2 = 256.  Each block scans its own section only.
// The seed lists two alternative reduction loops ("method 1" and "method 2"); running both would add the
// partial sums twice, so only method 2 is here.
#define SECTION_SIZE 512

extern "C" __global__ void scan_brent_kung(const float* X, float* Y, int InputSize)
{
    __shared__ float XY[SECTION_SIZE];
    int i = 2 * blockIdx.x * blockDim.x + threadIdx.x;

    // each thread loads two elements from global memory to shared memory
    XY[threadIdx.x] = (i < InputSize) ? X[i] : 0.0f;
    XY[threadIdx.x + blockDim.x] = (i + blockDim.x < InputSize) ? X[i + blockDim.x] : 0.0f;

    // reduction tree
    for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {
        __syncthreads();
        unsigned int index = (threadIdx.x + 1) * 2 * stride - 1;
        if (index < SECTION_SIZE)
            XY[index] += XY[index - stride];
    }

    // post scan step: distribute the partial sums
    for (int stride = SECTION_SIZE / 4; stride > 0; stride /= 2) {
        __syncthreads();
        int index = (threadIdx.x + 1) * stride * 2 - 1;
        if (index + stride < SECTION_SIZE)
            XY[index + stride] += XY[index];
    }

    // write the section back to global memory
    __syncthreads();
    if (i < InputSize) Y[i] = XY[threadIdx.x];
    if (i + blockDim.x < InputSize) Y[i + blockDim.x] = XY[threadIdx.x + blockDim.x];
}
