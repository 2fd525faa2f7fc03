// Image blur (seed 000, "Importance of memory access efficiency"): each output pixel is the average of the
// (2*BLUR_SIZE+1)^2 patch around it, counting only the pixels that lie inside the image.
//
// Teaching point: every iteration of the inner loop does one global load (`in[curRow * width + curCol]`) for
// one addition, a compute-to-global-memory-access ratio of 1.0, so the kernel is memory bound.
// Pixels are unsigned char (a grey-scale image) and the average is an integer division, as in PMPP.
#define BLUR_SIZE 1

extern "C" __global__ void blur(const unsigned char* in, unsigned char* out, int width, int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;

    if (col < width && row < height) {
        int pixVal = 0;
        int pixels = 0;
        for (int blurRow = -BLUR_SIZE; blurRow < BLUR_SIZE + 1; ++blurRow) {
            for (int blurCol = -BLUR_SIZE; blurCol < BLUR_SIZE + 1; ++blurCol) {
                int curRow = row + blurRow;
                int curCol = col + blurCol;
                // Verify the image pixel to be added to the average is valid (boundary conditions)
                if (curRow >= 0 && curRow < height && curCol >= 0 && curCol < width) {
                    pixVal += in[curRow * width + curCol];
                    ++pixels;
                }
            }
        }
        out[row * width + col] = (unsigned char)(pixVal / pixels);
    }
}
