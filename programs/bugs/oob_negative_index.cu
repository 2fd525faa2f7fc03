// Backward difference: out[i] = in[i] - in[i - 1], with in[-1] counting as 0.
//
// Planted bug (out of bounds, negative index, global): thread 0 loads in[-1], the element before the
// array.  The fixed twin oob_negative_index_fixed.cu uses 0 for it.
extern "C" __global__ void oob_negative_index(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] - in[i - 1];  // BUG: i == 0 loads in[-1]
}
