// Per-warp sums with a shuffle tree in blocks of 48 threads (a full warp and a 16-lane warp): lane 0 of
// warp w of block b stores out[2b + w], the sum of that warp's elements.
//
// Planted bug (shuffle mask naming absent lanes): __shfl_down_sync(0xffffffff, ...) in the block's second
// warp, which has lanes 0..15 only.  The fixed twin shfl_absent_lanes_fixed.cu passes the mask of the
// lanes the warp has and adds only values from lanes that exist.
#define BLOCK 48

extern "C" __global__ void shfl_absent_lanes(const int* in, int* out)
{
    int t = threadIdx.x;
    int lane = t & 31;
    int v = in[blockIdx.x * BLOCK + t];
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);  // BUG: full mask in a 16-lane warp
    if (lane == 0)
        out[blockIdx.x * 2 + t / 32] = v;
}
