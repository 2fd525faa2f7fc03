// Tiled 2D convolution with the mask in constant memory: the seeds' tiling "strategy 2" (seed 001, "3
// Strategy for Tile"; PMPP ch. 7).
//
// A block has one thread per *input* tile element (IN_TILE_DIM^2 = 16 x 16 threads).  Every thread loads one
// input element (0 for ghost cells outside the image) into shared memory in a single step: no divergence
// while loading, coalesced rows.  Then only the inner OUT_TILE_DIM^2 = 12 x 12 threads compute an output
// pixel from the shared tile: divergence during computation.  The 5 x 5 mask Mc sits in __constant__
// memory (cudaMemcpyToSymbol(Mc, Mask, MASK_WIDTH * MASK_WIDTH * sizeof(float))).
// Reuse per input element is at most MASK_WIDTH^2 = 25; the halo (4 of 16 rows/columns) lowers it.
#define MASK_WIDTH 5
#define MASK_RADIUS (MASK_WIDTH / 2)
#define IN_TILE_DIM 16
#define OUT_TILE_DIM (IN_TILE_DIM - 2 * MASK_RADIUS)

__constant__ float Mc[MASK_WIDTH][MASK_WIDTH];

extern "C" __global__ void conv2d_tiled(const float* N, float* P, int width, int height)
{
    // Block (bx, by) produces the output tile starting at (by * OUT_TILE_DIM, bx * OUT_TILE_DIM); its input
    // tile starts MASK_RADIUS rows and columns earlier.
    int col = blockIdx.x * OUT_TILE_DIM + threadIdx.x - MASK_RADIUS;
    int row = blockIdx.y * OUT_TILE_DIM + threadIdx.y - MASK_RADIUS;

    __shared__ float N_s[IN_TILE_DIM][IN_TILE_DIM];
    if (row >= 0 && row < height && col >= 0 && col < width)
        N_s[threadIdx.y][threadIdx.x] = N[row * width + col];
    else
        N_s[threadIdx.y][threadIdx.x] = 0.0f;   // ghost cell
    __syncthreads();

    // Only the threads of the inner OUT_TILE_DIM x OUT_TILE_DIM square compute an output pixel.
    int tileCol = threadIdx.x - MASK_RADIUS;
    int tileRow = threadIdx.y - MASK_RADIUS;
    if (col >= 0 && col < width && row >= 0 && row < height) {
        if (tileCol >= 0 && tileCol < OUT_TILE_DIM && tileRow >= 0 && tileRow < OUT_TILE_DIM) {
            float Pvalue = 0.0f;
            for (int fRow = 0; fRow < MASK_WIDTH; fRow++)
                for (int fCol = 0; fCol < MASK_WIDTH; fCol++)
                    Pvalue += Mc[fRow][fCol] * N_s[tileRow + fRow][tileCol + fCol];
            P[row * width + col] = Pvalue;
        }
    }
}
