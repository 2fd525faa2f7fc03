// SHOC "Spmv" (level 1), CSR scalar kernel: y = A x for a sparse matrix in compressed sparse row form, one
// thread per row.  Written for gpusim from SHOC's published algorithm: each thread walks its own row, so a
// warp's loads of values and column indices are scattered over 32 rows (uncoalesced) and x is gathered
// through the read-only data path (SHOC reads x through the texture cache).
extern "C" __global__ void spmv_csr_scalar_kernel(const float *__restrict__ val, const int *__restrict__ cols,
                                                  const int *__restrict__ rowDelimiters,
                                                  const float *__restrict__ vec, const int dim,
                                                  float *__restrict__ out)
{
    int myRow = blockIdx.x * blockDim.x + threadIdx.x;

    if (myRow < dim) {
        float t = 0.0f;
        int start = rowDelimiters[myRow];
        int end = rowDelimiters[myRow + 1];
        for (int j = start; j < end; j++) {
            int col = cols[j];
            t += val[j] * __ldg(&vec[col]);
        }
        out[myRow] = t;
    }
}
