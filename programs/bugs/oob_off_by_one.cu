// y = alpha * x + y (saxpy) with a grid-stride loop.
//
// Planted bug (out of bounds by one element at the tail, global): the loop condition is i <= n, so the
// thread that reaches i == n reads x[n] and y[n] and writes y[n], one past the end of both arrays.  The
// fixed twin oob_off_by_one_fixed.cu loops while i < n.
extern "C" __global__ void oob_off_by_one(float alpha, const float* x, float* y, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += stride)
        y[i] = alpha * x[i] + y[i];  // BUG: i == n is one past the end of x and y
}
