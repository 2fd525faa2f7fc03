// Sums of the pairs that start at odd positions: out[j] = in[2j + 1] + in[2j + 2], j < (n - 1) / 2.
//
// Planted bug (misaligned access, global): the pair is loaded as one float2 through in + 1, which is
// 4-byte aligned; an 8-byte float2 load needs 8-byte alignment.  The fixed twin
// misaligned_vector_load_fixed.cu loads the two floats separately.
extern "C" __global__ void misaligned_vector_load(const float* in, float* out, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < (n - 1) / 2) {
        float2 v = reinterpret_cast<const float2*>(in + 1)[j];  // BUG: 8-byte load from a 4-byte aligned address
        out[j] = v.x + v.y;
    }
}
