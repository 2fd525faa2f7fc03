// The first `active` lanes of each 32-thread block (a run-time count) publish their values in shared
// memory and each of them sums all of them: out[i] = in[32b] + ... + in[32b + active - 1] for
// lane < active; the other lanes write nothing.
//
// The fixed twin of syncwarp_caller_not_in_mask.cu: exactly the lanes of the mask call __syncwarp(mask).
extern "C" __global__ void syncwarp_caller_not_in_mask_fixed(const int* in, int* out, int active)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    int i = blockIdx.x * 32 + lane;
    unsigned int mask = (1u << active) - 1u;
    if (lane < active) {  // FIX: lane < active, the lanes named by mask
        s[lane] = in[i];
        __syncwarp(mask);
        int sum = 0;
        for (int k = 0; k < active; ++k)
            sum += s[k];
        out[i] = sum;
    }
}
