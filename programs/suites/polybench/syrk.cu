// PolyBench/GPU "syrk" (symmetric rank-k update): C = alpha * A * A^T + beta * C on the full n x n C.
// Written for gpusim from the suite's published algorithm and GPU mapping: one thread per element of C on
// 32x8 blocks; thread (i, j) reads rows i and j of A, so the A[j][k] loads of a warp are a row apart.
#define DATA_TYPE float

extern "C" __global__ void syrk_kernel(int ni, int nj, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a,
                                       DATA_TYPE *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < ni && j < ni) {
        c[i * ni + j] *= beta;
        for (int k = 0; k < nj; k++) {
            c[i * ni + j] += alpha * a[i * nj + k] * a[j * nj + k];
        }
    }
}
