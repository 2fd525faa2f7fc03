// PolyBench/GPU "2mm", first kernel: tmp = alpha * A * B (D = alpha*A*B*C + beta*D is computed as two
// matrix products; this is the first launch).  Written for gpusim from the suite's published algorithm and
// GPU mapping: one thread per element of tmp on 32x8 blocks, accumulating in global memory.
#define DATA_TYPE float

extern "C" __global__ void mm2_kernel1(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE *tmp,
                                       DATA_TYPE *a, DATA_TYPE *b)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < ni && j < nj) {
        tmp[i * nj + j] = 0;
        for (int k = 0; k < nk; k++) {
            tmp[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
        }
    }
}
