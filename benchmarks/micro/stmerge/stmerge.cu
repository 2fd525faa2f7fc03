// The merge window of global stores in the GH100's L1: how long a store can wait in the SM and still be
// joined by a later store to its sector, and what ends the wait.
//
// Only lane 0 of each warp stores (a plain st.global.b32 of 1 unless the kernel name says otherwise).  The
// target is chosen at launch:
//   lsel 0: line 0 of buf, one address for the whole GPU (one L2 slice, busy when the SMs store fast)
//   lsel 1: the block's own line (1 + blockIdx.x; one block per SM, so one line per SM: the slices idle)
//   lsel 2: the warp's own line (1024 + global warp index)
//   wsel 0: word 0 of that line; 1: word (warp in block) % 8 (different words of one 32-byte sector);
//   wsel 2: word 8 * ((warp in block) % 4) (different sectors of one line)
// Stores are timed against the SM clock (clock64, the SM's cycle counter, shared by the block's warps): the
// block agrees on a start T0, and warp w's k-th store waits until T0 + stagger * w + k * gap (an absolute
// schedule, so that a late store does not delay the next ones).  gap below the spin loop's own period (about
// 20 cycles) gives that period; the tight kernels store back to back (4 stores unrolled), with PAD reads of
// %clock between stores for spacings of a few cycles.  Each warp's lane 0 writes one 16-byte record at the
// end: cycles from T0 to after its last store, the summed lateness of its stores (cycles after the scheduled
// time), and its SM id.  The store address is p + (k & z) with z = 0 passed at launch, so ptxas cannot prove
// two stores go to one address (the PTX store sits in an asm block with a memory clobber too).

#define LINE 32          // words in a 128-byte line
#define OWN_SM_BASE 1    // lines 1 .. 1 + blocks
#define OWN_WARP_BASE 1024
#define OTHER_OFFSET (4096 * LINE)   // the ldother kernel's load: 4096 lines past the store's line

typedef unsigned int u32;

__device__ __forceinline__ long long clk()
{
    return clock64();
}

__device__ __forceinline__ u32 smid()
{
    u32 s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

// STK 0: st.global (weak, STG.E); 1: st.volatile.global (STG.E.STRONG.SYS); 2: st.relaxed.gpu (STG.E.STRONG.GPU)
template <int STK>
__device__ __forceinline__ void st(int *p, int v)
{
    if (STK == 0)
        asm volatile("st.global.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
    else if (STK == 1)
        asm volatile("st.volatile.global.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
    else
        asm volatile("st.relaxed.gpu.global.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ int *target(int *buf, int lsel, int wsel)
{
    const int wib = threadIdx.x >> 5;
    const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int line = lsel == 0 ? 0 : (lsel == 1 ? OWN_SM_BASE + blockIdx.x : OWN_WARP_BASE + gw);
    const int word = wsel == 0 ? 0 : (wsel == 1 ? wib % 8 : 8 * (wib % 4));
    return buf + line * LINE + word;
}

// the block's common start, a little ahead so that every warp is waiting for it
__device__ __forceinline__ long long block_t0()
{
    __shared__ long long t0;
    if (threadIdx.x == 0)
        t0 = clk() + 2000;
    __syncthreads();
    return t0;
}

__device__ __forceinline__ void record(uint4 *out, long long t0, long long late)
{
    const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long t1 = clk();
    out[gw] = make_uint4((u32)(t1 - t0), (u32)(late > 0xffffffffLL ? 0xffffffffLL : late), smid(), 0u);
}

// the k-th "other" store of a warp (SHOC BFS's levels[u] beside its *flag): a line no other store of the
// launch writes within 31 trips (OTHER_LINES lines from OTHER_BASE, one per (trip, global warp))
#define OTHER_BASE 16384
#define OTHER_LINES 32768
__device__ __forceinline__ int *other_line(int *buf, int k)
{
    const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int nw = (gridDim.x * blockDim.x) >> 5;
    return buf + (OTHER_BASE + ((k * nw + gw) & (OTHER_LINES - 1))) * LINE;
}

// stores on an absolute schedule: warp w's k-th store at T0 + stagger * w + k * gap; OTHER 1: a store to
// another line (other_line) right after each, 2: right before each, 3: an L2 load (ld.global.cg, an L1
// miss every time) of another line right after each, its value used only after the next store
template <int STK, int OTHER = 0>
__device__ __forceinline__ void gap_body(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf,
                                         uint4 *out)
{
    const long long t0 = block_t0();
    if ((threadIdx.x & 31) != 0)
        return;
    int *p = target(buf, lsel, wsel);
    long long t = t0 + (long long)stagger * (threadIdx.x >> 5);
    long long late = 0;
    int prev = 0;
#pragma unroll 1
    for (int k = 0; k < n; k++) {
        long long c;
        while ((c = clk()) < t)
            ;
        if (OTHER == 2)
            st<0>(other_line(buf, k), 1);
        st<STK>(p + (k & z), 1);
        if (OTHER == 1)
            st<0>(other_line(buf, k), 1);
        if (OTHER == 3) {
            late += prev & z;                      // the previous trip's load, after this trip's store
            asm volatile("ld.global.cg.b32 %0, [%1];" : "=r"(prev) : "l"(other_line(buf, k) + 1) : "memory");
        }
        late += c - t;
        t += gap;
    }
    record(out, t0, late);
}

extern "C" __global__ void stm_gap(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    gap_body<0>(n, gap, z, lsel, wsel, stagger, buf, out);
}

extern "C" __global__ void stm_gap_sto(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    gap_body<0, 1>(n, gap, z, lsel, wsel, stagger, buf, out);
}

extern "C" __global__ void stm_gap_sto_b(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    gap_body<0, 2>(n, gap, z, lsel, wsel, stagger, buf, out);
}

extern "C" __global__ void stm_gap_ldo(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    gap_body<0, 3>(n, gap, z, lsel, wsel, stagger, buf, out);
}

extern "C" __global__ void stm_gap_vol(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    gap_body<1>(n, gap, z, lsel, wsel, stagger, buf, out);
}

extern "C" __global__ void stm_gap_rlx(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    gap_body<2>(n, gap, z, lsel, wsel, stagger, buf, out);
}

// back-to-back stores (n a multiple of 4), PAD reads of %clock after each
template <int STK, int PAD>
__device__ __forceinline__ void tight_body(int n, int z, int lsel, int wsel, int *buf, uint4 *out)
{
    const long long t0 = block_t0();
    if ((threadIdx.x & 31) != 0)
        return;
    int *p = target(buf, lsel, wsel);
    while (clk() < t0)
        ;
    u32 acc = 0;
#pragma unroll 4
    for (int k = 0; k < n; k++) {
        st<STK>(p + (k & z), 1);
#pragma unroll
        for (int i = 0; i < PAD; i++) {
            u32 c;
            asm volatile("mov.u32 %0, %%clock;" : "=r"(c));
            acc += c;
        }
    }
    record(out, t0, acc & 1);   // acc kept live; its low bit is noise (late is 0 or 1 here)
}

extern "C" __global__ void stm_tight(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    tight_body<0, 0>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_tight_p1(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    tight_body<0, 1>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_tight_p2(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    tight_body<0, 2>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_tight_p4(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    tight_body<0, 4>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_tight_p8(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    tight_body<0, 8>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_tight_vol(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    tight_body<1, 0>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_tight_rlx(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    tight_body<2, 0>(n, z, lsel, wsel, buf, out);
}

// Pairs: blocks of 2 warps, the block's own line (lsel as given).  Every `gap` cycles (the period) store A
// by warp 0 at word 0, then store B at word `ob` `stagger` cycles later, by warp `wb` (0: the same warp,
// 1: the other warp).  stagger 0 with wb 0: the two STGs back to back.
extern "C" __global__ void stm_pair(int n, int gap, int z, int lsel, int ob, int stagger, int wb, int *buf,
                                    uint4 *out)
{
    const long long t0 = block_t0();
    const int w = threadIdx.x >> 5;
    if ((threadIdx.x & 31) != 0 || (w == 1 && wb == 0))
        return;
    int *p = (lsel == 0 ? buf : buf + (lsel == 1 ? OWN_SM_BASE + blockIdx.x : OWN_WARP_BASE + 2 * blockIdx.x) * LINE);
    long long t = t0, late = 0;
    if (w == 1) {                                   // B only
        t += stagger;
#pragma unroll 1
        for (int k = 0; k < n; k++) {
            long long c;
            while ((c = clk()) < t)
                ;
            st<0>(p + ob + (k & z), 1);
            late += c - t;
            t += gap;
        }
    } else if (wb == 1) {                           // A only
#pragma unroll 1
        for (int k = 0; k < n; k++) {
            long long c;
            while ((c = clk()) < t)
                ;
            st<0>(p + (k & z), 1);
            late += c - t;
            t += gap;
        }
    } else if (stagger == 0) {                      // A and B back to back
#pragma unroll 1
        for (int k = 0; k < n; k++) {
            long long c;
            while ((c = clk()) < t)
                ;
            st<0>(p + (k & z), 1);
            st<0>(p + ob + ((k >> 1) & z), 1);
            late += c - t;
            t += gap;
        }
    } else {                                        // A, then B `stagger` cycles later, one warp
#pragma unroll 1
        for (int k = 0; k < n; k++) {
            long long c;
            while ((c = clk()) < t)
                ;
            st<0>(p + (k & z), 1);
            late += c - t;
            while ((c = clk()) < t + stagger)
                ;
            st<0>(p + ob + ((k >> 1) & z), 1);
            late += c - t - stagger;
            t += gap;
        }
    }
    record(out, t0, late);
}

// A store, then X, every iteration (one loop trip a store): whether X sends the queued store out.
//   X 0 nothing; 1 ld.global.b32 of the same word, its value used at once (the warp waits for it);
//   2 ld.global.cg (L2) same word, used; 3 ld.volatile.global same word, used; 4 ld.global of another line
//   (OTHER_OFFSET words on), used; 5 __threadfence() ; 6 __threadfence_block(); 7 fence.acq_rel.gpu;
//   8 ld.global same word, its value not waited for until after the next store; 9 a store to another line
//   (other_line); 10 ld.global.cg (L2) of another line, its value not waited for until after the next store
template <int X>
__device__ __forceinline__ void x_body(int n, int z, int lsel, int wsel, int *buf, uint4 *out)
{
    const long long t0 = block_t0();
    if ((threadIdx.x & 31) != 0)
        return;
    int *p = target(buf, lsel, wsel);
    while (clk() < t0)
        ;
    int acc = 0, prev = 0;
#pragma unroll 1
    for (int k = 0; k < n; k++) {
        int *q = p + (k & z);
        st<0>(q, 1);
        int v = 0;
        if (X == 1)
            asm volatile("ld.global.b32 %0, [%1];" : "=r"(v) : "l"(q) : "memory");
        else if (X == 2)
            asm volatile("ld.global.cg.b32 %0, [%1];" : "=r"(v) : "l"(q) : "memory");
        else if (X == 3)
            asm volatile("ld.volatile.global.b32 %0, [%1];" : "=r"(v) : "l"(q) : "memory");
        else if (X == 4)
            asm volatile("ld.global.b32 %0, [%1];" : "=r"(v) : "l"(q + OTHER_OFFSET) : "memory");
        else if (X == 5)
            __threadfence();
        else if (X == 6)
            __threadfence_block();
        else if (X == 7)
            asm volatile("fence.acq_rel.gpu;" ::: "memory");
        if (X >= 1 && X <= 4) {
            // used at once: the next store's address depends on it (v is 1, so (v & z) = 0)
            p += v & z;
            acc += v;
        }
        if (X == 9)
            st<0>(other_line(buf, k), 1);
        if (X == 10) {                             // an L2 load of another line, waited for after the next store
            acc += prev;
            asm volatile("ld.global.cg.b32 %0, [%1];" : "=r"(prev) : "l"(other_line(buf, k) + 1) : "memory");
        }
        if (X == 8) {
            acc += prev;                           // the previous trip's load, after this trip's store
            asm volatile("ld.global.b32 %0, [%1];" : "=r"(prev) : "l"(q) : "memory");
        }
    }
    record(out, t0, (long long)(acc + prev) & 0xffff);
}

extern "C" __global__ void stm_x_none(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    x_body<0>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_x_ld(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    x_body<1>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_x_ldcg(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    x_body<2>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_x_ldvol(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    x_body<3>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_x_ldother(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    x_body<4>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_x_fence(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    x_body<5>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_x_fence_cta(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    x_body<6>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_x_fence_acqrel(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    x_body<7>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_x_sto(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    x_body<9>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_x_ldo(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    x_body<10>(n, z, lsel, wsel, buf, out);
}

// A store by lane 0 to the target, then stores to m = wsel lines that no other store of the launch writes
// meanwhile (other_line of trip k * 32 + i): MANY 1 as one STG of lanes 0..m-1 (an uncoalesced store of m
// lines, as a naive transpose's), 0 as m STGs of lane 0.  Whether the first store's write request stays open
// while m other lines are written: how many lines an SM keeps open.
template <int MANY>
__device__ __forceinline__ void many_body(int n, int z, int lsel, int m, int *buf, uint4 *out)
{
    const long long t0 = block_t0();
    const int lane = threadIdx.x & 31;
    int *p = target(buf, lsel, 0);
    while (clk() < t0)
        ;
#pragma unroll 1
    for (int k = 0; k < n; k++) {
        if (lane == 0)
            st<0>(p + (k & z), 1);
        if (MANY) {
            if (lane < m)
                st<0>(other_line(buf, k * 32 + lane), 1);
        } else if (lane == 0) {
#pragma unroll 1
            for (int i = 0; i < m; i++)
                st<0>(other_line(buf, k * 32 + i), 1);
        }
    }
    if (lane == 0)
        record(out, t0, 0);
}

extern "C" __global__ void stm_many(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    many_body<1>(n, z, lsel, wsel, buf, out);
}

extern "C" __global__ void stm_seq(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    many_body<0>(n, z, lsel, wsel, buf, out);
}

// A naive transpose's stores: lanes 0..m-1 (m = wsel) of every warp store to m lines, one lane a line (lane l
// to line base + l), warp w to word w % 8 of each: the block's warps write the same m lines, back to back.
// lsel 1: the block's own m lines (the slices idle); lsel 0: the same m lines for every block.
extern "C" __global__ void stm_tr(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    const long long t0 = block_t0();
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int *p = buf + (OTHER_BASE + OTHER_LINES + (lsel == 0 ? 0 : 32 * blockIdx.x) + lane) * LINE + (w & 7);
    while (clk() < t0)
        ;
#pragma unroll 1
    for (int k = 0; k < n; k++) {
        if (lane < wsel)
            st<0>(p + (k & z), 1);
    }
    if (lane == 0)
        record(out, t0, 0);
}

extern "C" __global__ void stm_x_ld_late(int n, int gap, int z, int lsel, int wsel, int stagger, int *buf, uint4 *out)
{
    x_body<8>(n, z, lsel, wsel, buf, out);
}
