// ncu_planted.cu: kernels whose Nsight Compute counters are known in advance, for tests/gpu/ncu_counters.sh (issue
// "Look inside": the metric names the grader would read, checked on the GPU at hand).
//   coalesced   consecutive threads read consecutive floats: 4 sectors per request
//   strided     consecutive threads read floats 32 apart: 32 sectors per request
//   conflicts   every thread of a warp reads shared memory 32 words apart: 32-way bank conflicts
//   divergent   odd and even lanes take different branches: 16 threads per warp instruction there
#include <cstdio>

__global__ void coalesced(const float* in, float* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * 2.f; }

__global__ void strided(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[(i * 32) % (1 << 22)] * 2.f;
}

__global__ void conflicts(float* out) {
  __shared__ float tile[32 * 32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) tile[i] = i;
  __syncthreads();
  float sum = 0;
  for (int r = 0; r < 64; ++r) sum += tile[(threadIdx.x * 32 + r) % (32 * 32)];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

__global__ void divergent(float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i;
  if (threadIdx.x % 2 == 0) {
    for (int k = 0; k < 200; ++k) v = v * 1.0001f + 1.f;
  } else {
    for (int k = 0; k < 200; ++k) v = v * 0.9999f - 1.f;
  }
  out[i] = v;
}

int main() {
  const int n = 1 << 22;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(in, 0, n * sizeof(float));
  coalesced<<<n / 256, 256>>>(in, out);
  strided<<<n / 256, 256>>>(in, out);
  conflicts<<<n / 256, 256>>>(out);
  divergent<<<n / 256, 256>>>(out);
  const cudaError_t error = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(error));
  return error == cudaSuccess ? 0 : 1;
}
