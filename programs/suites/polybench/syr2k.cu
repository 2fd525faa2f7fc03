// PolyBench/GPU "syr2k" (symmetric rank-2k update): C = alpha * A * B^T + alpha * B * A^T + beta * C on the
// full n x n C.  Written for gpusim from the suite's published algorithm and GPU mapping: one thread per
// element of C on 32x8 blocks; the A[j][k] and B[j][k] loads of a warp are a row apart.
#define DATA_TYPE float

extern "C" __global__ void syr2k_kernel(int ni, int nj, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a,
                                        DATA_TYPE *b, DATA_TYPE *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < ni && j < ni) {
        c[i * ni + j] *= beta;
        for (int k = 0; k < nj; k++) {
            c[i * ni + j] += alpha * a[i * nj + k] * b[j * nj + k] + alpha * b[i * nj + k] * a[j * nj + k];
        }
    }
}
