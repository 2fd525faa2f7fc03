// Sums of the pairs that start at odd positions: out[j] = in[2j + 1] + in[2j + 2], j < (n - 1) / 2.
//
// The fixed twin of misaligned_vector_load.cu: two aligned 4-byte loads.
extern "C" __global__ void misaligned_vector_load_fixed(const float* in, float* out, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < (n - 1) / 2)
        out[j] = in[2 * j + 1] + in[2 * j + 2];  // FIX: scalar loads
}
