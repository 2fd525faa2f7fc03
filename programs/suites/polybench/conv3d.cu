// PolyBench/GPU "3DConvolution": a 3x3x3 convolution with fixed coefficients over the interior of an
// ni x nj x nk volume (k fastest).  Written for gpusim from the suite's published algorithm and GPU mapping:
// one thread per output point on 32x8 blocks over (k, j); the suite launches one plane i at a time, here
// blockIdx.z selects the plane so one launch covers the volume.  The coefficients are our own values,
// w(a) * w(b) * w(c) of a 3-tap kernel per axis, folded into literals by the compiler.
#define DATA_TYPE float

extern "C" __global__ void convolution3d_kernel(int ni, int nj, int nk, DATA_TYPE *a, DATA_TYPE *b)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int i = blockIdx.z;
    const DATA_TYPE w[3] = {0.25f, 0.5f, -0.75f};

    if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1 && k > 0 && k < nk - 1) {
        DATA_TYPE sum = 0.0f;
#pragma unroll
        for (int di = -1; di <= 1; di++)
#pragma unroll
            for (int dj = -1; dj <= 1; dj++)
#pragma unroll
                for (int dk = -1; dk <= 1; dk++)
                    sum += w[di + 1] * w[dj + 1] * w[dk + 1] * a[((i + di) * nj + (j + dj)) * nk + (k + dk)];
        b[(i * nj + j) * nk + k] = sum;
    }
}
