// Each thread sums a window of k consecutive elements (wrapping around at n) through a local array:
// out[i] = in[i] + in[i + 1] + ... + in[i + k - 1], k <= MAXW.
//
// The window's index depends on the run-time k, so the array lives in local memory.  Planted bug
// (uninitialised local memory): the summing loop runs to j <= k, one past what the copy loop wrote, and
// adds window[k], which nothing wrote.  The fixed twin uninit_local_array_fixed.cu stops at j < k.
#define MAXW 16

extern "C" __global__ void uninit_local_array(const int* in, int* out, int n, int k)
{
    int window[MAXW];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int j = 0; j < k; ++j)
        window[j] = in[(i + j) % n];
    int acc = 0;
    for (int j = 0; j <= k; ++j)
        acc += window[j];  // BUG: j == k reads a local element that was never written
    out[i] = acc;
}
