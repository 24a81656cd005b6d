// gpu_calibrate.cu: this machine's GPU ceilings, for the roofline of GPU labs. `grader calibrate` builds it
// with `nvcc -O3 -arch=sm_XX -lcublas` when nvcc and a GPU are present, runs it, and reads the ONE line of JSON
// it prints on stdout (diagnostics go to stderr):
//
//   {"gpu": "NVIDIA H100 80GB HBM3", "gpu_arch": "sm_90", "gpu_bandwidth_gbps": 2999.1, "gpu_read_bandwidth_gbps": 3100.2,
//    "gpu_sgemm_tflops": 51.2, "gpu_dgemm_tflops": 53.0, "gpu_h2d_pinned_gbps": 55.1, "gpu_d2h_pinned_gbps": 55.3,
//    "gpu_rounds": 2, "gpu_stable": true}
//
// What each figure is, all medians of timed repetitions after warm-up, on random data (never zeros: the
// matrix units and compression can run faster on zeros than on real data):
//   gpu_bandwidth_gbps   a device-to-device copy of 1 GiB, bytes read + bytes written per second; the better
//                        of cudaMemcpyAsync and a plain 16-byte-per-thread copy kernel
//   gpu_read_bandwidth_gbps  a read-only sum of 1 GiB (kernels that only read, like a GEMV or a reduction,
//                        are held to this one)
//   gpu_sgemm_tflops     cublasSgemm, 8192 x 8192 x 8192, CUBLAS_DEFAULT_MATH (true FP32: no TF32 unless
//                        asked for, and this program does not ask), 2 n^3 flops per call
//   gpu_dgemm_tflops     cublasDgemm, the same size (FP64, on Hopper's FP64 tensor cores)
//   gpu_h2d_pinned_gbps  cudaMemcpyAsync of 256 MiB from pinned host memory to the device
//   gpu_d2h_pinned_gbps  the same, device to host
// The whole set is measured in rounds until a round moves no figure by more than 3% (at least 2 rounds, at
// most 4); each figure keeps its best round, since a ceiling is what the device can do. Pinned copies in
// particular vary from one run to the next (44 and 55 GB/s were seen minutes apart on one H100).
// gpu_rounds says how many rounds it took, gpu_stable whether it settled.
// Run it by hand: nvcc -O3 -arch=sm_90 grader/calibrate/gpu_calibrate.cu -lcublas -o gpu_calibrate && ./gpu_calibrate
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "gpu_calibrate: %s\n", message.c_str());
  std::exit(1);
}

void check(cudaError_t status, const char* call, int line) {
  if (status != cudaSuccess) die(std::string(cudaGetErrorString(status)) + " from " + call + " (line " + std::to_string(line) + ")");
}
void check(cublasStatus_t status, const char* call, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) die("cuBLAS status " + std::to_string(status) + " from " + call + " (line " + std::to_string(line) + ")");
}
#define CHECK(call) check((call), #call, __LINE__)

// Fills with values in [-1, 1) from a per-element hash: random enough, no host transfer, never zero blocks.
template <class T>
__global__ void fill_random(T* data, std::size_t count, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9e3779b1u ^ seed ^ static_cast<std::uint32_t>(i >> 32);
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    data[i] = static_cast<T>(static_cast<double>(h) * (2.0 / 4294967296.0) - 1.0);
  }
}

__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

// Each block sums its share with 16-byte loads and four independent accumulators per thread, and writes one
// partial sum: the memory traffic is the reads alone.
__global__ void read_kernel(const float4* __restrict__ src, std::size_t count, float* partial) {
  float4 s0{}, s1{};
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  for (; i + stride < count; i += 2 * stride) {
    const float4 a = src[i], b = src[i + stride];
    s0.x += a.x; s0.y += a.y; s0.z += a.z; s0.w += a.w;
    s1.x += b.x; s1.y += b.y; s1.z += b.z; s1.w += b.w;
  }
  if (i < count) {
    const float4 a = src[i];
    s0.x += a.x; s0.y += a.y; s0.z += a.z; s0.w += a.w;
  }
  float total = s0.x + s0.y + s0.z + s0.w + s1.x + s1.y + s1.z + s1.w;
  for (int offset = 16; offset > 0; offset /= 2) total += __shfl_down_sync(0xffffffffu, total, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(partial + blockIdx.x % 1024, total);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

// Median milliseconds of `reps` calls of `work` (after `warmup` untimed ones), each between two events.
template <class Work>
double median_ms(int warmup, int reps, Work work) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < warmup; ++i) work();
  CHECK(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    CHECK(cudaEventRecord(start));
    work();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float elapsed = 0;
    CHECK(cudaEventElapsedTime(&elapsed, start, stop));
    ms.push_back(elapsed);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return median(ms);
}

double read_bandwidth_gbps(int sms) {
  const std::size_t bytes = std::size_t{1} << 30;
  void* src = nullptr;
  float* partial = nullptr;
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&partial, 1024 * sizeof(float)));
  fill_random<float><<<4 * sms, 256>>>(static_cast<float*>(src), bytes / sizeof(float), 7);
  CHECK(cudaGetLastError());
  double best_ms = 1e30;
  for (int blocks_per_sm : {4, 8, 16}) {
    const double ms = median_ms(3, 20, [&] {
      read_kernel<<<blocks_per_sm * sms, 256>>>(static_cast<const float4*>(src), bytes / sizeof(float4), partial);
      CHECK(cudaGetLastError());
    });
    best_ms = std::min(best_ms, ms);
  }
  CHECK(cudaFree(src));
  CHECK(cudaFree(partial));
  const double gbps = bytes / (best_ms * 1e-3) / 1e9;
  std::fprintf(stderr, "read-only sum of 1 GiB: %.0f GB/s\n", gbps);
  return gbps;
}

double bandwidth_gbps(int sms) {
  const std::size_t bytes = std::size_t{1} << 30;
  void *src = nullptr, *dst = nullptr;
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  fill_random<float><<<4 * sms, 256>>>(static_cast<float*>(src), bytes / sizeof(float), 1);
  fill_random<float><<<4 * sms, 256>>>(static_cast<float*>(dst), bytes / sizeof(float), 2);
  CHECK(cudaGetLastError());
  const double memcpy_ms = median_ms(3, 20, [&] { CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
  const double kernel_ms = median_ms(3, 20, [&] {
    copy_kernel<<<8 * sms, 256>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst), bytes / sizeof(uint4));
    CHECK(cudaGetLastError());
  });
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  const double memcpy_gbps = 2.0 * bytes / (memcpy_ms * 1e-3) / 1e9, kernel_gbps = 2.0 * bytes / (kernel_ms * 1e-3) / 1e9;
  std::fprintf(stderr, "device-to-device copy of 1 GiB: cudaMemcpyAsync %.0f GB/s, copy kernel %.0f GB/s (read + write)\n",
               memcpy_gbps, kernel_gbps);
  return std::max(memcpy_gbps, kernel_gbps);
}

template <class T>
double gemm_tflops(cublasHandle_t handle, int sms) {
  constexpr int n = 8192;
  const std::size_t count = static_cast<std::size_t>(n) * n;
  T *a = nullptr, *b = nullptr, *c = nullptr;
  CHECK(cudaMalloc(&a, count * sizeof(T)));
  CHECK(cudaMalloc(&b, count * sizeof(T)));
  CHECK(cudaMalloc(&c, count * sizeof(T)));
  fill_random<T><<<4 * sms, 256>>>(a, count, 3);
  fill_random<T><<<4 * sms, 256>>>(b, count, 4);
  fill_random<T><<<4 * sms, 256>>>(c, count, 5);
  CHECK(cudaGetLastError());
  const T alpha = 1, beta = 0;
  const double ms = median_ms(2, 7, [&] {
    if constexpr (sizeof(T) == 4) {
      CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, n, b, n, &beta, c, n));
    } else {
      CHECK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, n, b, n, &beta, c, n));
    }
  });
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  const double tflops = 2.0 * n * n * static_cast<double>(n) / (ms * 1e-3) / 1e12;
  std::fprintf(stderr, "cublas%cgemm %d^3: %.2f ms, %.1f TFLOP/s\n", sizeof(T) == 4 ? 'S' : 'D', n, ms, tflops);
  return tflops;
}

double pinned_gbps(cudaMemcpyKind kind, int sms) {
  const std::size_t bytes = std::size_t{256} << 20;
  void* host = nullptr;
  void* device = nullptr;
  CHECK(cudaMallocHost(&host, bytes));
  CHECK(cudaMalloc(&device, bytes));
  fill_random<float><<<4 * sms, 256>>>(static_cast<float*>(device), bytes / sizeof(float), 6);
  CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
  const double ms = median_ms(2, 10, [&] {
    if (kind == cudaMemcpyHostToDevice) {
      CHECK(cudaMemcpyAsync(device, host, bytes, kind));
    } else {
      CHECK(cudaMemcpyAsync(host, device, bytes, kind));
    }
  });
  CHECK(cudaFreeHost(host));
  CHECK(cudaFree(device));
  const double gbps = bytes / (ms * 1e-3) / 1e9;
  std::fprintf(stderr, "pinned %s, 256 MiB: %.1f GB/s\n", kind == cudaMemcpyHostToDevice ? "host to device" : "device to host", gbps);
  return gbps;
}

}  // namespace

int main() {
  int device = 0;
  CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  CHECK(cudaGetDeviceProperties(&properties, device));
  const int sms = properties.multiProcessorCount;
  std::fprintf(stderr, "%s, sm_%d%d, %d SMs, %.0f MB of L2\n", properties.name, properties.major, properties.minor, sms,
               properties.l2CacheSize / 1e6);

  cublasHandle_t handle = nullptr;
  CHECK(cublasCreate(&handle));
  CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));  // FP32 stays FP32: TF32 only with CUBLAS_TF32_TENSOR_OP_MATH
  // bandwidth, read, sgemm, dgemm, h2d, d2h: each keeps its best round.
  std::vector<double> best(6, 0.0);
  constexpr int min_rounds = 2, max_rounds = 4;
  constexpr double settled = 0.03;
  int rounds = 0;
  bool stable = false;
  while (rounds < max_rounds && !stable) {
    const std::vector<double> round = {bandwidth_gbps(sms),
                                       read_bandwidth_gbps(sms),
                                       gemm_tflops<float>(handle, sms),
                                       gemm_tflops<double>(handle, sms),
                                       pinned_gbps(cudaMemcpyHostToDevice, sms),
                                       pinned_gbps(cudaMemcpyDeviceToHost, sms)};
    bool moved = false;
    for (std::size_t i = 0; i < round.size(); ++i) {
      moved = moved || round[i] > best[i] * (1 + settled);
      best[i] = std::max(best[i], round[i]);
    }
    ++rounds;
    stable = rounds >= min_rounds && !moved;
  }
  CHECK(cublasDestroy(handle));
  const double bandwidth = best[0], read = best[1], sgemm = best[2], dgemm = best[3], h2d = best[4], d2h = best[5];

  // The GPU's name holds no quotes or backslashes in practice; escape them anyway so the line stays JSON.
  std::string name;
  for (const char* c = properties.name; *c; ++c) {
    if (*c == '"' || *c == '\\') name += '\\';
    name += *c;
  }
  std::printf(
      "{\"gpu\": \"%s\", \"gpu_arch\": \"sm_%d%d\", \"gpu_bandwidth_gbps\": %.1f, \"gpu_read_bandwidth_gbps\": %.1f, "
      "\"gpu_sgemm_tflops\": %.2f, \"gpu_dgemm_tflops\": %.2f, \"gpu_h2d_pinned_gbps\": %.2f, \"gpu_d2h_pinned_gbps\": %.2f, "
      "\"gpu_rounds\": %d, \"gpu_stable\": %s}\n",
      name.c_str(), properties.major, properties.minor, bandwidth, read, sgemm, dgemm, h2d, d2h, rounds,
      stable ? "true" : "false");
  return 0;
}
