// harness.cu: lab 6's problem for the lab kit. A (m x n), x (n) and y (m) live in host memory that the code under
// test allocated itself (host_alloc in streams.h), filled from the case's seed; the device workspace is the
// harness's. Each call runs from host input to host output and is timed that way, with the host's clock. Linked
// with the student's streams.cu (the candidate) and with baseline.cu (the judge); see labkit/cuda.h.
//
// The variants, in one table below (dispatch and the hello listing both come from it):
//   sync, streams     the student's two functions (streams.h)
//   sync_pageable     judge only: the synchronous program a first attempt is, on pageable (malloc) memory: the
//                     yardstick of the speedup item
//   sync_pinned       judge only: the same program on pinned memory, for the report (pinning alone, no overlap)
//   copy_only         judge only: A and x copied in and y copied out, both directions at once, nothing else: the
//                     transfer bound, measured. "Fraction of the transfer bound" is its time over the candidate's
//   create_streams    judge only: creating and destroying `streams` streams, for the report
// The judge-only variants are weak symbols that baseline.cu defines; the candidate has none of them.
//
// Why the timing is honest:
//   - the clock runs from the call to the moment the whole device is idle again (finish()), so work left running
//     on any stream, blocking or not, is inside the time;
//   - the workspace is poisoned (every byte 0xFF) before every call, and the code under test may not allocate device
//     memory of its own (lab.toml [policy]): nothing of A can survive on the device from one call to the next, so
//     every call must move all of A across the bus;
//   - host_alloc may return pinned or pageable memory, not device or managed memory: managed memory would migrate
//     to the GPU once and stay there (checked below, and reported as the submission's error).
#include <labkit/cuda.h>
#include <labkit/labkit.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "streams.h"

extern "C" {
__attribute__((weak)) void lab6_judge_sync_pageable(const double* A, const double* x, double* y, std::int64_t m,
                                                    std::int64_t n, int streams, DeviceWorkspace dev);
__attribute__((weak)) void lab6_judge_sync_pinned(const double* A, const double* x, double* y, std::int64_t m,
                                                  std::int64_t n, int streams, DeviceWorkspace dev);
__attribute__((weak)) void lab6_judge_copy_only(const double* A, const double* x, double* y, std::int64_t m,
                                                std::int64_t n, int streams, DeviceWorkspace dev);
__attribute__((weak)) void lab6_judge_create_streams(const double* A, const double* x, double* y, std::int64_t m,
                                                     std::int64_t n, int streams, DeviceWorkspace dev);
}

namespace {

using labkit::cuda::DeviceBuffer;
using Pipeline = void(const double*, const double*, double*, std::int64_t, std::int64_t, int, DeviceWorkspace);

// Host memory from the code under test's host_alloc, handed back through its host_free.
class HostArray {
 public:
  HostArray() = default;
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;
  ~HostArray() {
    if (data_ != nullptr) host_free(data_);
  }
  void allocate(std::int64_t count) {
    count_ = count;
    data_ = host_alloc(static_cast<std::size_t>(count));
  }
  double* data() const { return data_; }
  std::int64_t size() const { return count_; }

 private:
  double* data_ = nullptr;
  std::int64_t count_ = 0;
};

struct Streams;

struct Variant {
  const char* name;
  void (*call)(Streams&);
};

struct Streams : labkit::CudaProblem {
  std::int64_t m = 0, n = 0;
  int streams = 4;
  HostArray a, x, y;
  DeviceBuffer<double> d_a, d_x, d_y;
  std::string refusal;  // what is wrong with the memory host_alloc returned, reported when the code is called

  static const std::vector<Variant>& table();

  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (const auto& v : table()) names.push_back(v.name);
    return names;
  }

  DeviceWorkspace workspace() { return DeviceWorkspace{d_a.data(), d_x.data(), d_y.data()}; }

  void setup(labkit::Case& c) override {
    m = c.params.integer("m");
    n = c.params.integer("n");
    streams = static_cast<int>(c.params.integer("streams", 4));
    if (m < 1 || n < 1)
      throw labkit::Error("lab6 needs m >= 1 and n >= 1, got m=" + std::to_string(m) + ", n=" + std::to_string(n));
    if (streams < 1 || streams > 8) throw labkit::Error("lab6's streams must be 1..8, got " + std::to_string(streams));
    // Device memory first: if the GPU cannot hold the problem, that is the lab's error, found before any of the
    // submission's code runs.
    d_a.resize(static_cast<std::size_t>(m * n));
    d_x.resize(static_cast<std::size_t>(n));
    d_y.resize(static_cast<std::size_t>(m));
    a.allocate(m * n);
    x.allocate(n);
    y.allocate(m);
    check_host_memory();
    if (!refusal.empty()) return;  // nothing to fill; every call reports the refusal
    fill(c, "a", a, {m, n});
    fill(c, "x", x, {n});
  }

  void poison() override {
    // Before every call, the 256 MiB y of the tall shape too: by several threads (labkit::poison).
    if (y.data() != nullptr) labkit::poison(y.data(), static_cast<std::size_t>(m));
    d_a.poison();
    d_x.poison();
    d_y.poison();
    LABKIT_CUDA_CHECK(cudaDeviceSynchronize());  // the fills are done before the clock starts
  }

  void run(std::string_view variant) override {
    if (!refusal.empty()) throw labkit::Error(refusal);
    for (const auto& v : table()) {
      if (variant == v.name) {
        v.call(*this);
        labkit::cuda::check_launch(v.name);
        return;
      }
    }
    throw labkit::Error("lab6 has no variant '" + std::string(variant) + "'");
  }

  // Host input to host output on the host's clock: from the call until the device is idle again.
  double time_once(std::string_view variant) override {
    LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
    return labkit::Problem::time_once(variant);
  }

  // Fresh inputs: A and x live in the host memory every call reads and copies across the bus itself, so the
  // elements the lab kit changes there are what the next call must move; there is no device copy to update.
  void inputs_changed(const std::vector<Changed>&) override {}

  std::vector<labkit::ArrayRef> inputs() override {
    return {labkit::ref("a", a.data(), {m, n}), labkit::ref("x", x.data(), {n})};
  }
  std::vector<labkit::ArrayRef> outputs() override { return {labkit::ref("y", y.data(), {m})}; }

 private:
  // Pageable (unregistered) or pinned host memory is allowed; device and managed memory are not.
  void check_host_memory() {
    for (const HostArray* array : {&a, &x, &y}) {
      if (array->data() == nullptr) {
        refusal = "host_alloc(" + std::to_string(array->size()) + ") returned a null pointer";
        return;
      }
      cudaPointerAttributes attributes{};
      if (cudaPointerGetAttributes(&attributes, array->data()) != cudaSuccess) {
        (void)cudaGetLastError();  // older drivers call unregistered host memory an invalid value
        continue;
      }
      if (attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged) {
        refusal = std::string("host_alloc returned ") +
                  (attributes.type == cudaMemoryTypeDevice ? "device" : "managed") +
                  " memory; it must return host memory (pageable or pinned), so that every call moves A to the GPU";
        return;
      }
    }
  }

  // The case's input `name`: the grader's array when it sent one (a public dataset), otherwise uniform numbers in
  // [-1, 1) from the case's generator, drawn in the same order as labkit::Case::input draws them.
  static void fill(labkit::Case& c, const char* name, HostArray& array, const std::vector<std::int64_t>& shape) {
    if (const labkit::ArrayRef* given = c.supplied(name)) {
      if (given->dtype != labkit::DType::f64 || given->shape != shape)
        throw labkit::Error(std::string("supplied array '") + name +
                            "' does not have the dtype and shape the case's parameters give");
      std::memcpy(array.data(), given->data, given->bytes());
      return;
    }
    c.rng.fill(array.data(), static_cast<std::size_t>(array.size()), -1.0, 1.0);  // several threads for 1 GiB
  }
};

// A weak symbol nobody defined is null: this is the candidate, which has no judge variants.
void judge_only(Pipeline* function, Streams& s, const char* name) {
  if (function == nullptr)
    throw labkit::Error(std::string(name) + " is one of the judge's own variants; the candidate has none");
  function(s.a.data(), s.x.data(), s.y.data(), s.m, s.n, s.streams, s.workspace());
}

const std::vector<Variant>& Streams::table() {
  static const std::vector<Variant> variants = {
      {"sync", [](Streams& s) { gemv_sync(s.a.data(), s.x.data(), s.y.data(), s.m, s.n, s.workspace()); }},
      {"streams",
       [](Streams& s) { gemv_streams(s.a.data(), s.x.data(), s.y.data(), s.m, s.n, s.streams, s.workspace()); }},
      {"sync_pageable", [](Streams& s) { judge_only(lab6_judge_sync_pageable, s, "sync_pageable"); }},
      {"sync_pinned", [](Streams& s) { judge_only(lab6_judge_sync_pinned, s, "sync_pinned"); }},
      {"copy_only", [](Streams& s) { judge_only(lab6_judge_copy_only, s, "copy_only"); }},
      {"create_streams", [](Streams& s) { judge_only(lab6_judge_create_streams, s, "create_streams"); }},
  };
  return variants;
}

}  // namespace

LABKIT_PROBLEM(Streams)
