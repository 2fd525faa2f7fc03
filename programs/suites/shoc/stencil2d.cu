// SHOC "Stencil2D" (level 1): one step of a 9-point weighted stencil on a 2D grid,
// out = wCenter * c + wCardinal * (n + s + e + w) + wDiagonal * (ne + nw + se + sw), the grid stored with a
// one-point halo around its rows x cols interior.  Written for gpusim from SHOC's published algorithm and
// its default tiling (lsize 8 x 256): a block of LCOLS threads owns an LROWS x LCOLS tile, stages the tile and its halo in shared
// memory (each thread one column, the first and last threads also the halo columns), synchronises, and
// each thread then computes the LROWS outputs of its column from shared memory.
#define LROWS 8
#define LCOLS 256

extern "C" __global__ void stencil2d_kernel(const float *data, float *newData, int pad, float wCenter,
                                            float wCardinal, float wDiagonal)
{
    __shared__ float sh[LROWS + 2][LCOLS + 2];

    // a row holds the gridDim.x * LCOLS interior columns and pad more (pad >= 2: the two halo columns, and
    // SHOC's padding of rows for alignment)
    int pitch = gridDim.x * LCOLS + pad;
    int tileRow = blockIdx.y * LROWS;          // first interior row of the tile (halo row index, minus one)
    int tileCol = blockIdx.x * LCOLS;
    int c = threadIdx.x;

    // global (halo-inclusive) coordinates: interior point (r, col) lives at (r + 1, col + 1)
    for (int r = 0; r < LROWS + 2; r++) {
        sh[r][c + 1] = data[(tileRow + r) * pitch + tileCol + c + 1];
    }
    if (c == 0) {
        for (int r = 0; r < LROWS + 2; r++) {
            sh[r][0] = data[(tileRow + r) * pitch + tileCol];
        }
    }
    if (c == LCOLS - 1) {
        for (int r = 0; r < LROWS + 2; r++) {
            sh[r][LCOLS + 1] = data[(tileRow + r) * pitch + tileCol + LCOLS + 1];
        }
    }
    __syncthreads();

    for (int r = 1; r <= LROWS; r++) {
        float center = sh[r][c + 1];
        float cardinal = sh[r - 1][c + 1] + sh[r + 1][c + 1] + sh[r][c] + sh[r][c + 2];
        float diagonal = sh[r - 1][c] + sh[r - 1][c + 2] + sh[r + 1][c] + sh[r + 1][c + 2];
        newData[(tileRow + r) * pitch + tileCol + c + 1] = wCenter * center + wCardinal * cardinal
                                                          + wDiagonal * diagonal;
    }
}
