// PolyBench/GPU "fdtd-2d" (2D finite-difference time domain), first kernel of time step t: update the
// electric field Ey, the top row from the source fict[t], the others ey[i][j] -= 0.5 (hz[i][j] - hz[i-1][j]).
// Written for gpusim from the suite's published algorithm and GPU mapping: one thread per grid point on
// 32x8 blocks.
#define DATA_TYPE float

extern "C" __global__ void fdtd_step1_kernel(int nx, int ny, int t, DATA_TYPE *fict, DATA_TYPE *ex,
                                             DATA_TYPE *ey, DATA_TYPE *hz)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < nx && j < ny) {
        if (i == 0) {
            ey[i * ny + j] = fict[t];
        } else {
            ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
        }
    }
}
