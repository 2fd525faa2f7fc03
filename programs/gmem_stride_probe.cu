// Global-memory coalescing probe (seed 003, "Memory Coalescing": coalesced, strided and misaligned access).
//
// Thread i reads the float in[i * stride + offset] and writes it to out[i] (the writes are always
// coalesced).  A warp's read touches 32 * 4 * stride bytes of address range, so with 32-byte sectors:
//   stride 1 -> 4 sectors per request (100% of the fetched bytes used), 2 -> 8, 4 -> 16, 8 -> 32,
//   16 and 32 -> 32 sectors (one per thread; 12.5% used at stride >= 8);
// and offset 1 at stride 1 straddles one extra sector (5 per request).
extern "C" __global__ void gmem_stride_probe(const float* in, float* out, int n, int stride, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i * stride + offset];
}
