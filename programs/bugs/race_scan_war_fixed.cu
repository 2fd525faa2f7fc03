// Inclusive prefix sum of each SECTION-element section (one block each), Kogge-Stone.
//
// The fixed twin of race_scan_war.cu: each step reads temp[t - s] into a register, waits at a second
// barrier, and only then writes temp[t].
#define SECTION 64

extern "C" __global__ void race_scan_war_fixed(const int* in, int* out, int n)
{
    __shared__ int temp[SECTION];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    temp[threadIdx.x] = (i < n) ? in[i] : 0;
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        int left = 0;
        if (threadIdx.x >= stride)
            left = temp[threadIdx.x - stride];
        __syncthreads();  // FIX: every read of this step before any write
        if (threadIdx.x >= stride)
            temp[threadIdx.x] += left;
    }
    if (i < n)
        out[i] = temp[threadIdx.x];
}
