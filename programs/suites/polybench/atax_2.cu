// PolyBench/GPU "atax", second kernel: y = A^T * tmp (tmp = A x from the first launch).  Written for gpusim
// from the suite's published algorithm and GPU mapping: one thread per column of A on 1D blocks of 256,
// walking down its column (coalesced across the warp); the sum accumulates in global memory.
#define DATA_TYPE float

extern "C" __global__ void atax_kernel2(int nx, int ny, DATA_TYPE *a, DATA_TYPE *y, DATA_TYPE *tmp)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;

    if (j < ny) {
        y[j] = 0;
        for (int i = 0; i < nx; i++) {
            y[j] += a[i * ny + j] * tmp[i];
        }
    }
}
