// PolyBench/GPU "jacobi-2d-imper" (2D Jacobi stencil), first kernel of a time step:
// B[i][j] = 0.2 (A[i][j] + A[i][j-1] + A[i][j+1] + A[i+1][j] + A[i-1][j]) on the interior points.  Written
// for gpusim from the suite's published algorithm and GPU mapping: one thread per point on 32x8 blocks.
#define DATA_TYPE float

extern "C" __global__ void jacobi2d_kernel1(int n, DATA_TYPE *a, DATA_TYPE *b)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) {
        b[i * n + j] = 0.2f * (a[i * n + j] + a[i * n + (j - 1)] + a[i * n + (j + 1)]
                               + a[(i + 1) * n + j] + a[(i - 1) * n + j]);
    }
}
