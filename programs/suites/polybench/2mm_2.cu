// PolyBench/GPU "2mm", second kernel: D = beta * D + tmp * C (tmp = alpha*A*B from the first launch).
// Written for gpusim from the suite's published algorithm and GPU mapping: one thread per element of D on
// 32x8 blocks, accumulating in global memory.
#define DATA_TYPE float

extern "C" __global__ void mm2_kernel2(int ni, int nj, int nl, DATA_TYPE beta, DATA_TYPE *tmp,
                                       DATA_TYPE *c, DATA_TYPE *d)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < ni && j < nl) {
        d[i * nl + j] *= beta;
        for (int k = 0; k < nj; k++) {
            d[i * nl + j] += tmp[i * nj + k] * c[k * nl + j];
        }
    }
}
