// PolyBench/GPU "fdtd-2d" (2D finite-difference time domain), third kernel of a time step: update the
// magnetic field, hz[i][j] -= 0.7 (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j]) for i < nx-1, j < ny-1.
// Written for gpusim from the suite's published algorithm and GPU mapping: one thread per grid point on
// 32x8 blocks.
#define DATA_TYPE float

extern "C" __global__ void fdtd_step3_kernel(int nx, int ny, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < nx - 1 && j < ny - 1) {
        hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * ny + (j + 1)] - ex[i * ny + j]
                                                  + ey[(i + 1) * ny + j] - ey[i * ny + j]);
    }
}
