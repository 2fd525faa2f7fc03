// Does a read of a line homed in the other L2 partition leave a copy near the reader?  Block 0 (the chaser)
// chases 2048 lines (128 B apart, a random cycle, ld.global.cg: L1 bypassed) after block `warm_block` (the
// warmer, on another SM) has chased the same lines; block 0 times its chase with clock64.  If far lines are
// copied into the reader's partition, a warmer in the chaser's partition leaves every line near the chaser
// (the near latency throughout), and a warmer in the other partition leaves half of them at home only (half
// the chase at the far latency).  warm_block 0: block 0 warms the lines itself.  One thread per block; the
// other blocks exit.  out[0] = chaser SM, out[1] = warmer SM, out[2] = the chase's cycles, out[3] = a sink.

__device__ __forceinline__ unsigned ld_cg(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

__device__ __forceinline__ unsigned chase(const unsigned *chain, unsigned start, int steps)
{
    unsigned p = start;
    for (int i = 0; i < steps; ++i)
        p = ld_cg(chain + p);
    return p;
}

extern "C" __global__ void copy_chase(const unsigned *chain, unsigned start, int steps, int warm_block,
                                      unsigned *flag, unsigned *out)
{
    if (threadIdx.x != 0)
        return;
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    if (blockIdx.x == warm_block && warm_block != 0) {
        out[3] = chase(chain, start, steps);
        out[1] = smid;
        __threadfence();
        atomicExch(flag, 1u);
    } else if (blockIdx.x == 0) {
        if (warm_block == 0) {
            out[3] = chase(chain, start, steps);
            out[1] = smid;
        } else {
            while (atomicAdd(flag, 0u) == 0u)
                ;
        }
        long long t0 = clock64();
        unsigned p = chase(chain, start, steps);
        long long t1 = clock64();
        out[0] = smid;
        out[2] = (unsigned)(t1 - t0);
        out[3] += p;
    }
}

// Each load's latency: block 0 chases `steps` lines and writes each load's cycles to times[i] (clock64 before
// the load and after a test of its value; salt ~0).  warm_block < 0: the lines are cold (DRAM; never read
// before); else block warm_block chases them first, as in copy_chase.  A near/far split shows as two modes.
extern "C" __global__ void chase_each(const unsigned *chain, unsigned start, int steps, int warm_block,
                                      unsigned *flag, unsigned *out, unsigned *times, unsigned salt)
{
    if (threadIdx.x != 0)
        return;
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    if (warm_block > 0 && blockIdx.x == warm_block) {
        out[3] = chase(chain, start, steps);
        out[1] = smid;
        __threadfence();
        atomicExch(flag, 1u);
    } else if (blockIdx.x == 0) {
        if (warm_block > 0) {
            while (atomicAdd(flag, 0u) == 0u)
                ;
        }
        unsigned p = start;
        for (int i = 0; i < steps; ++i) {
            long long t0, t1;
            asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0) :: "memory");
            p = ld_cg(chain + p);
            if (p == salt)                  // never (salt is ~0): a branch on p, so the clock waits for it
                t1 = 0;
            else
                asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1) :: "memory");
            times[i] = (unsigned)(t1 - t0);
        }
        out[0] = smid;
        out[3] += p;
    }
}
