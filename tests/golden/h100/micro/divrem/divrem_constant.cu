extern "C" __global__ void urem7(unsigned *o, unsigned a) { o[threadIdx.x] = (threadIdx.x + a) % 7u; }
extern "C" __global__ void udiv7(unsigned *o, unsigned a) { o[threadIdx.x] = (threadIdx.x + a) / 7u; }
extern "C" __global__ void srem7(int *o, int a) { o[threadIdx.x] = ((int)threadIdx.x - a) % 7; }
extern "C" __global__ void sdiv7(int *o, int a) { o[threadIdx.x] = ((int)threadIdx.x - a) / 7; }
extern "C" __global__ void base1(unsigned *o, unsigned a) { o[threadIdx.x] = (threadIdx.x + a) + 7u; }
extern "C" __global__ void udiv64(unsigned long long *o, unsigned long long a, unsigned long long b) { o[threadIdx.x] = (threadIdx.x + a) / b; }
extern "C" __global__ void base64(unsigned long long *o, unsigned long long a, unsigned long long b) { o[threadIdx.x] = (threadIdx.x + a) + b; }
