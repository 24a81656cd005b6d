// cuda.h: the lab kit for GPU harnesses. Header-only; include it from the harness .cu after labkit.h.
//
// What it gives a harness:
//   LABKIT_CUDA_CHECK(call)           every CUDA runtime call goes through it: a failure throws labkit::Error
//                                     naming the error, the call's text, file and line
//   labkit::cuda::check_launch(what)  after every launch (cudaGetLastError): a bad launch configuration is
//                                     reported with the name of what was launched
//   labkit::cuda::DeviceBuffer<T>     device memory owned by an object: upload, download, poison
//   labkit::CudaProblem               a Problem whose finish() synchronises the device and whose time_once()
//                                     flushes the L2 cache, then times the call with device events
//
// A lab 5-like harness (y = A x, all on the device):
//
//   #include <labkit/labkit.h>
//   #include <labkit/cuda.h>
//   #include "gemv.h"
//
//   struct Gemv : labkit::CudaProblem {
//     std::int64_t m = 0, n = 0;
//     std::vector<double> a, x, y;                       // host copies
//     labkit::cuda::DeviceBuffer<double> d_a, d_x, d_y;   // device copies
//     std::vector<std::string> variants() const override { return {"warp_per_row"}; }
//     void setup(labkit::Case& c) override {
//       m = c.params.integer("m"); n = c.params.integer("n");
//       c.input("a", a, {m, n}, -1.0, 1.0);
//       c.input("x", x, {n}, -1.0, 1.0);
//       d_a.upload(a); d_x.upload(x); d_y.resize(m);
//     }
//     void poison() override { d_y.poison(); }          // NaN in every byte pattern 0xFF: unwritten rows show
//     void run(std::string_view) override {
//       gemv_warp_per_row(d_a.data(), d_x.data(), d_y.data(), m, n);
//       labkit::cuda::check_launch("gemv_warp_per_row");
//     }
//     std::vector<labkit::ArrayRef> inputs() override { return {labkit::ref("a", a, {m, n}), labkit::ref("x", x, {n})}; }
//     std::vector<labkit::ArrayRef> outputs() override { return {download("y", d_y, y, {m})}; }
//   };
//   LABKIT_PROBLEM(Gemv)
//
// and a failing call reads, in the grader's report:
//
//   cudaErrorInvalidConfiguration (invalid configuration argument) after launching gemv_warp_per_row
//
// Errors that leave the GPU context unusable (an illegal address in a kernel, a device-side assert, a trap)
// cannot be reported and recovered from: every later CUDA call fails too, so the next case would be blamed on
// the lab. The lab kit prints the error on stderr and aborts the worker instead; the grader reports the crash
// for the call that caused it and starts a fresh worker for the next one.
#pragma once

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <labkit/labkit.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#define LABKIT_CUDA_CHECK(call) ::labkit::cuda::check((call), #call, __FILE__, __LINE__)

namespace labkit::cuda {

// Called with a failed status: throws labkit::Error when the context still works, aborts when it does not.
[[noreturn]] inline void fail(cudaError_t status, const std::string& where) {
  std::string message = std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ") " + where;
  (void)cudaGetLastError();  // clears an ordinary error; a sticky one stays and shows below
  // A context that cannot even synchronise after the error was cleared is gone for good (sticky error).
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::fprintf(stderr, "labkit: %s\nlabkit: this error leaves the GPU context unusable; the worker stops here\n",
                 message.c_str());
    std::fflush(stderr);
    std::abort();
  }
  throw Error(message);
}

inline void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) fail(status, std::string("from ") + call + " at " + file + ":" + std::to_string(line));
}

// After every kernel launch (or call of student code that launches): reports a launch that did not start
// (bad grid or block shape, too much shared memory). Faults inside the kernel show at the next synchronisation.
inline void check_launch(std::string_view what) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) fail(status, "after launching " + std::string(what));
}

// The current device's properties, read once.
inline const cudaDeviceProp& device_properties() {
  static const cudaDeviceProp properties = [] {
    int device = 0;
    LABKIT_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp p{};
    LABKIT_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    return p;
  }();
  return properties;
}

// Device memory for `size()` elements of T, freed with the object. Move-only. Transfers are synchronous
// (cudaMemcpy), so host vectors may be reused as soon as they return.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { resize(count); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  // Reallocates for `count` elements (contents are not kept). At least one element is allocated, so data()
  // is never null.
  void resize(std::size_t count) {
    if (count == size_ && data_ != nullptr) return;
    release();
    LABKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), std::max<std::size_t>(count, 1) * sizeof(T)));
    size_ = count;
  }

  void upload(const T* host, std::size_t count) {
    resize(count);
    LABKIT_CUDA_CHECK(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }

  void download(std::vector<T>& host) const {
    host.resize(size_);
    LABKIT_CUDA_CHECK(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost));
  }

  // Every byte set to `value`, stream-ordered on the legacy default stream (before whatever runs next).
  void fill_bytes(unsigned char value) {
    LABKIT_CUDA_CHECK(cudaMemsetAsync(data_, value, std::max<std::size_t>(size_, 1) * sizeof(T), cudaStreamLegacy));
  }
  // All bits set: NaN for float and double, -1 for integers. Run before every call of student code, so an
  // element it forgot to write shows as NaN (which never passes a check) instead of last call's answer.
  void poison() { fill_bytes(0xFF); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  void release() {
    if (data_ != nullptr) (void)cudaFree(data_);  // no throw from a destructor; a dead context frees nothing
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

namespace detail {

// dst[index[i]] = value[i] for i < count: the few input elements a fresh call changed, in one launch.
template <class T>
__global__ void scatter_kernel(T* dst, const std::int64_t* index, const T* value, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) dst[index[i]] = value[i];
}

// Reads every 16-byte word of the buffer; the store never happens, but the compiler cannot know that.
static __global__ void read_through_kernel(const uint4* words, std::size_t count, unsigned int* sink) {
  unsigned int folded = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 w = words[i];
    folded ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (folded == 0x9e3779b9u) *sink = folded;
}

}  // namespace detail

// Evicts the L2 cache between timed trials, so every trial starts cold, as the first call in a real program
// would. It reads (does not write) a buffer twice the L2's size: a written buffer would leave dirty lines
// whose write-back to memory would then be charged to the next timed call.
class L2Flusher {
 public:
  void flush() {
    if (words_.size() == 0) {
      const std::size_t bytes = 2 * static_cast<std::size_t>(device_properties().l2CacheSize);
      words_.resize(bytes / sizeof(uint4));
      words_.fill_bytes(0x5a);
      sink_.resize(1);
    }
    const int blocks = 4 * device_properties().multiProcessorCount;
    detail::read_through_kernel<<<blocks, 256, 0, cudaStreamLegacy>>>(words_.data(), words_.size(), sink_.data());
    check_launch("the lab kit's L2 flush");
  }

 private:
  DeviceBuffer<uint4> words_;
  DeviceBuffer<unsigned int> sink_;
};

// A CUDA event that is created on first use and destroyed with the object.
class Event {
 public:
  Event() = default;
  ~Event() {
    if (event_ != nullptr) (void)cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record() {
    if (event_ == nullptr) LABKIT_CUDA_CHECK(cudaEventCreate(&event_));
    LABKIT_CUDA_CHECK(cudaEventRecord(event_, cudaStreamLegacy));
  }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Milliseconds between two recorded events, after waiting for the later one.
inline double elapsed_ms(const Event& start, const Event& stop) {
  LABKIT_CUDA_CHECK(cudaEventSynchronize(stop.get()));
  float ms = 0;
  LABKIT_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

}  // namespace labkit::cuda

namespace labkit::cuda {

// Copies the listed elements of a host array into its device copy: one small upload and one launch on the
// legacy stream, however many elements changed.
template <class T>
void upload_elements(DeviceBuffer<T>& device, const T* host, const std::vector<std::int64_t>& elements,
                     DeviceBuffer<unsigned char>& staging) {
  if (elements.empty()) return;
  const std::size_t count = elements.size();
  std::vector<unsigned char> packed(count * (sizeof(std::int64_t) + sizeof(T)));
  std::memcpy(packed.data(), elements.data(), count * sizeof(std::int64_t));
  T* values = reinterpret_cast<T*>(packed.data() + count * sizeof(std::int64_t));
  for (std::size_t i = 0; i < count; ++i) values[i] = host[elements[i]];
  if (staging.size() < packed.size()) staging.resize(2 * packed.size());  // grown rarely, never shrunk
  LABKIT_CUDA_CHECK(cudaMemcpy(staging.data(), packed.data(), packed.size(), cudaMemcpyHostToDevice));
  const auto* index = reinterpret_cast<const std::int64_t*>(staging.data());
  const auto* value = reinterpret_cast<const T*>(staging.data() + count * sizeof(std::int64_t));
  detail::scatter_kernel<<<static_cast<unsigned>((count + 255) / 256), 256, 0, cudaStreamLegacy>>>(
      device.data(), index, value, static_cast<int>(count));
  check_launch("the lab kit's fresh-input upload");
}

}  // namespace labkit::cuda

namespace labkit {

// A Problem whose implementations run on the GPU. Derive from it instead of Problem; the lab kit then
//   - finish():        synchronises the whole device and reports any error of what ran;
//   - time_once():     flushes the L2 cache and waits for the device (untimed: every trial starts cold, with
//                      no earlier work still running), then times one call with device events (EndMark below).
// The harness still writes setup(), poison(), run(), inputs() and outputs(); download() helps outputs().
class CudaProblem : public Problem {
 public:
  // Where the end of a timed call is marked:
  //   legacy_stream: an event on the legacy default stream right after run() returns. That stream waits for
  //                  all earlier work on every blocking stream, cudaStreamPerThread included, so the event
  //                  fires when everything the call started has finished. Only work on streams created
  //                  non-blocking escapes it: GPU labs forbid creating streams (lab.toml [policy]), and the
  //                  outputs are read before the device is synchronised (time_once), so such work is SUSPECT.
  //   after_device_sync: cudaDeviceSynchronize() first, then the event: nothing can escape, but the time also
  //                  holds the host's wake-up and the event's submission (several microseconds).
  enum class EndMark { legacy_stream, after_device_sync };

  // Fresh inputs (labkit.h, Problem::inputs_changed): the lab kit changes elements of the host arrays
  // inputs() returns; the calls read device copies. Every input must be named here with the device buffer
  // that holds its copy (in setup(), after the upload), or the harness must override inputs_changed():
  //   mirror("a", a, d_a);
  // An input that is neither is the harness's error, reported at the first fresh call, so a GPU lab can never
  // time its calls on inputs that silently stayed the same.
  //
  // A mirrored input that the lab kit rotates (the smaller operand, labkit.h) is rotated on the device, from a
  // device copy of setup()'s original, in two device-to-device copies: the host array keeps setup()'s values.
  // So the calls and any judge code must read a mirrored input from the device (lab 5's oracle reads A and x
  // back; lab 7's runs on the GPU). Rotating 64 MB on the host and uploading it took longer than lab 7's GEMM.
  template <class T>
  void mirror(const std::string& name, const std::vector<T>& host, cuda::DeviceBuffer<T>& device) {
    rotators_[name] = [&host, &device, original = std::make_shared<cuda::DeviceBuffer<T>>()](std::int64_t by) {
      // The first rotation comes before any fresh change, while the host array still holds setup()'s values.
      if (original->size() != host.size()) original->upload(host);
      const auto n = static_cast<std::size_t>(host.size());
      const auto shift = static_cast<std::size_t>(by);
      LABKIT_CUDA_CHECK(cudaMemcpy(device.data(), original->data() + shift, (n - shift) * sizeof(T), cudaMemcpyDeviceToDevice));
      if (shift != 0)
        LABKIT_CUDA_CHECK(cudaMemcpy(device.data() + (n - shift), original->data(), shift * sizeof(T), cudaMemcpyDeviceToDevice));
      LABKIT_CUDA_CHECK(cudaDeviceSynchronize());  // in place before the trial's clock starts
    };
    mirrors_[name] = [&host, &device, this](const Changed& changed) {
      // Rotated in host memory (only where a harness overrides rotate_copy() to refuse): one plain copy.
      if (changed.all) {
        LABKIT_CUDA_CHECK(cudaMemcpy(device.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
        return;
      }
      cuda::upload_elements(device, host.data(), changed.elements, staging_);
    };
  }

  void inputs_changed(const std::vector<Changed>& changed) override {
    for (const auto& array : changed) {
      auto found = mirrors_.find(array.name);
      if (found == mirrors_.end())
        throw Error("the harness did not say how input '" + array.name + "' reaches the device: call mirror(\"" +
                    array.name + "\", host, device) in setup(), or override inputs_changed()");
      found->second(array);
    }
    LABKIT_CUDA_CHECK(cudaDeviceSynchronize());  // in place before the trial's clock starts
  }

  // A GPU lab's processes may start threads (the CUDA runtime does): large inputs are drawn by several (labkit.h).
  bool may_start_threads() const override { return true; }

  void finish() override {
    if (const cudaError_t s = cudaGetLastError(); s != cudaSuccess) cuda::fail(s, "from a launch in the code that ran");
    if (const cudaError_t s = cudaDeviceSynchronize(); s != cudaSuccess)
      cuda::fail(s, "while the code ran on the GPU (seen at the device synchronisation after it)");
  }

  // Nsight Compute counts only between the two (the grader starts it with --profile-from-start off). Without a
  // profiler attached both do nothing; an error either returns is cleared, or finish() would blame the call for it.
  void profile(bool on) override {
    if ((on ? cudaProfilerStart() : cudaProfilerStop()) != cudaSuccess) (void)cudaGetLastError();
  }

  // The L2 flush happens in time_once(), not here: the lab kit poisons the outputs after prepare_trial(), and
  // poisoning writes them (lab 8's scratch is 32 MB). Flushed before poisoning, the L2 would start the trial
  // full of dirty lines whose write-back the timed call pays for (lab 8's reference read 0.945 of the copy
  // bandwidth that way on an H100, 1.006 flushed after). Flushed after, they are written back before the clock
  // starts.
  void prepare_trial() override {}

  // Returns once the end mark has fired, without synchronising the whole device: the lab kit then reads the
  // outputs (outputs() copies on the legacy stream, which does not wait for non-blocking streams either), calls
  // finish() and reads them again. Work a call left running on a stream of its own shows as outputs that
  // changed after the call returned: SUSPECT.
  double time_once(std::string_view variant) override {
    flusher_.flush();
    finish();  // nothing of earlier calls (or the flush) runs on into this trial, and their errors are named
    start_.record();
    run(variant);
    if (end_mark_ == EndMark::after_device_sync) finish();
    stop_.record();
    const double seconds = cuda::elapsed_ms(start_, stop_) * 1e-3;
    if (const cudaError_t s = cudaGetLastError(); s != cudaSuccess) cuda::fail(s, "from a launch in the code that ran");
    return seconds;
  }

 protected:
  void set_end_mark(EndMark mark) { end_mark_ = mark; }

  // Copies a device buffer into `host` and returns the view outputs() hands to the lab kit.
  template <class T>
  static ArrayRef download(std::string name, const cuda::DeviceBuffer<T>& device, std::vector<T>& host,
                           std::vector<std::int64_t> shape) {
    device.download(host);
    return ref(std::move(name), host, std::move(shape));
  }

 private:
  cuda::L2Flusher flusher_;
  cuda::Event start_, stop_;
  bool rotate_copy(const std::string& name, std::int64_t by) override {
    auto found = rotators_.find(name);
    if (found == rotators_.end()) return false;
    found->second(by);
    return true;
  }

  std::map<std::string, std::function<void(const Changed&)>> mirrors_;
  std::map<std::string, std::function<void(std::int64_t)>> rotators_;  // by input name: rotate the device copy
  cuda::DeviceBuffer<unsigned char> staging_;
  EndMark end_mark_ = EndMark::legacy_stream;
};

}  // namespace labkit
