// Inclusive prefix sum of each SECTION-element section (one block each), Kogge-Stone.
//
// In the step with stride s, thread t >= s adds temp[t - s] into temp[t].  Planted bug (racecheck, shared
// WAR): the step has one barrier, before the read; thread t - s may already overwrite temp[t - s] with its
// own sum of this step before thread t has read the old value.  The fixed twin race_scan_war_fixed.cu
// reads into a register and waits at a second barrier before writing.
#define SECTION 64

extern "C" __global__ void race_scan_war(const int* in, int* out, int n)
{
    __shared__ int temp[SECTION];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    temp[threadIdx.x] = (i < n) ? in[i] : 0;
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        if (threadIdx.x >= stride) {
            int left = temp[threadIdx.x - stride];  // BUG: read of a slot its owner overwrites this step
            temp[threadIdx.x] += left;              // BUG: write, with no barrier after the reads
        }
    }
    if (i < n)
        out[i] = temp[threadIdx.x];
}
