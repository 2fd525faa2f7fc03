// Each thread sums a window of k consecutive elements (wrapping around at n) through a local array:
// out[i] = in[i] + in[i + 1] + ... + in[i + k - 1], k <= MAXW.
//
// The fixed twin of uninit_local_array.cu: the summing loop reads only what the copy loop wrote.
#define MAXW 16

extern "C" __global__ void uninit_local_array_fixed(const int* in, int* out, int n, int k)
{
    int window[MAXW];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int j = 0; j < k; ++j)
        window[j] = in[(i + j) % n];
    int acc = 0;
    for (int j = 0; j < k; ++j)  // FIX: j < k
        acc += window[j];
    out[i] = acc;
}
