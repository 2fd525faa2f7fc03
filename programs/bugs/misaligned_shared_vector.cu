// Each thread sums the 4 floats that start one past its 4-float group in a shared staging buffer:
// out[i] = in[4i + 1] + in[4i + 2] + in[4i + 3] + in[4i + 4] within each block (0 past the block's data).
//
// Planted bug (misaligned access, shared): the four floats are read as one float4 from &s[4t + 1], which
// is 4-byte aligned; a 16-byte float4 access needs 16-byte alignment.  The fixed twin
// misaligned_shared_vector_fixed.cu reads four floats.
#define BLOCK 32

extern "C" __global__ void misaligned_shared_vector(const float* in, float* out)
{
    __shared__ __align__(16) float s[4 * BLOCK + 4];
    int t = threadIdx.x;
    int base = blockIdx.x * 4 * BLOCK;
    for (int k = t; k < 4 * BLOCK; k += BLOCK)
        s[k] = in[base + k];
    if (t < 4)
        s[4 * BLOCK + t] = 0.0f;
    __syncthreads();
    float4 v = *reinterpret_cast<const float4*>(&s[4 * t + 1]);  // BUG: 16-byte load from a 4-byte aligned address
    out[blockIdx.x * BLOCK + t] = v.x + v.y + v.z + v.w;
}
