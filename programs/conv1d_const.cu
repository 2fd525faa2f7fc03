// 1D convolution with the mask in constant memory (seed 001, "Constant Memory for Filter"; PMPP ch. 7).
//
// Same computation as conv1d_basic, but the mask M is a __constant__ array that the host fills with
// cudaMemcpyToSymbol(M, h_M, Mask_Width * sizeof(float)) before the launch.  All threads of a warp read the
// same M[j] in the same iteration, which is exactly the access the constant cache broadcasts, so the mask
// costs no global bandwidth.  The array is sized for the largest mask (MAX_MASK_WIDTH); Mask_Width says how
// many taps are used.
#define MAX_MASK_WIDTH 10

__constant__ float M[MAX_MASK_WIDTH];

extern "C" __global__ void conv1d_const(const float* N, float* P, int Mask_Width, int Width)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float Pvalue = 0;
    int N_start_point = i - (Mask_Width / 2);

    for (int j = 0; j < Mask_Width; j++) {
        if (((N_start_point + j) >= 0) && ((N_start_point + j) < Width)) {
            Pvalue += N[N_start_point + j] * M[j];
        }
    }
    if (i < Width)
        P[i] = Pvalue;
}
