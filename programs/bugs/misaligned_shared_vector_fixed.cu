// Each thread sums the 4 floats that start one past its 4-float group in a shared staging buffer:
// out[i] = in[4i + 1] + in[4i + 2] + in[4i + 3] + in[4i + 4] within each block (0 past the block's data).
//
// The fixed twin of misaligned_shared_vector.cu: four aligned 4-byte loads.
#define BLOCK 32

extern "C" __global__ void misaligned_shared_vector_fixed(const float* in, float* out)
{
    __shared__ __align__(16) float s[4 * BLOCK + 4];
    int t = threadIdx.x;
    int base = blockIdx.x * 4 * BLOCK;
    for (int k = t; k < 4 * BLOCK; k += BLOCK)
        s[k] = in[base + k];
    if (t < 4)
        s[4 * BLOCK + t] = 0.0f;
    __syncthreads();
    const float* p = &s[4 * t + 1];
    out[blockIdx.x * BLOCK + t] = p[0] + p[1] + p[2] + p[3];  // FIX: scalar loads
}
