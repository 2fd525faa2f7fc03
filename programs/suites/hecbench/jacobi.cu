// HeCBench "jacobi": one Jacobi relaxation sweep of the 2D Laplace equation with the residual norm.
//
// Follows HeCBench's jacobi (after NVIDIA's multi-GPU programming models, single-GPU version): on an
// ny x nx grid with fixed boundary rows and columns, every interior point becomes the mean of its four
// neighbours, a_new = (a[x+1] + a[x-1] + a[y+1] + a[y-1]) / 4, and the squared change is summed: a block
// reduction (warp shuffles, then shared memory) and one float atomicAdd per block into the global norm.
// Launch: grid (ceil((nx - 2) / 32), ceil((ny - 2) / 32)), block (32, 32).

#define BLOCK_X 32
#define BLOCK_Y 32

extern "C" __global__ void hecbench_jacobi(float *a_new, const float *a, float *l2_norm, int iy_start,
                                           int iy_end, int nx)
{
    __shared__ float warp_sums[BLOCK_X * BLOCK_Y / 32];

    const int iy = blockIdx.y * BLOCK_Y + threadIdx.y + iy_start;
    const int ix = blockIdx.x * BLOCK_X + threadIdx.x + 1;
    float local_l2_norm = 0.0f;

    if (iy < iy_end && ix < nx - 1) {
        const float new_val = 0.25f * (a[iy * nx + ix + 1] + a[iy * nx + ix - 1]
                                       + a[(iy + 1) * nx + ix] + a[(iy - 1) * nx + ix]);
        a_new[iy * nx + ix] = new_val;
        const float residue = new_val - a[iy * nx + ix];
        local_l2_norm = residue * residue;
    }

    for (int offset = 16; offset > 0; offset /= 2)
        local_l2_norm += __shfl_down_sync(0xffffffff, local_l2_norm, offset);
    const int tid = threadIdx.y * BLOCK_X + threadIdx.x;
    if (tid % 32 == 0)
        warp_sums[tid / 32] = local_l2_norm;
    __syncthreads();
    if (tid < 32) {
        float v = warp_sums[tid];
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffff, v, offset);
        if (tid == 0)
            atomicAdd(l2_norm, v);
    }
}
