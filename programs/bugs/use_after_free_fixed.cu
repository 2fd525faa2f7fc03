// out = 2 * in, element-wise.
//
// The fixed twin of use_after_free.cu: the same kernel; its host keeps `in` allocated until after the
// launch (bugs.toml: no host.freed for this twin).
extern "C" __global__ void use_after_free_fixed(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];  // FIX: (host side) `in` is alive during the launch
}
