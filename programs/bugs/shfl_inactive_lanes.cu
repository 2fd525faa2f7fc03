// In each 32-thread block the low 16 lanes sum their values with a shuffle tree and lane 0 stores the
// sum, out[32b] = in[32b] + ... + in[32b + 15]; after the branch lanes 16..31 store their own value,
// out[i] = in[i] (the other elements stay as they were).
//
// Planted bug (shuffle mask naming inactive lanes): the shuffles inside if (lane < 16) pass the full mask
// 0xffffffff.  Lanes 16..31 are named, have not exited (they store after the branch), and never execute
// these shuffles.  The fixed twin shfl_inactive_lanes_fixed.cu passes 0x0000ffff.
extern "C" __global__ void shfl_inactive_lanes(const int* in, int* out)
{
    int lane = threadIdx.x;
    int i = blockIdx.x * 32 + lane;
    int v = in[i];
    if (lane < 16) {
        v += __shfl_down_sync(0xffffffffu, v, 8, 16);  // BUG: mask names lanes 16..31, which are not here
        v += __shfl_down_sync(0xffffffffu, v, 4, 16);  // BUG
        v += __shfl_down_sync(0xffffffffu, v, 2, 16);  // BUG
        v += __shfl_down_sync(0xffffffffu, v, 1, 16);  // BUG
    }
    if (lane == 0 || lane >= 16)
        out[i] = v;
}
