// SHOC "Reduction" (level 1): the sum of an array, each block writing one partial sum (the host, or a second
// one-block launch, adds the partials).  Written for gpusim from SHOC's published algorithm: a fixed grid of
// blocks walks the array with a grid-size stride, each thread adding two elements blockDim apart per step
// into shared memory, then a shared-memory tree with a barrier per level down to one warp, finished
// warp-synchronously through volatile shared memory (with __syncwarp between the steps, as code for
// independent thread scheduling must).
#define BLOCK_SIZE 256

extern "C" __global__ void reduce(const float *g_idata, float *g_odata, unsigned int n)
{
    __shared__ float sdata[BLOCK_SIZE];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (BLOCK_SIZE * 2) + tid;
    unsigned int gridSize = BLOCK_SIZE * 2 * gridDim.x;

    sdata[tid] = 0.0f;
    while (i < n) {
        sdata[tid] += g_idata[i] + g_idata[i + BLOCK_SIZE];
        i += gridSize;
    }
    __syncthreads();

    if (BLOCK_SIZE >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
    if (BLOCK_SIZE >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }
    if (BLOCK_SIZE >= 128) { if (tid < 64)  { sdata[tid] += sdata[tid + 64]; }  __syncthreads(); }

    if (tid < 32) {
        volatile float *smem = sdata;
        smem[tid] += smem[tid + 32]; __syncwarp();
        smem[tid] += smem[tid + 16]; __syncwarp();
        smem[tid] += smem[tid + 8];  __syncwarp();
        smem[tid] += smem[tid + 4];  __syncwarp();
        smem[tid] += smem[tid + 2];  __syncwarp();
        smem[tid] += smem[tid + 1];
    }

    if (tid == 0) {
        g_odata[blockIdx.x] = sdata[0];
    }
}
