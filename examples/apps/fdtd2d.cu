// fdtd2d: 2-D finite-difference time-domain electromagnetics (TE mode), three field updates per time step
// (after the PolyBench fdtd-2d algorithm; written for gpusim's examples). Row-major nx x ny arrays.
extern "C" __global__ void update_ey(float* ey, const float* __restrict__ hz, const float* __restrict__ source,
                                     int t, int nx, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny)
        return;
    if (i == 0)
        ey[j] = source[t];                       // the excitation enters along the first row
    else
        ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
}

extern "C" __global__ void update_ex(float* ex, const float* __restrict__ hz, int nx, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j < 1 || j >= ny)
        return;
    ex[i * ny + j] = ex[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + j - 1]);
}

extern "C" __global__ void update_hz(float* hz, const float* __restrict__ ex, const float* __restrict__ ey,
                                     int nx, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx - 1 || j >= ny - 1)
        return;
    int c = i * ny + j;
    hz[c] = hz[c] - 0.7f * (ex[c + 1] - ex[c] + ey[c + ny] - ey[c]);
}
