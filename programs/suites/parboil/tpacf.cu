// Parboil "tpacf": two-point angular correlation function, the data-data (DD) pair histogram.
//
// Follows the Parboil benchmark suite's tpacf: points are unit vectors on the celestial sphere (x, y, z
// arrays); the angular separation of every pair (i < j) is binned into NUM_BINS logarithmic bins of angle,
// held as their cosines binb[] (decreasing) in constant memory, so the bin of a pair is found by a binary
// search on the dot product.  Each block owns BLOCK_SIZE points (one per thread, in registers) and streams
// the points after them through shared memory a tile at a time; counts go to per-warp sub-histograms in
// shared memory (shared atomics, contended: most pairs of a clustered catalogue share a few bins), merged
// into the global histogram with global atomics at the end.  Bin 0 counts pairs closer than binb[0], bin
// NUM_BINS + 1 pairs farther than the last boundary.  Dot products and boundaries are double precision, as
// in the suite's reference implementation: cos(1 arcminute) = 1 - 4.2e-8 is below float's spacing near 1.
// Launch: grid ceil(n / 256), block 256.

#define NUM_BINS 20
#define BLOCK_SIZE 256
#define WARPS (BLOCK_SIZE / 32)

__constant__ double binb[NUM_BINS + 1];

extern "C" __global__ void parboil_tpacf(const float *x, const float *y, const float *z, int n,
                                         unsigned int *histo)
{
    __shared__ float sx[BLOCK_SIZE], sy[BLOCK_SIZE], sz[BLOCK_SIZE];
    __shared__ unsigned int warp_hist[WARPS][NUM_BINS + 2];

    for (int b = threadIdx.x; b < WARPS * (NUM_BINS + 2); b += BLOCK_SIZE)
        (&warp_hist[0][0])[b] = 0;

    const int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const float xi = i < n ? x[i] : 0.0f;
    const float yi = i < n ? y[i] : 0.0f;
    const float zi = i < n ? z[i] : 0.0f;
    unsigned int *my_hist = warp_hist[threadIdx.x / 32];

    for (int base = blockIdx.x * BLOCK_SIZE; base < n; base += BLOCK_SIZE) {
        __syncthreads();
        const int jt = base + threadIdx.x;
        sx[threadIdx.x] = jt < n ? x[jt] : 0.0f;
        sy[threadIdx.x] = jt < n ? y[jt] : 0.0f;
        sz[threadIdx.x] = jt < n ? z[jt] : 0.0f;
        __syncthreads();

        for (int t = 0; t < BLOCK_SIZE; t++) {
            const int j = base + t;
            if (i < n && j > i && j < n) {
                const double dot = (double)xi * sx[t] + (double)yi * sy[t] + (double)zi * sz[t];
                int lo = 0, hi = NUM_BINS + 1;          // bin = number of boundaries with binb >= dot
                while (lo < hi) {
                    const int mid = (lo + hi) / 2;
                    if (binb[mid] >= dot)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                atomicAdd(&my_hist[lo], 1u);
            }
        }
    }
    __syncthreads();

    for (int b = threadIdx.x; b < NUM_BINS + 2; b += BLOCK_SIZE) {
        unsigned int sum = 0;
        for (int w = 0; w < WARPS; w++)
            sum += warp_hist[w][b];
        atomicAdd(&histo[b], sum);
    }
}
