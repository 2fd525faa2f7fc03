// Parboil "spmv" (JDS version): y = A * x for a sparse matrix in jagged diagonal storage.
//
// Follows the Parboil benchmark suite's spmv: rows are sorted by decreasing number of non-zeros (perm holds
// the original row of each sorted row), and the k-th jagged diagonal holds the k-th non-zero of every sorted
// row, stored contiguously from jds_ptr_int[k] so that consecutive threads (consecutive sorted rows) read
// consecutive words of data and index.  Rows are handled in groups of 32 (one warp); every diagonal is
// padded to whole groups and sh_zcnt_int[g] is the longest row of group g, so the threads of a warp run the
// same number of iterations and multiply zero padding where their own row is shorter.  The diagonal offsets
// and per-group counts live in constant memory (uniform across a warp: broadcast); the gather of x through
// the column index is the scattered access.  One thread per sorted row; block 192 as in the suite.

#define MAX_JDS_DIAGONALS 1024
#define MAX_JDS_GROUPS 8192

__constant__ int jds_ptr_int[MAX_JDS_DIAGONALS];
__constant__ int sh_zcnt_int[MAX_JDS_GROUPS];

extern "C" __global__ void parboil_spmv_jds(float *dst_vector, const float *d_data, const int *d_index,
                                            const int *d_perm, const float *x_vec, const int dim)
{
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    if (ix < dim) {
        float sum = 0.0f;
        int bound = sh_zcnt_int[ix / 32];
        for (int k = 0; k < bound; k++) {
            int j = jds_ptr_int[k] + ix;
            int in = d_index[j];
            float d = d_data[j];
            float t = x_vec[in];
            sum += d * t;
        }
        dst_vector[d_perm[ix]] = sum;
    }
}
