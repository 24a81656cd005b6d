// ncu_ranges.cu: a planted program for bench/gpu/counters_seconds.sh --probe (issue 35): could one profiled worker
// count several calls, and tell their kernels apart? Three ranges, each opened as the lab kit opens a profiled
// call (cudaProfilerStart/Stop) inside an NVTX range of a "grader" domain, each starting with a marker kernel of a
// grid the range's number sets (7, 8, 9 blocks): the first with three kernels, the second with one and one more in an
// NVTX range of the default domain named like the third call's, the third with a kernel named as the marker in
// another namespace. Kernels also run before the first range and between ranges, outside every range.
//   ranges         the three ranges
//   ranges big     the same with 1 GiB more allocated (what ncu saves and restores for every profiled kernel)
//   ranges noop    CUDA started (cudaFree(nullptr)) and nothing else: a CUDA program's start and end
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <cstdio>
#include <cstring>
#include <unistd.h>

__global__ void student_a(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1; }
__global__ void student_b(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }
__global__ void grader_marker(unsigned* p) { if (p != nullptr && threadIdx.x == 0 && blockIdx.x == 0) p[0] = gridDim.x; }
namespace evil { __global__ void grader_marker(unsigned* p) { if (p != nullptr) p[0] = 1; } }

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "noop") == 0) { cudaFree(nullptr); return 0; }
  const bool big = argc > 1 && std::strcmp(argv[1], "big") == 0;
  nvtxDomainHandle_t domain = nvtxDomainCreateA("grader");
  const int n = 1 << 20;
  float* x = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  float* ballast = nullptr;
  if (big) { cudaMalloc(&ballast, size_t(1) << 30); cudaMemset(ballast, 0, size_t(1) << 30); }
  unsigned* mark = nullptr;
  cudaMalloc(&mark, 64);
  student_a<<<n / 256, 256>>>(x, n);  // before any range
  const int counts[3] = {3, 1, 2};
  for (int c = 0; c < 3; ++c) {
    char name[64];
    std::snprintf(name, sizeof name, "call-%d", c + 1);
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = name;
    nvtxDomainRangePushEx(domain, &a);
    cudaProfilerStart();
    grader_marker<<<7 + c, 32>>>(mark);
    for (int k = 0; k < counts[c]; ++k) {
      if (c == 2 && k == 1) evil::grader_marker<<<8, 32>>>(nullptr);
      else student_a<<<n / 256, 256>>>(x, n);
    }
    if (c == 1) {  // a student's own range, and one named as the grader's
      nvtxRangePushA("call-3");
      student_b<<<n / 256, 256>>>(x, n);
      nvtxRangePop();
    }
    cudaDeviceSynchronize();
    cudaProfilerStop();
    nvtxDomainRangePop(domain);
    student_b<<<n / 256, 256>>>(x, n);  // between ranges
  }
  cudaDeviceSynchronize();
  std::printf("probe done\n");
  return 0;
}
