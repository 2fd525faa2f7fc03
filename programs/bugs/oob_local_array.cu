// Each thread fills a local array with k values in[i] + j and stores their sum: out[i] = k * in[i] +
// k (k - 1) / 2, for a run-time k <= LEN.
//
// Planted bug (out of bounds, local memory): the fill loop runs to j <= k, so with k == LEN it writes
// buf[LEN], one past the end of the thread's local array.  The fixed twin oob_local_array_fixed.cu stops
// at j < k.
#define LEN 8

extern "C" __global__ void oob_local_array(const int* in, int* out, int n, int k)
{
    int buf[LEN];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int j = 0; j <= k; ++j)
        buf[j] = in[i] + j;  // BUG: j == k == LEN writes buf[LEN], past the end of buf
    int acc = 0;
    for (int j = 0; j < k; ++j)
        acc += buf[j];
    out[i] = acc;
}
