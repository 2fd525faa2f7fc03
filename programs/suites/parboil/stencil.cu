// Parboil "stencil": one Jacobi step of the 7-point 3D Laplacian operator,
//     Anext[k][j][i] = c1 * (sum of the six face neighbours of A0[k][j][i]) - c0 * A0[k][j][i]
// on the interior of an nx x ny x nz grid (x fastest in memory), boundary cells left untouched.
//
// Follows the Parboil benchmark suite's optimised stencil: a 2D thread block tiles the x-y plane and marches
// along z.  Register tiling in z: each thread keeps its column's bottom, current and top values in registers,
// so every interior value is loaded from global memory once per step.  Shared-memory tiling in x-y: the
// current plane's tile and its one-cell halo are staged in shared memory for the four in-plane neighbours.
// Datasets as in the suite: 128 x 128 x 32 and 512 x 512 x 64.
// Launch: grid (ceil(nx / 32), ceil(ny / 8)), block (32, 8).

#define TILE_X 32
#define TILE_Y 8
#define Index3D(nx, ny, i, j, k) ((i) + (nx) * ((j) + (ny) * (k)))

extern "C" __global__ void parboil_stencil(float c0, float c1, const float *A0, float *Anext,
                                           int nx, int ny, int nz)
{
    __shared__ float sh[TILE_Y + 2][TILE_X + 2];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i = blockIdx.x * TILE_X + tx;
    const int j = blockIdx.y * TILE_Y + ty;
    const int sx = tx + 1, sy = ty + 1;
    const bool inside = i < nx && j < ny;

    float bottom = inside ? A0[Index3D(nx, ny, i, j, 0)] : 0.0f;
    float current = inside ? A0[Index3D(nx, ny, i, j, 1)] : 0.0f;
    float top;

    for (int k = 1; k < nz - 1; k++) {
        top = inside ? A0[Index3D(nx, ny, i, j, k + 1)] : 0.0f;

        __syncthreads();    // everyone is done with the previous plane's tile
        sh[sy][sx] = current;
        if (tx == 0)
            sh[sy][0] = (i > 0 && j < ny) ? A0[Index3D(nx, ny, i - 1, j, k)] : 0.0f;
        if (tx == TILE_X - 1)
            sh[sy][TILE_X + 1] = (i + 1 < nx && j < ny) ? A0[Index3D(nx, ny, i + 1, j, k)] : 0.0f;
        if (ty == 0)
            sh[0][sx] = (j > 0 && i < nx) ? A0[Index3D(nx, ny, i, j - 1, k)] : 0.0f;
        if (ty == TILE_Y - 1)
            sh[TILE_Y + 1][sx] = (j + 1 < ny && i < nx) ? A0[Index3D(nx, ny, i, j + 1, k)] : 0.0f;
        __syncthreads();

        if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1) {
            Anext[Index3D(nx, ny, i, j, k)] =
                (top + bottom + sh[sy][sx - 1] + sh[sy][sx + 1] + sh[sy - 1][sx] + sh[sy + 1][sx]) * c1
                - current * c0;
        }
        bottom = current;
        current = top;
    }
}
