// Three-point sum through a shared-memory tile with one halo cell on each side:
// out[i] = in[i - 1] + in[i] + in[i + 1], with 0 outside [0, n).
//
// The fixed twin of uninit_stencil_halo.cu: the first R threads also load the left and right halo cells
// (0 outside the array).
#define BLOCK 64
#define R 1

extern "C" __global__ void uninit_stencil_halo_fixed(const float* in, float* out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int t = threadIdx.x + R;
    tile[t] = (i < n) ? in[i] : 0.0f;
    if (threadIdx.x < R) {  // FIX: load the halo cells
        tile[threadIdx.x] = (i - R >= 0) ? in[i - R] : 0.0f;
        tile[t + BLOCK] = (i + BLOCK < n) ? in[i + BLOCK] : 0.0f;
    }
    __syncthreads();
    if (i < n)
        out[i] = tile[t - 1] + tile[t] + tile[t + 1];
}
