// HeCBench "layernorm": forward layer normalisation of an N x M activation matrix.
//
// Follows HeCBench's layernorm (after PyTorch's LayerNormForwardCUDAKernel): one block per row.  Every
// thread accumulates the sum and the sum of squares of a strided slice of the row, the block reduces them
// (warp shuffles, then one value per warp through shared memory), and the row's mean and reciprocal
// standard deviation rstd = 1 / sqrt(var + eps) are stored; then Y = (X - mean) * rstd * gamma + beta with
// per-column gamma and beta.
// Launch: grid N, block 256.

#define BLOCK 256
#define WARPS (BLOCK / 32)

__device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

extern "C" __global__ void hecbench_layernorm(const float *X, const float *gamma, const float *beta,
                                              float *mean, float *rstd, float *Y, int M, float eps)
{
    __shared__ float s_sum[WARPS], s_sq[WARPS];
    __shared__ float s_mean, s_rstd;

    const int row = blockIdx.x;
    const float *x = X + (long)row * M;
    float *y = Y + (long)row * M;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

    float sum = 0.0f, sq = 0.0f;
    for (int j = threadIdx.x; j < M; j += BLOCK) {
        const float v = x[j];
        sum += v;
        sq += v * v;
    }
    sum = warp_sum(sum);
    sq = warp_sum(sq);
    if (lane == 0) {
        s_sum[warp] = sum;
        s_sq[warp] = sq;
    }
    __syncthreads();
    if (warp == 0) {
        sum = lane < WARPS ? s_sum[lane] : 0.0f;
        sq = lane < WARPS ? s_sq[lane] : 0.0f;
        sum = warp_sum(sum);
        sq = warp_sum(sq);
        if (lane == 0) {
            const float m = sum / M;
            const float var = fmaxf(sq / M - m * m, 0.0f);
            s_mean = m;
            s_rstd = rsqrtf(var + eps);
            mean[row] = m;
            rstd[row] = s_rstd;
        }
    }
    __syncthreads();

    const float m = s_mean, r = s_rstd;
    for (int j = threadIdx.x; j < M; j += BLOCK)
        y[j] = (x[j] - m) * r * gamma[j] + beta[j];
}
