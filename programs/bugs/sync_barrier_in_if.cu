// Each block of 64 threads folds its 64 values into 16: out[16 * b + t] = s[t] + s[t + 16] + s[t + 32] +
// s[t + 48] for t < 16.
//
// Planted bug (barrier reached by part of the block): the __syncthreads() sits inside
// if (threadIdx.x < 16), so only 16 of the 64 threads reach it.  The fixed twin
// sync_barrier_in_if_fixed.cu waits before the branch.
#define BLOCK 64

extern "C" __global__ void sync_barrier_in_if(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * BLOCK + t];
    if (t < 16) {
        __syncthreads();  // BUG: reached by threads 0..15 only
        out[blockIdx.x * 16 + t] = s[t] + s[t + 16] + s[t + 32] + s[t + 48];
    }
}
