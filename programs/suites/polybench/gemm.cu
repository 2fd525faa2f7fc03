// PolyBench/GPU "gemm" (linear-algebra/blas): C = alpha * A * B + beta * C, row-major, single precision.
// Written for gpusim from the suite's published algorithm and its GPU mapping: one thread per element of C
// on a 2D grid of 32x8 blocks, the k loop accumulating straight into C in global memory as the suite does.
#define DATA_TYPE float

extern "C" __global__ void gemm_kernel(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta,
                                       DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < ni && j < nj) {
        c[i * nj + j] *= beta;
        for (int k = 0; k < nk; k++) {
            c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
        }
    }
}
