// Each thread fills a local array with k values in[i] + j and stores their sum: out[i] = k * in[i] +
// k (k - 1) / 2, for a run-time k <= LEN.
//
// The fixed twin of oob_local_array.cu: the fill loop writes buf[0..k-1] only.
#define LEN 8

extern "C" __global__ void oob_local_array_fixed(const int* in, int* out, int n, int k)
{
    int buf[LEN];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int j = 0; j < k; ++j)  // FIX: j < k
        buf[j] = in[i] + j;
    int acc = 0;
    for (int j = 0; j < k; ++j)
        acc += buf[j];
    out[i] = acc;
}
