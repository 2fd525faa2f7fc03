// PolyBench/GPU "bicg" (the BiCG sub-kernel of BiCGStab), first kernel: s = A^T * r.  Written for gpusim
// from the suite's published algorithm and GPU mapping: one thread per column j on 1D blocks of 256, the
// column walk coalesced across the warp, the sum accumulated in global memory.
#define DATA_TYPE float

extern "C" __global__ void bicg_kernel1(int nx, int ny, DATA_TYPE *a, DATA_TYPE *r, DATA_TYPE *s)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;

    if (j < ny) {
        s[j] = 0.0f;
        for (int i = 0; i < nx; i++) {
            s[j] += r[i] * a[i * ny + j];
        }
    }
}
