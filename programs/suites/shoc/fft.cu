// SHOC "FFT" (level 1): batched forward 512-point complex FFTs, one per block of 64 threads.  Written for
// gpusim from SHOC's published algorithm (Volkov and Kazian's radix-8 scheme): 512 = 8 x 8 x 8, so each
// thread loads 8 points with a stride of 64 (coalesced), does an 8-point DFT in registers, multiplies by
// the twiddle factors, and exchanges its results with the other threads through shared memory (one
// component at a time, 8 x 8 x 9 floats, a barrier around each half-exchange) three times; the twiddles
// come from the fast __sincosf.  Index algebra: with n = t + 64 k and f = f1 + 8 f2,
// X[f] = sum_t W512^(t f1) W64^(t f2) sum_k x[t + 64 k] W8^(k f1), and the 64-point DFT over t splits the
// same way (t = t1 + 8 t2, f2 = g1 + 8 g2).
#define PI_F 3.14159265358979f

__device__ __forceinline__ float2 cadd(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 csub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float2 cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// a *= exp(-2 pi i * num / den)
__device__ __forceinline__ float2 twiddle(float2 a, int num, int den)
{
    float s, c;
    __sincosf(-2.0f * PI_F * num / den, &s, &c);
    return cmul(a, make_float2(c, s));
}

#define FFT2(a, b) { float2 t_ = a; a = cadd(t_, b); b = csub(t_, b); }

// in-place 8-point DFT, decimation in frequency; on return a[j] holds X[rev3(j)]
__device__ __forceinline__ void fft8(float2 *a)
{
    const float c = 0.70710678118654752f;
    FFT2(a[0], a[4]); FFT2(a[1], a[5]); FFT2(a[2], a[6]); FFT2(a[3], a[7]);
    a[5] = make_float2(c * (a[5].x + a[5].y), c * (a[5].y - a[5].x));     // * W8^1
    a[6] = make_float2(a[6].y, -a[6].x);                                   // * W8^2 = -i
    a[7] = make_float2(c * (a[7].y - a[7].x), -c * (a[7].x + a[7].y));    // * W8^3
    FFT2(a[0], a[2]); FFT2(a[1], a[3]); FFT2(a[4], a[6]); FFT2(a[5], a[7]);
    a[3] = make_float2(a[3].y, -a[3].x);                                   // * W4^1 = -i
    a[7] = make_float2(a[7].y, -a[7].x);
    FFT2(a[0], a[1]); FFT2(a[2], a[3]); FFT2(a[4], a[5]); FFT2(a[6], a[7]);
}

extern "C" __global__ void fft512_kernel(float2 *work)
{
    __shared__ float smem[8 * 8 * 9];
    const int rev[8] = {0, 4, 2, 6, 1, 5, 3, 7};
    int tid = threadIdx.x;
    float2 *data = work + blockIdx.x * 512;
    float2 a[8], b[8];

    // pass 1: thread t, the DFT over k of x[t + 64 k], then the W512^(t f1) twiddles
#pragma unroll
    for (int k = 0; k < 8; k++) a[k] = data[tid + 64 * k];
    fft8(a);
#pragma unroll
    for (int f1 = 0; f1 < 8; f1++) b[f1] = twiddle(a[rev[f1]], tid * f1, 512);

    // exchange 1: Y[t][f1] at f1 * 72 + t; thread (f1, t1) = (tid / 8, tid % 8) gathers t = t1 + 8 t2
    int f1 = tid >> 3, t1 = tid & 7;
#pragma unroll
    for (int j = 0; j < 8; j++) smem[j * 72 + tid] = b[j].x;
    __syncthreads();
#pragma unroll
    for (int t2 = 0; t2 < 8; t2++) a[t2].x = smem[f1 * 72 + t1 + 8 * t2];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 8; j++) smem[j * 72 + tid] = b[j].y;
    __syncthreads();
#pragma unroll
    for (int t2 = 0; t2 < 8; t2++) a[t2].y = smem[f1 * 72 + t1 + 8 * t2];
    __syncthreads();

    // pass 2: the DFT over t2, then the W64^(t1 g1) twiddles
    fft8(a);
#pragma unroll
    for (int g1 = 0; g1 < 8; g1++) b[g1] = twiddle(a[rev[g1]], t1 * g1, 64);

    // exchange 2: V(f1, t1)[g1] at g1 * 72 + t1 * 8 + f1; thread (f1, g1) = (tid % 8, tid / 8) gathers t1
    int f1b = tid & 7, g1b = tid >> 3;
#pragma unroll
    for (int g1 = 0; g1 < 8; g1++) smem[g1 * 72 + t1 * 8 + f1] = b[g1].x;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 8; j++) a[j].x = smem[g1b * 72 + j * 8 + f1b];
    __syncthreads();
#pragma unroll
    for (int g1 = 0; g1 < 8; g1++) smem[g1 * 72 + t1 * 8 + f1] = b[g1].y;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 8; j++) a[j].y = smem[g1b * 72 + j * 8 + f1b];

    // pass 3: the DFT over t1 gives X[f1 + 8 g1 + 64 g2] for g2 = 0..7; thread tid = f1 + 8 g1
    fft8(a);
#pragma unroll
    for (int g2 = 0; g2 < 8; g2++) data[tid + 64 * g2] = a[rev[g2]];
}
