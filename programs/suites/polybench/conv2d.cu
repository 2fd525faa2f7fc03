// PolyBench/GPU "2DConvolution": a 3x3 convolution with fixed coefficients over the interior of an
// ni x nj image.  Written for gpusim from the suite's published algorithm and GPU mapping: one thread per
// output pixel on 32x8 blocks, nine global loads each (neighbouring threads share them through L1), the
// coefficients as literals in the code (our own values).
#define DATA_TYPE float

extern "C" __global__ void convolution2d_kernel(int ni, int nj, DATA_TYPE *a, DATA_TYPE *b)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    DATA_TYPE c11 = +0.25f, c12 = -0.50f, c13 = +0.125f;
    DATA_TYPE c21 = +0.75f, c22 = +0.40f, c23 = -0.60f;
    DATA_TYPE c31 = -0.35f, c32 = +0.90f, c33 = +0.05f;

    if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1) {
        b[i * nj + j] = c11 * a[(i - 1) * nj + (j - 1)] + c12 * a[(i - 1) * nj + j] + c13 * a[(i - 1) * nj + (j + 1)]
                      + c21 * a[i * nj + (j - 1)]       + c22 * a[i * nj + j]       + c23 * a[i * nj + (j + 1)]
                      + c31 * a[(i + 1) * nj + (j - 1)] + c32 * a[(i + 1) * nj + j] + c33 * a[(i + 1) * nj + (j + 1)];
    }
}
