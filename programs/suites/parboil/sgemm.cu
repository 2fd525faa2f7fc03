// Parboil "sgemm" (register-tiled version): C = alpha * A * B^T + beta * C in single precision.
//
// Follows the algorithm, data layout and datasets of the Parboil benchmark suite's sgemm: column-major
// matrices as in BLAS, called as sgemm('N', 'T', m, n, k, ...) so A is m x k (lda = m), B is n x k (ldb = n)
// and C is m x n (ldc = m).  Register tiling after Volkov and Demmel: a block of TILE_N * TILE_TB_HEIGHT = 128
// threads computes a TILE_M x TILE_N = 128 x 16 tile of C.  Each thread owns one row of the tile and keeps
// its TILE_N partial sums in registers; the block stages a TILE_TB_HEIGHT x TILE_N slice of B in shared
// memory, and each thread streams its row of A straight from global memory (coalesced: consecutive threads,
// consecutive rows of a column-major A).  m must be a multiple of 128, n of 16 and k of 8 (the suite's
// datasets are: small 128 x 96 x 160, medium 1024 x 992 x 1056).
// Launch: grid (m / 128, n / 16), block 128.

#define TILE_N 16
#define TILE_TB_HEIGHT 8
#define TILE_M (TILE_N * TILE_TB_HEIGHT)

extern "C" __global__ void parboil_sgemm(const float *A, int lda, const float *B, int ldb, float *C, int ldc,
                                         int k, float alpha, float beta)
{
    float c[TILE_N];
    for (int i = 0; i < TILE_N; i++)
        c[i] = 0.0f;

    // this thread's row of A / C, and the first column of the block's tile
    const int m = blockIdx.x * TILE_M + threadIdx.x;
    const int n = blockIdx.y * TILE_N;

    // the thread's element of each B slice: row (k direction) ty, column tx
    const int tx = threadIdx.x % TILE_N;
    const int ty = threadIdx.x / TILE_N;

    __shared__ float b_s[TILE_TB_HEIGHT][TILE_N];

    for (int i = 0; i < k; i += TILE_TB_HEIGHT) {
        // B^T slice: B is n x k column-major, so element (n + tx, i + ty) is at (n + tx) + (i + ty) * ldb
        b_s[ty][tx] = B[n + tx + (i + ty) * ldb];
        __syncthreads();
        for (int j = 0; j < TILE_TB_HEIGHT; j++) {
            const float a = A[m + (i + j) * lda];
            for (int kk = 0; kk < TILE_N; kk++)
                c[kk] += a * b_s[j][kk];
        }
        __syncthreads();
    }

    float *Cp = C + m + n * ldc;
    for (int i = 0; i < TILE_N; i++) {
        Cp[i * ldc] = alpha * c[i] + beta * Cp[i * ldc];
    }
}
