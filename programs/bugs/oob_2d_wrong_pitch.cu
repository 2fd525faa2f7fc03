// Naive transpose of a height x width matrix (row-major) into out, width x height:
// out[x][y] = in[y][x], one thread per input element, 2D grid.
//
// Planted bug (out of bounds, global, wrong row pitch): the store indexes out with the input's pitch
// (x * width + y) instead of the output's (x * height + y); with width > height that runs past the end
// of out.  The fixed twin oob_2d_wrong_pitch_fixed.cu uses height.
extern "C" __global__ void oob_2d_wrong_pitch(const float* in, float* out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        out[x * width + y] = in[y * width + x];  // BUG: out's rows are height long, not width
}
