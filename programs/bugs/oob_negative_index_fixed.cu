// Backward difference: out[i] = in[i] - in[i - 1], with in[-1] counting as 0.
//
// The fixed twin of oob_negative_index.cu: thread 0 does not load in[-1].
extern "C" __global__ void oob_negative_index_fixed(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] - (i > 0 ? in[i - 1] : 0);  // FIX: no element before the array
}
