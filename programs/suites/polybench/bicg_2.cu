// PolyBench/GPU "bicg" (the BiCG sub-kernel of BiCGStab), second kernel: q = A * p.  Written for gpusim
// from the suite's published algorithm and GPU mapping: one thread per row i on 1D blocks of 256, walking
// its row (a warp's loads are rows apart: uncoalesced), the sum accumulated in global memory.
#define DATA_TYPE float

extern "C" __global__ void bicg_kernel2(int nx, int ny, DATA_TYPE *a, DATA_TYPE *p, DATA_TYPE *q)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < nx) {
        q[i] = 0.0f;
        for (int j = 0; j < ny; j++) {
            q[i] += a[i * ny + j] * p[j];
        }
    }
}
