extern "C" __global__ void urem(unsigned *o, unsigned a, unsigned b) { o[threadIdx.x] = (threadIdx.x + a) % b; }
extern "C" __global__ void udiv(unsigned *o, unsigned a, unsigned b) { o[threadIdx.x] = (threadIdx.x + a) / b; }
extern "C" __global__ void srem(int *o, int a, int b) { o[threadIdx.x] = ((int)threadIdx.x - a) % b; }
extern "C" __global__ void sdiv(int *o, int a, int b) { o[threadIdx.x] = ((int)threadIdx.x - a) / b; }
extern "C" __global__ void base(unsigned *o, unsigned a, unsigned b) { o[threadIdx.x] = (threadIdx.x + a) + b; }
