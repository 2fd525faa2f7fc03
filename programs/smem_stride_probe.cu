// Shared-memory bank-conflict probe (seed 003, "Bank conflicts and strides").
//
// The block copies SMEM_WORDS words of `in` into shared memory, then each thread reads the shared word
// tid * stride (wrapped into the array; the wrap is a multiple of 32 words, so it keeps every word's bank).
// Stride is the distance between the words two neighbouring lanes read, so a warp's read hits
// 32 / gcd(stride, 32) distinct banks: the seed's table is
//   stride 1 -> conflict-free, 2 -> 2-way, 3 -> conflict-free, 4 -> 4-way, 8 -> 8-way, 32 -> 32-way,
//   33 -> conflict-free (the padding trick).
// The read is repeated `reps` times (each repetition shifts every lane by one word, which keeps the
// pattern) and XOR-accumulated, so a timing run is dominated by the shared loads being probed.
#define SMEM_WORDS 4096

extern "C" __global__ void smem_stride_probe(const unsigned int* in, unsigned int* out, int stride, int reps)
{
    __shared__ unsigned int data[SMEM_WORDS];
    for (int w = threadIdx.x; w < SMEM_WORDS; w += blockDim.x)
        data[w] = in[w];
    __syncthreads();

    unsigned int acc = 0;
    for (int r = 0; r < reps; ++r)
        acc ^= data[(threadIdx.x * stride + r) & (SMEM_WORDS - 1)];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
