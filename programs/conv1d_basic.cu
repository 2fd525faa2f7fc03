// Basic 1D convolution (seed 001, "Simple 1D Conv": convolution_1D_basic_kernel, PMPP ch. 7).
//
// N is the input array, M the mask (Mask_Width taps, odd), P the output.  Every thread computes one output
// element; input elements outside the array ("ghost elements") count as 0, which the if-test inside the
// loop implements: only the threads near the two ends of the array diverge on it.
// Both N and M come from global memory: two loads per multiply-add.  The seed's listing never stores
// Pvalue; like PMPP we store it, and guard the store with i < Width because the grid is rounded up.
extern "C" __global__ void conv1d_basic(const float* N, const float* M, float* P, int Mask_Width, int Width)
{
    // every thread in charge of one output element
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float Pvalue = 0;
    int N_start_point = i - (Mask_Width / 2);

    // iterate through filter
    for (int j = 0; j < Mask_Width; j++) {
        if (((N_start_point + j) >= 0) && ((N_start_point + j) < Width)) {
            Pvalue += N[N_start_point + j] * M[j];
        }
    }
    if (i < Width)
        P[i] = Pvalue;
}
