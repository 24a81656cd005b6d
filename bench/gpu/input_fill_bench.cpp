// input_fill_bench.cpp: what drawing a GPU lab's largest input costs a worker's setup(), the old way (one uniform()
// call per element, as labkit::Rng::fill did) against labkit::Rng::fill now (shares drawn by threads from
// jumped-ahead states, grader/labkit/src/rng.cpp), and that both give the same bits and leave the same state.
// Lab 8's 2^28 floats and lab 6's 2^27 doubles (1 GiB A). No GPU needed; bench/gpu/fast_gpu_check.sh builds and runs it:
//
//   g++ -std=c++17 -O2 -pthread -Igrader/labkit/include bench/gpu/input_fill_bench.cpp grader/labkit/src/rng.cpp
#include <labkit/labkit.h>

#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

template <class T>
bool compare_fills(const char* what, std::size_t count) {
  std::vector<T> one_by_one(count), filled(count);  // both touched before either clock starts
  std::memset(one_by_one.data(), 0, count * sizeof(T));
  std::memset(filled.data(), 0, count * sizeof(T));
  labkit::Rng old_way(35), new_way(35);
  const auto start = std::chrono::steady_clock::now();
  for (auto& v : one_by_one) v = static_cast<T>(old_way.uniform(-1.0, 1.0));
  const auto middle = std::chrono::steady_clock::now();
  new_way.fill(filled, -1.0, 1.0);
  const auto end = std::chrono::steady_clock::now();
  const bool same = std::memcmp(one_by_one.data(), filled.data(), count * sizeof(T)) == 0 && old_way.next() == new_way.next();
  std::printf("fill %-28s one by one %.3f s, Rng::fill %.3f s (x%.1f), %s\n", what, seconds_between(start, middle),
              seconds_between(middle, end), seconds_between(start, middle) / seconds_between(middle, end),
              same ? "same bits and state" : "DIFFERENT");
  return same;
}

}  // namespace

int main() {
  labkit::Rng::allow_threads(true);  // as the lab kit does for a GPU lab's problem (CudaProblem)
  cpu_set_t allowed;
  std::printf("fill: %d CPUs allowed, %d threads for 2^28 elements\n",
              sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 1,
              labkit::Rng::fill_threads(std::size_t{1} << 28));
  const bool floats = compare_fills<float>("lab 8: 2^28 floats", std::size_t{1} << 28);
  const bool doubles = compare_fills<double>("lab 6: 2^27 doubles (1 GiB)", std::size_t{1} << 27);
  return floats && doubles ? 0 : 1;
}
