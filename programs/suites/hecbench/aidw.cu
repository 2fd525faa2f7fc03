// HeCBench "aidw": adaptive inverse distance weighting interpolation with a kNN search (Mei, Xu and Xu,
// SpringerPlus 2016; the adaptive power of Lu and Wong 2008).
//
// Follows HeCBench's aidw: one thread per interpolated point, the data points staged through shared
// memory in tiles.  Pass 1 finds the K nearest data points: each thread keeps its K smallest distances in a
// sorted per-thread array, inserting a closer point at a data-dependent position (the array is indexed
// dynamically, so it lives in local memory).  Their mean distance r_obs, against the expected nearest-
// neighbour distance of a random pattern r_exp = 1 / (2 sqrt(n / area)), gives the normalised density mu
// and, through triangular membership functions, the power alpha in [1, 5].  Pass 2 interpolates
// z = sum z_i d_i^-alpha / sum d_i^-alpha over all data points.
// Launch: grid ceil(inum / 256), block 256.

#define BLOCK_SIZE 256
#define K 10

__device__ float adaptive_alpha(float mu)
{
    const float a1 = 1.0f, a2 = 2.0f, a3 = 3.0f, a4 = 4.0f, a5 = 5.0f;
    if (mu <= 0.1f) return a1;
    if (mu <= 0.3f) return a1 * (1.0f - 5.0f * (mu - 0.1f)) + a2 * 5.0f * (mu - 0.1f);
    if (mu <= 0.5f) return a2 * (1.0f - 5.0f * (mu - 0.3f)) + a3 * 5.0f * (mu - 0.3f);
    if (mu <= 0.7f) return a3 * (1.0f - 5.0f * (mu - 0.5f)) + a4 * 5.0f * (mu - 0.5f);
    if (mu <= 0.9f) return a4 * (1.0f - 5.0f * (mu - 0.7f)) + a5 * 5.0f * (mu - 0.7f);
    return a5;
}

extern "C" __global__ void hecbench_aidw(const float *dx, const float *dy, const float *dz, int dnum,
                                         const float *ix, const float *iy, float *iz, int inum, float area)
{
    __shared__ float sx[BLOCK_SIZE], sy[BLOCK_SIZE], sz[BLOCK_SIZE];

    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const float px = tid < inum ? ix[tid] : 0.0f;
    const float py = tid < inum ? iy[tid] : 0.0f;

    // pass 1: the K nearest data points, sorted ascending
    float nd[K];
    for (int k = 0; k < K; k++)
        nd[k] = 3.0e38f;
    for (int base = 0; base < dnum; base += BLOCK_SIZE) {
        __syncthreads();
        if (base + threadIdx.x < dnum) {
            sx[threadIdx.x] = dx[base + threadIdx.x];
            sy[threadIdx.x] = dy[base + threadIdx.x];
        }
        __syncthreads();
        const int count = min(BLOCK_SIZE, dnum - base);
        for (int j = 0; j < count; j++) {
            const float ddx = px - sx[j], ddy = py - sy[j];
            const float d = sqrtf(ddx * ddx + ddy * ddy);
            if (d < nd[K - 1]) {
                int pos = K - 1;
                while (pos > 0 && nd[pos - 1] > d) {
                    nd[pos] = nd[pos - 1];
                    pos--;
                }
                nd[pos] = d;
            }
        }
    }
    float r_obs = 0.0f;
    for (int k = 0; k < K; k++)
        r_obs += nd[k];
    r_obs /= K;
    const float r_exp = 1.0f / (2.0f * sqrtf(dnum / area));
    const float R_min = 0.0f, R_max = 2.0f;
    const float mu = fminf(fmaxf((r_obs / r_exp - R_min) / (R_max - R_min), 0.0f), 1.0f);
    const float alpha = adaptive_alpha(mu);

    // pass 2: inverse distance weighting with the adaptive power
    float sum_w = 0.0f, sum_wz = 0.0f;
    for (int base = 0; base < dnum; base += BLOCK_SIZE) {
        __syncthreads();
        if (base + threadIdx.x < dnum) {
            sx[threadIdx.x] = dx[base + threadIdx.x];
            sy[threadIdx.x] = dy[base + threadIdx.x];
            sz[threadIdx.x] = dz[base + threadIdx.x];
        }
        __syncthreads();
        const int count = min(BLOCK_SIZE, dnum - base);
        for (int j = 0; j < count; j++) {
            const float ddx = px - sx[j], ddy = py - sy[j];
            const float w = powf(ddx * ddx + ddy * ddy, -0.5f * alpha);   // d^-alpha
            sum_w += w;
            sum_wz += w * sz[j];
        }
    }
    if (tid < inum)
        iz[tid] = sum_wz / sum_w;
}
