// Correlation with a `taps`-point filter from constant memory: out[i] = sum_k weights[k] *
// in[min(i + k, n - 1)], k < taps (taps = TAPS, the size of weights, at run time).
//
// The fixed twin of const_oob.cu: the loop reads weights[0..taps-1] only.
#define TAPS 8

__constant__ float weights[TAPS];

extern "C" __global__ void const_oob_fixed(const float* in, float* out, int n, int taps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < taps; ++k)  // FIX: k < taps
        acc += weights[k] * in[min(i + k, n - 1)];
    out[i] = acc;
}
