// test_batch_gpu_slots.cpp: how `grader batch --gpus` shares GPUs out (grader/src/batch/gpu_slots.h), with fake
// gradings in place of the pipeline: never two gradings on one GPU, never more at once than there are GPUs, builds
// (before the claim) overlapping, each student stored exactly once, a failing GPU retired and its student graded
// again elsewhere, and the students left when every GPU is gone.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "batch/gpu_slots.h"

using namespace grader;
using namespace std::chrono_literals;

namespace {

std::vector<Gpu> gpus(int count) {
  std::vector<Gpu> list;
  for (int i = 0; i < count; ++i) list.push_back({i, "GPU-" + std::to_string(1000 + i), "Fake GPU"});
  return list;
}

// A class graded by fake gradings: each "builds" (no GPU), claims, "runs" on the GPU, and is stored unless `fails`
// says its GPU failed.
struct FakeClass {
  std::mutex mutex;
  std::map<std::string, int> on_gpu;         // uuid -> gradings on it now
  int running = 0, most_running = 0;         // gradings holding a GPU
  int building = 0, most_building = 0;       // gradings before their claim
  std::map<std::size_t, int> stored;         // student -> times stored
  std::map<std::size_t, std::vector<int>> attempts_on;  // student -> GPU index of each attempt
  bool overlap_seen = false;                 // a build while another grading held a GPU
  std::function<std::string(std::size_t, const Gpu&)> fails = [](std::size_t, const Gpu&) { return std::string(); };

  std::string grade(std::size_t student, const ClaimGpu& claim) {
    {
      std::lock_guard lock(mutex);
      most_building = std::max(most_building, ++building);
      if (running > 0) overlap_seen = true;
    }
    std::this_thread::sleep_for(2ms);  // the build
    {
      std::lock_guard lock(mutex);
      --building;
    }
    const Gpu gpu = claim();
    {
      std::lock_guard lock(mutex);
      CHECK(++on_gpu[gpu.uuid] == 1);
      most_running = std::max(most_running, ++running);
      attempts_on[student].push_back(gpu.index);
    }
    std::this_thread::sleep_for(5ms);  // correctness and timing
    std::string failure = fails(student, gpu);
    std::lock_guard lock(mutex);
    --on_gpu[gpu.uuid];
    --running;
    if (failure.empty()) ++stored[student];
    return failure;
  }
};

}  // namespace

TEST_CASE("one grading per GPU, no more at once than GPUs, builds overlapping, everyone stored once") {
  FakeClass fake;
  GpuSlots slots(gpus(2));
  const GpuRun run = grade_on_gpus(slots, 24, 6, [&](std::size_t i, const ClaimGpu& claim) { return fake.grade(i, claim); });
  CHECK(run.left_ungraded.empty());
  CHECK(fake.most_running == 2);    // both GPUs used at once
  CHECK(fake.most_building > 1);    // builds went on while GPUs were busy
  CHECK(fake.overlap_seen);
  REQUIRE(fake.stored.size() == 24);
  for (const auto& [student, times] : fake.stored) CHECK(times == 1);
  CHECK(slots.in_rotation() == 2);
  CHECK(slots.retired().empty());
}

TEST_CASE("fewer threads than GPUs still use every GPU") {
  FakeClass fake;
  GpuSlots slots(gpus(3));
  grade_on_gpus(slots, 12, 1, [&](std::size_t i, const ClaimGpu& claim) { return fake.grade(i, claim); });
  CHECK(fake.most_running == 3);
  CHECK(fake.stored.size() == 12);
}

TEST_CASE("a grading that never claims a GPU (a build error) is stored and holds no GPU") {
  GpuSlots slots(gpus(1));
  std::atomic<int> stored{0};
  const GpuRun run = grade_on_gpus(slots, 5, 2, [&](std::size_t, const ClaimGpu&) {
    ++stored;
    return std::string("not a GPU failure: no GPU was claimed");  // ignored: nothing to retire
  });
  CHECK(stored == 5);
  CHECK(run.left_ungraded.empty());
  CHECK(slots.in_rotation() == 1);
}

TEST_CASE("a failing GPU leaves the rotation; its student is graded again on another, once") {
  FakeClass fake;
  // GPU 1 fails the first grading that reaches it.
  std::atomic<bool> failed_once{false};
  fake.fails = [&](std::size_t, const Gpu& gpu) {
    if (gpu.index == 1 && !failed_once.exchange(true)) return std::string("the judge failed with cudaErrorECCUncorrectable");
    return std::string();
  };
  GpuSlots slots(gpus(3));
  std::vector<std::pair<std::size_t, int>> retired_events;
  GpuEvents events;
  std::mutex events_mutex;
  events.retired = [&](std::size_t student, const Gpu& gpu, const std::string&) {
    std::lock_guard lock(events_mutex);
    retired_events.push_back({student, gpu.index});
  };
  const GpuRun run = grade_on_gpus(slots, 30, 8, [&](std::size_t i, const ClaimGpu& claim) { return fake.grade(i, claim); }, events);
  CHECK(run.left_ungraded.empty());
  REQUIRE(retired_events.size() == 1);
  CHECK(retired_events[0].second == 1);
  REQUIRE(slots.retired().size() == 1);
  CHECK(slots.retired()[0].gpu.index == 1);
  CHECK(slots.retired()[0].why.find("ECC") != std::string::npos);
  CHECK(slots.in_rotation() == 2);
  REQUIRE(fake.stored.size() == 30);
  for (const auto& [student, times] : fake.stored) CHECK(times == 1);
  // The unlucky student's second attempt ran elsewhere, and nobody used GPU 1 after it failed.
  const auto& tries = fake.attempts_on[retired_events[0].first];
  REQUIRE(tries.size() == 2);
  CHECK(tries[0] == 1);
  CHECK(tries[1] != 1);
  int on_gpu1 = 0;
  for (const auto& [student, list] : fake.attempts_on)
    for (int index : list) on_gpu1 += index == 1;
  CHECK(on_gpu1 == 1);
}

TEST_CASE("with every GPU retired, the rest are left ungraded and nothing is stored twice") {
  FakeClass fake;
  // The GPUs fail on the third grading they see in all.
  std::atomic<int> seen{0};
  fake.fails = [&](std::size_t, const Gpu&) { return ++seen >= 3 ? std::string("nvidia-smi no longer lists it") : std::string(); };
  GpuSlots slots(gpus(2));
  std::atomic<int> left_events{0};
  GpuEvents events;
  events.left_ungraded = [&](std::size_t, const std::string&) { ++left_events; };
  const GpuRun run = grade_on_gpus(slots, 10, 4, [&](std::size_t i, const ClaimGpu& claim) { return fake.grade(i, claim); }, events);
  CHECK(slots.in_rotation() == 0);
  CHECK(slots.retired().size() == 2);
  CHECK(fake.stored.size() == 2);
  CHECK(run.left_ungraded.size() == 8);
  CHECK(left_events == 8);
  std::set<std::size_t> all(run.left_ungraded.begin(), run.left_ungraded.end());
  for (const auto& [student, times] : fake.stored) {
    CHECK(times == 1);
    CHECK(all.insert(student).second);  // stored or left, never both
  }
  CHECK(all.size() == 10);
}

TEST_CASE("a student whose gradings take down two GPUs is left ungraded, not tried on a third") {
  FakeClass fake;
  fake.fails = [](std::size_t student, const Gpu&) { return student == 3 ? std::string("the judge failed with Xid 79") : std::string(); };
  GpuSlots slots(gpus(4));
  const GpuRun run = grade_on_gpus(slots, 8, 4, [&](std::size_t i, const ClaimGpu& claim) { return fake.grade(i, claim); });
  CHECK(run.left_ungraded == std::vector<std::size_t>{3});
  CHECK(fake.attempts_on[3].size() == static_cast<std::size_t>(max_gpu_failures_per_student));
  CHECK(slots.retired().size() == static_cast<std::size_t>(max_gpu_failures_per_student));
  CHECK(slots.in_rotation() == 2);
  CHECK(fake.stored.size() == 7);
}

TEST_CASE("a grading that throws stops the batch and hands its GPU back") {
  GpuSlots slots(gpus(1));
  std::atomic<int> started{0};
  CHECK_THROWS_WITH(grade_on_gpus(slots, 20, 2,
                                  [&](std::size_t, const ClaimGpu& claim) -> std::string {
                                    ++started;
                                    claim();
                                    throw std::runtime_error("the disk is full");
                                  }),
                    "the disk is full");
  CHECK(started < 20);
  // The GPU is free again: a claim returns at once.
  const Gpu gpu = slots.claim();
  CHECK(gpu.index == 0);
}

TEST_CASE("a claim waits for a free GPU and learns when none is left") {
  GpuSlots slots(gpus(1));
  const Gpu held = slots.claim();
  std::atomic<bool> gave_up{false};
  std::thread waiter([&] {
    try {
      slots.claim();
    } catch (const NoGpuLeft&) {
      gave_up = true;
    }
  });
  std::this_thread::sleep_for(20ms);
  CHECK_FALSE(gave_up);
  slots.retire(held, "fell off the bus");
  waiter.join();
  CHECK(gave_up);
}

TEST_CASE("every GPU takes its turn") {
  GpuSlots slots(gpus(3));
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) {
    const Gpu gpu = slots.claim();
    order.push_back(gpu.index);
    slots.release(gpu);
  }
  CHECK(order == std::vector<int>{0, 1, 2, 0, 1});
}

TEST_CASE("a retirement that cannot be recorded stops the batch instead of ending the process") {
  GpuSlots slots(gpus(2));
  GpuEvents events;
  events.retired = [](std::size_t, const Gpu&, const std::string&) { throw std::runtime_error("cannot write gpu-retired/"); };
  CHECK_THROWS_WITH(grade_on_gpus(slots, 6, 2, [](std::size_t, const ClaimGpu& claim) {
                      claim();
                      return std::string("nvidia-smi no longer lists it");
                    }, events),
                    "cannot write gpu-retired/");
}
