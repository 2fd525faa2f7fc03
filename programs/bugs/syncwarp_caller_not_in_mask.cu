// The first `active` lanes of each 32-thread block (a run-time count) publish their values in shared
// memory and each of them sums all of them: out[i] = in[32b] + ... + in[32b + active - 1] for
// lane < active; the other lanes write nothing.
//
// Planted bug (__syncwarp called by a lane its mask does not name): the mask covers lanes 0..active-1
// but the guard is lane <= active (off by one), so lane `active` executes __syncwarp(mask) without being
// in mask.  The fixed twin syncwarp_caller_not_in_mask_fixed.cu guards with lane < active.
extern "C" __global__ void syncwarp_caller_not_in_mask(const int* in, int* out, int active)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    int i = blockIdx.x * 32 + lane;
    unsigned int mask = (1u << active) - 1u;
    if (lane <= active) {
        s[lane] = (lane < active) ? in[i] : 0;
        __syncwarp(mask);  // BUG: lane `active` calls it but is not in mask
        if (lane < active) {
            int sum = 0;
            for (int k = 0; k < active; ++k)
                sum += s[k];
            out[i] = sum;
        }
    }
}
