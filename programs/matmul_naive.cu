// Naive matrix multiplication P = M * N of square Width x Width matrices (seed 000, MatrixMulKernel).
//
// Each thread computes one element of P as the inner product of a row of M and a column of N, reading both
// straight from global memory: 2 loads (8 bytes) per fused multiply-add, which is why the tiled version
// exists.  M and N are row-major: M[row * Width + k], N[k * Width + col].
extern "C" __global__ void matmul_naive(const float* M, const float* N, float* P, int Width)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;   // the y-coordinate of P
    int col = blockIdx.x * blockDim.x + threadIdx.x;   // the x-coordinate of P

    if ((row < Width) && (col < Width)) {
        float Pvalue = 0;
        // iterating through k with a fixed row and col
        for (int k = 0; k < Width; ++k) {
            Pvalue += M[row * Width + k] * N[k * Width + col];
        }
        P[row * Width + col] = Pvalue;
    }
}
