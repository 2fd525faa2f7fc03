// In each 32-thread block the low 16 lanes sum their values with a shuffle tree and lane 0 stores the
// sum, out[32b] = in[32b] + ... + in[32b + 15]; after the branch lanes 16..31 store their own value,
// out[i] = in[i] (the other elements stay as they were).
//
// The fixed twin of shfl_inactive_lanes.cu: the shuffles name lanes 0..15, those in the branch.
extern "C" __global__ void shfl_inactive_lanes_fixed(const int* in, int* out)
{
    int lane = threadIdx.x;
    int i = blockIdx.x * 32 + lane;
    int v = in[i];
    if (lane < 16) {
        v += __shfl_down_sync(0x0000ffffu, v, 8, 16);  // FIX: the branch's lanes
        v += __shfl_down_sync(0x0000ffffu, v, 4, 16);
        v += __shfl_down_sync(0x0000ffffu, v, 2, 16);
        v += __shfl_down_sync(0x0000ffffu, v, 1, 16);
    }
    if (lane == 0 || lane >= 16)
        out[i] = v;
}
