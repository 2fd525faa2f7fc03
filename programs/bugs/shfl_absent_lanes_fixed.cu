// Per-warp sums with a shuffle tree in blocks of 48 threads (a full warp and a 16-lane warp): lane 0 of
// warp w of block b stores out[2b + w], the sum of that warp's elements.
//
// The fixed twin of shfl_absent_lanes.cu: the mask names the lanes the warp has, and a lane adds a
// shuffled value only when its source lane exists.
#define BLOCK 48

extern "C" __global__ void shfl_absent_lanes_fixed(const int* in, int* out)
{
    int t = threadIdx.x;
    int lane = t & 31;
    int lanes = min(32, BLOCK - (t & ~31));                       // lanes in this warp
    unsigned int mask = (lanes == 32) ? 0xffffffffu : ((1u << lanes) - 1u);
    int v = in[blockIdx.x * BLOCK + t];
    for (int offset = 16; offset > 0; offset >>= 1) {
        int other = __shfl_down_sync(mask, v, offset);  // FIX: only lanes that exist
        if (lane + offset < lanes)
            v += other;
    }
    if (lane == 0)
        out[blockIdx.x * 2 + t / 32] = v;
}
