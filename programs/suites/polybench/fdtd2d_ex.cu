// PolyBench/GPU "fdtd-2d" (2D finite-difference time domain), second kernel of a time step: update the
// electric field Ex, ex[i][j] -= 0.5 (hz[i][j] - hz[i][j-1]) for j > 0.  Written for gpusim from the suite's
// published algorithm and GPU mapping: one thread per grid point on 32x8 blocks.
#define DATA_TYPE float

extern "C" __global__ void fdtd_step2_kernel(int nx, int ny, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < nx && j < ny && j > 0) {
        ex[i * ny + j] = ex[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
    }
}
