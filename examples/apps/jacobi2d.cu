// jacobi2d: 5-point Jacobi relaxation on an n x n grid, in time steps (after the PolyBench jacobi-2d
// algorithm; written for gpusim's examples). The boundary rows and columns stay fixed.
extern "C" __global__ void jacobi_sweep(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= n - 1 || j >= n - 1)
        return;
    int c = i * n + j;
    out[c] = 0.2f * (in[c] + in[c - 1] + in[c + 1] + in[c - n] + in[c + n]);
}

// The largest |a - b| over the grid: a block reduction in shared memory, then one atomicMax per block on the
// float's bits (non-negative floats order as their bit patterns), so the result does not depend on the order
// in which blocks finish.
extern "C" __global__ void max_change(const float* __restrict__ a, const float* __restrict__ b, int count,
                                      int* result)
{
    __shared__ float part[256];
    float m = 0.0f;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x)
        m = fmaxf(m, fabsf(a[k] - b[k]));
    part[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicMax(result, __float_as_int(part[0]));
}
