// Correlation with a `taps`-point filter from constant memory: out[i] = sum_k weights[k] *
// in[min(i + k, n - 1)], k < taps (taps = TAPS, the size of weights, at run time).
//
// Planted bug (read of a __constant__ beyond its size): the loop runs to k <= taps, so the last trip
// reads weights[TAPS], one past the end of the __constant__ array.  The fixed twin const_oob_fixed.cu
// stops at k < taps.
#define TAPS 8

__constant__ float weights[TAPS];

extern "C" __global__ void const_oob(const float* in, float* out, int n, int taps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k <= taps; ++k)
        acc += weights[k] * in[min(i + k, n - 1)];  // BUG: k == taps reads weights[TAPS], past its end
    out[i] = acc;
}
