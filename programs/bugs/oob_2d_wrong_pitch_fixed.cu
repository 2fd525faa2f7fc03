// Naive transpose of a height x width matrix (row-major) into out, width x height:
// out[x][y] = in[y][x], one thread per input element, 2D grid.
//
// The fixed twin of oob_2d_wrong_pitch.cu: the output pitch is height.
extern "C" __global__ void oob_2d_wrong_pitch_fixed(const float* in, float* out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        out[x * height + y] = in[y * width + x];  // FIX: pitch of out is height
}
