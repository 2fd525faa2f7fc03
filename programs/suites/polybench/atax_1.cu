// PolyBench/GPU "atax", first kernel: tmp = A * x (y = A^T (A x) in two launches).  Written for gpusim from
// the suite's published algorithm and GPU mapping: one thread per row of A on 1D blocks of 256, walking
// its row, so a warp's loads are 32 rows apart (uncoalesced); the sum accumulates in global memory.
#define DATA_TYPE float

extern "C" __global__ void atax_kernel1(int nx, int ny, DATA_TYPE *a, DATA_TYPE *x, DATA_TYPE *tmp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < nx) {
        tmp[i] = 0;
        for (int j = 0; j < ny; j++) {
            tmp[i] += a[i * ny + j] * x[j];
        }
    }
}
