// y = alpha * x + y (saxpy) with a grid-stride loop.
//
// The fixed twin of oob_off_by_one.cu: the loop stops before n.
extern "C" __global__ void oob_off_by_one_fixed(float alpha, const float* x, float* y, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)  // FIX: i < n
        y[i] = alpha * x[i] + y[i];
}
