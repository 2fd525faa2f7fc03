// SHOC "Spmv" (level 1), ELLPACK-R kernel: y = A x with the matrix stored column-major in padded ELLPACK
// arrays (entry k of row r at k * dim + r) and the true length of every row in rowLengths.  Written for
// gpusim from SHOC's published algorithm: one thread per row, the warp's loads of values and column indices
// coalesced, each thread stopping at its own row length.
extern "C" __global__ void spmv_ellpackr_kernel(const float *__restrict__ val, const int *__restrict__ cols,
                                                const int *__restrict__ rowLengths,
                                                const float *__restrict__ vec, const int dim,
                                                float *__restrict__ out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;

    if (t < dim) {
        float result = 0.0f;
        int max = rowLengths[t];
        for (int i = 0; i < max; i++) {
            int ind = i * dim + t;
            result += val[ind] * __ldg(&vec[cols[ind]]);
        }
        out[t] = result;
    }
}
