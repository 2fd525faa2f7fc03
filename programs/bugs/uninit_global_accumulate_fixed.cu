// out = a, element-wise, into an output buffer that the host allocated and did not initialise.
//
// The fixed twin of uninit_global_accumulate.cu: the kernel stores without reading the old value.
extern "C" __global__ void uninit_global_accumulate_fixed(const float* a, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i];  // FIX: store, do not accumulate into garbage
}
