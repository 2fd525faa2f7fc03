// HeCBench "softmax": the softmax of every slice (row) of a numSlice x sliceSize matrix.
//
// Follows HeCBench's softmax (after the Glow compiler's OpenCL backend): one thread per slice walks its
// row three times (maximum, sum of exponentials, normalised output).  Rows are contiguous, so the 32
// threads of a warp read 32 different rows at a stride of sliceSize floats: every load instruction of the
// warp touches 32 sectors (uncoalesced), and the working set of a warp's rows is re-read per pass.
// Launch: grid ceil(numSlice / 256), block 256.

extern "C" __global__ void hecbench_softmax(float *output, const float *input, const int sliceSize,
                                            const int numSlice)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= numSlice)
        return;

    float max_ = input[i * sliceSize];
    for (int j = 1; j < sliceSize; j++)
        max_ = fmaxf(max_, input[i * sliceSize + j]);

    float sum = 0.0f;
    for (int j = 0; j < sliceSize; j++)
        sum += expf(input[i * sliceSize + j] - max_);

    for (int j = 0; j < sliceSize; j++)
        output[i * sliceSize + j] = expf(input[i * sliceSize + j] - max_) / sum;
}
