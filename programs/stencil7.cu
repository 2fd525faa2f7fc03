// 7-point 3D stencil on an N x N x N grid (seed 001, "Example 7 point Stencil"; PMPP ch. 8 basic kernel).
//
// out[i][j][k] = c0 * in[i][j][k] + c1 * in[i][j][k-1] + c2 * in[i][j][k+1] + c3 * in[i][j-1][k]
//               + c4 * in[i][j+1][k] + c5 * in[i-1][j][k] + c6 * in[i+1][j][k]
// for interior points only (boundary points of out are not written).  One thread per grid point, one
// multiply-add per global load: memory bound, the starting point for the seed's thread coarsening, register
// tiling and shared-memory tiling variants.  i is z (slowest), k is x (fastest, consecutive in memory).
// Launch with 8 x 8 x 8 blocks over ceil(N/8)^3.
extern "C" __global__ void stencil7(const float* in, float* out, unsigned int N,
                                    float c0, float c1, float c2, float c3, float c4, float c5, float c6)
{
    unsigned int i = blockIdx.z * blockDim.z + threadIdx.z;
    unsigned int j = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 1 && i < N - 1 && j >= 1 && j < N - 1 && k >= 1 && k < N - 1) {
        out[i * N * N + j * N + k] = c0 * in[i * N * N + j * N + k]
                                   + c1 * in[i * N * N + j * N + (k - 1)]
                                   + c2 * in[i * N * N + j * N + (k + 1)]
                                   + c3 * in[i * N * N + (j - 1) * N + k]
                                   + c4 * in[i * N * N + (j + 1) * N + k]
                                   + c5 * in[(i - 1) * N * N + j * N + k]
                                   + c6 * in[(i + 1) * N * N + j * N + k];
    }
}
