// How many loads one thread keeps in flight (issue 14, item 2: the long_scoreboard-bound single-thread and
// low-occupancy walks of gramschmidt_1, spmv_csr_scalar, spmv_ellpackr and spmv_jds).  One thread of one
// block walks memory; the others do nothing.  Each kernel brackets its loop with clock64() and writes the
// loop's SM cycles to clk[0] (the sum goes to out[0], so nothing is dead code).
//
//   walk_sum       sum of a[i*stride]^2 for i < m: gramschmidt_1's loop, compiled as nvcc compiles it
//                  (NVVM unrolls the PTX by 4; ptxas may unroll the SASS further and hoist the loads)
//   walk_sum_u1    the same loop with `#pragma unroll 1`: one load per trip, so the trip time is the load's
//                  latency at that stride (the DRAM page / channel pattern of a power-of-two stride)
//   walk_csr       sum of val[i] * x[col[i]] for i < m: spmv_csr_scalar's row walk (a load whose value is
//                  the address of the next load), compiled as nvcc compiles it
//   walk_csr_u1    the same with `#pragma unroll 1`: two dependent latencies per trip
//   walk_csr_rows  every thread of the block walks its own row (spmv_csr_scalar's block of 128 threads)
//   walk_ilp_K     K independent strided loads written out by hand in a loop kept rolled (`#pragma unroll 1`
//                  on the outer loop): K loads in flight per trip if nothing limits one thread's loads
#include <cstdint>

extern "C" __global__ void walk_sum(int m, int stride, float *a, float *out, long long *clk)
{
    if (blockIdx.x * blockDim.x + threadIdx.x == 0) {
        long long t0 = clock64();
        float s = 0.0f;
        for (int i = 0; i < m; i++) {
            s += a[i * stride] * a[i * stride];
        }
        long long t1 = clock64();
        out[0] = s;
        clk[0] = t1 - t0;
    }
}

extern "C" __global__ void walk_sum_u1(int m, int stride, float *a, float *out, long long *clk)
{
    if (blockIdx.x * blockDim.x + threadIdx.x == 0) {
        long long t0 = clock64();
        float s = 0.0f;
#pragma unroll 1
        for (int i = 0; i < m; i++) {
            s += a[i * stride] * a[i * stride];
        }
        long long t1 = clock64();
        out[0] = s;
        clk[0] = t1 - t0;
    }
}

extern "C" __global__ void walk_csr(int m, const float *__restrict__ val, const int *__restrict__ col,
                                    const float *__restrict__ x, float *out, long long *clk)
{
    if (blockIdx.x * blockDim.x + threadIdx.x == 0) {
        long long t0 = clock64();
        float s = 0.0f;
        for (int i = 0; i < m; i++) {
            s += val[i] * __ldg(&x[col[i]]);
        }
        long long t1 = clock64();
        out[0] = s;
        clk[0] = t1 - t0;
    }
}

extern "C" __global__ void walk_csr_u1(int m, const float *__restrict__ val, const int *__restrict__ col,
                                       const float *__restrict__ x, float *out, long long *clk)
{
    if (blockIdx.x * blockDim.x + threadIdx.x == 0) {
        long long t0 = clock64();
        float s = 0.0f;
#pragma unroll 1
        for (int i = 0; i < m; i++) {
            s += val[i] * __ldg(&x[col[i]]);
        }
        long long t1 = clock64();
        out[0] = s;
        clk[0] = t1 - t0;
    }
}

// spmv_csr_scalar's block: every thread walks its own row of m entries (row-major, so a warp's loads are
// uncoalesced: 32 lines per load instruction), x gathered through the read-only path; thread 0 times it.
extern "C" __global__ void walk_csr_rows(int m, const float *__restrict__ val, const int *__restrict__ col,
                                         const float *__restrict__ x, float *out, long long *clk)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    long long t0 = clock64();
    float s = 0.0f;
    for (int i = t * m; i < (t + 1) * m; i++) {
        s += val[i] * __ldg(&x[col[i]]);
    }
    out[t] = s;
    __syncthreads();
    long long t1 = clock64();
    if (t == 0) clk[0] = t1 - t0;
}

template <int K>
__device__ void walk_ilp(int m, int stride, float *a, float *out, long long *clk)
{
    if (blockIdx.x * blockDim.x + threadIdx.x == 0) {
        long long t0 = clock64();
        float s = 0.0f;
#pragma unroll 1
        for (int i = 0; i < m; i += K) {
            float v[K];
#pragma unroll
            for (int k = 0; k < K; k++) v[k] = a[(i + k) * stride];
#pragma unroll
            for (int k = 0; k < K; k++) s += v[k] * v[k];
        }
        long long t1 = clock64();
        out[0] = s;
        clk[0] = t1 - t0;
    }
}

#define ILP(K) \
    extern "C" __global__ void walk_ilp_##K(int m, int stride, float *a, float *out, long long *clk) \
    { walk_ilp<K>(m, stride, a, out, clk); }
ILP(1)
ILP(2)
ILP(4)
ILP(8)
ILP(16)
ILP(32)
ILP(64)
