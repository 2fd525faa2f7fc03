// Hot spots in L2: every SM sending atomics or stores to one address (or a few lines) at once.
//
// Each warp loops n times; only its first LANES lanes act.  The target of warp w (global warp index) is the
// line w % m of buf (lines of 32 words, 128 B), so m = 1 is one address for the whole GPU and m = 2, 8, 32
// spread the warps over as many lines; hs_stown gives every warp its own line.
//   hs_atom_*  atomicAdd whose result is used (summed, the sum stored at the end): ATOM
//   hs_red_*   atomicAdd whose result is unused: RED
//   *_i / *_f  int / float (hs_red_i32: 32 int lanes on one word; ptxas 13.0 does not aggregate them)
//   hs_st*     a plain st.global of 1 (hs_stv1: a volatile store, st.volatile.global)
//   *_gap      the same with `gap` SM cycles (clock64) spun after each store / atomic, so that an SM offers
//              few requests at a time (SHOC BFS: a warp's flag store now and then; HeCBench filter: one ATOM)
// The stores' address is computed each trip as p + (k & z) with z = 0 passed at launch, so ptxas cannot
// prove the repeated stores go to one address and keeps them in the loop (the PTX store sits in an asm
// block, a plain st.global.b32).

#define LINE 32  // words in a 128-byte line

__device__ __forceinline__ int warp_index()
{
    return (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
}

template <typename T, int LANES>
__device__ __forceinline__ void atom_loop(int n, int m, T *buf, T *out)
{
    const int lane = threadIdx.x & 31;
    T *p = buf + (warp_index() % m) * LINE;
    T acc = 0;
    if (lane < LANES) {
        for (int k = 0; k < n; k++)
            acc += atomicAdd(p, (T)1);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template <typename T, int LANES>
__device__ __forceinline__ void red_loop(int n, int m, T *buf)
{
    const int lane = threadIdx.x & 31;
    T *p = buf + (warp_index() % m) * LINE;
    if (lane < LANES) {
        for (int k = 0; k < n; k++)
            atomicAdd(p, (T)1);
    }
}

__device__ __forceinline__ void st_u32(int *p, int v)
{
    asm volatile("st.global.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

template <int LANES, bool OWN>
__device__ __forceinline__ void st_loop(int n, int m, int z, int *buf)
{
    const int lane = threadIdx.x & 31;
    int *p = buf + (OWN ? warp_index() : warp_index() % m) * LINE;
    if (lane < LANES) {
        for (int k = 0; k < n; k++)
            st_u32(p + (k & z), 1);
    }
}

// one lane a warp, int and float, result used / unused
extern "C" __global__ void __launch_bounds__(256) hs_atom_i1(int n, int m, int z, int *buf, int *out)
{
    atom_loop<int, 1>(n, m, buf, out);
}

extern "C" __global__ void __launch_bounds__(256) hs_red_i1(int n, int m, int z, int *buf, int *out)
{
    red_loop<int, 1>(n, m, buf);
}

extern "C" __global__ void __launch_bounds__(256) hs_atom_f1(int n, int m, int z, float *buf, float *out)
{
    atom_loop<float, 1>(n, m, buf, out);
}

extern "C" __global__ void __launch_bounds__(256) hs_red_f1(int n, int m, int z, float *buf, float *out)
{
    red_loop<float, 1>(n, m, buf);
}

// two and 32 lanes of a warp, float (not aggregated): a request of 2 / 32 lanes on one word
extern "C" __global__ void __launch_bounds__(256) hs_atom_f2(int n, int m, int z, float *buf, float *out)
{
    atom_loop<float, 2>(n, m, buf, out);
}

extern "C" __global__ void __launch_bounds__(256) hs_red_f2(int n, int m, int z, float *buf, float *out)
{
    red_loop<float, 2>(n, m, buf);
}

extern "C" __global__ void __launch_bounds__(256) hs_atom_f32(int n, int m, int z, float *buf, float *out)
{
    atom_loop<float, 32>(n, m, buf, out);
}

extern "C" __global__ void __launch_bounds__(256) hs_red_f32(int n, int m, int z, float *buf, float *out)
{
    red_loop<float, 32>(n, m, buf);
}

// 32 lanes, int: ptxas's warp aggregation turns it into one lane's add of 32
extern "C" __global__ void __launch_bounds__(256) hs_red_i32(int n, int m, int z, int *buf, int *out)
{
    red_loop<int, 32>(n, m, buf);
}

// stores: one lane, two lanes (one word), one lane to the warp's own line; a volatile one-lane store
extern "C" __global__ void __launch_bounds__(256) hs_st1(int n, int m, int z, int *buf, int *out)
{
    st_loop<1, false>(n, m, z, buf);
}

extern "C" __global__ void __launch_bounds__(256) hs_st2(int n, int m, int z, int *buf, int *out)
{
    st_loop<2, false>(n, m, z, buf);
}

extern "C" __global__ void __launch_bounds__(256) hs_stown(int n, int m, int z, int *buf, int *out)
{
    st_loop<1, true>(n, m, z, buf);
}

extern "C" __global__ void __launch_bounds__(256) hs_stv1(int n, int m, int z, int *buf, int *out)
{
    const int lane = threadIdx.x & 31;
    volatile int *p = buf + (warp_index() % m) * LINE;
    if (lane == 0) {
        for (int k = 0; k < n; k++)
            *p = 1;
    }
}

// sparse: `gap` SM cycles spun between a warp's requests
__device__ __forceinline__ void spin(int cycles)
{
    const long long t0 = clock64();
    while (clock64() - t0 < cycles)
        ;
}

template <int LANES, bool OWN>
__device__ __forceinline__ void st_gap_loop(int n, int m, int z, int *buf, int gap)
{
    const int lane = threadIdx.x & 31;
    int *p = buf + (OWN ? warp_index() : warp_index() % m) * LINE;
    if (lane < LANES) {
        for (int k = 0; k < n; k++) {
            st_u32(p + (k & z), 1);
            spin(gap);
        }
    }
}

extern "C" __global__ void __launch_bounds__(256) hs_st1_gap(int n, int m, int z, int *buf, int *out, int gap)
{
    st_gap_loop<1, false>(n, m, z, buf, gap);
}

extern "C" __global__ void __launch_bounds__(256) hs_st2_gap(int n, int m, int z, int *buf, int *out, int gap)
{
    st_gap_loop<2, false>(n, m, z, buf, gap);
}

extern "C" __global__ void __launch_bounds__(256) hs_stown_gap(int n, int m, int z, int *buf, int *out, int gap)
{
    st_gap_loop<1, true>(n, m, z, buf, gap);
}

extern "C" __global__ void __launch_bounds__(256) hs_atom_i1_gap(int n, int m, int z, int *buf, int *out, int gap)
{
    const int lane = threadIdx.x & 31;
    int *p = buf + (warp_index() % m) * LINE;
    int acc = 0;
    if (lane == 0) {
        for (int k = 0; k < n; k++) {
            acc += atomicAdd(p, 1);
            spin(gap);
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
