// HeCBench "transpose": general tensor transposition (after the ExaTENSOR kernels of GPA-Benchmark).
//
// Follows the general (non-tiled) path of HeCBench's tensor transpose: out = permute(in, perm) for a
// tensor of rank <= MAX_RANK with dimension extents and strides in constant memory.  One thread per output
// element (grid-stride loop) decomposes its output index into coordinates, dimension by dimension with
// integer division, and gathers the input element at sum_d coord_d * in_stride[perm[d]]: the stores are
// coalesced, the loads a gather whose stride is the innermost output dimension's input stride (for the
// reversal permutation, a whole 3D slab: one sector per thread).
// Launch: grid ceil(volume / 256) (at most 65535 * 4), block 256.

#define MAX_RANK 6

__constant__ int out_dims[MAX_RANK];        // extents of the output, fastest-varying first
__constant__ int in_strides[MAX_RANK];      // input stride of output dimension d (in_stride[perm[d]])

extern "C" __global__ void hecbench_tensor_transpose(const float *in, float *out, int rank, int volume)
{
    for (int o = blockIdx.x * blockDim.x + threadIdx.x; o < volume; o += gridDim.x * blockDim.x) {
        int rest = o, offset = 0;
        for (int d = 0; d < rank; d++) {
            const int coord = rest % out_dims[d];
            rest /= out_dims[d];
            offset += coord * in_strides[d];
        }
        out[o] = in[offset];
    }
}
