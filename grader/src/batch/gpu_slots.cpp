#include "batch/gpu_slots.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <thread>

namespace grader {

GpuSlots::GpuSlots(std::vector<Gpu> gpus) {
  for (auto& gpu : gpus) slots_.push_back({std::move(gpu), false, false, 0});
}

GpuSlots::Slot& GpuSlots::slot_of(const Gpu& gpu) {
  for (auto& slot : slots_)
    if (slot.gpu.uuid == gpu.uuid) return slot;
  throw std::logic_error("not one of this batch's GPUs: " + describe_gpu(gpu));
}

Gpu GpuSlots::claim() {
  std::unique_lock lock(mutex_);
  for (;;) {
    bool any_in_rotation = false;
    Slot* chosen = nullptr;
    for (auto& slot : slots_) {
      if (slot.retired) continue;
      any_in_rotation = true;
      // The free GPU claimed longest ago: every GPU takes its turn, and a grading that would fail on one comes to it
      // early rather than never.
      if (!slot.busy && (chosen == nullptr || slot.last_claim < chosen->last_claim)) chosen = &slot;
    }
    if (chosen != nullptr) {
      chosen->busy = true;
      chosen->last_claim = ++claims_;
      return chosen->gpu;
    }
    if (!any_in_rotation) throw NoGpuLeft("every GPU of this batch was taken out of rotation");
    changed_.wait(lock);
  }
}

void GpuSlots::release(const Gpu& gpu) {
  {
    std::lock_guard lock(mutex_);
    slot_of(gpu).busy = false;
  }
  changed_.notify_all();
}

void GpuSlots::retire(const Gpu& gpu, const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    Slot& slot = slot_of(gpu);
    if (!slot.retired) retired_.push_back({slot.gpu, why});
    slot.retired = true;
    slot.busy = false;
  }
  // Gradings waiting for a GPU must learn when none is left.
  changed_.notify_all();
}

std::size_t GpuSlots::in_rotation() const {
  std::lock_guard lock(mutex_);
  return static_cast<std::size_t>(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.retired; }));
}

std::vector<RetiredGpu> GpuSlots::retired() const {
  std::lock_guard lock(mutex_);
  return retired_;
}

namespace {

// One attempt's hold on a GPU: claimed at most once, given back (unless retired) however the attempt ends.
class Lease {
 public:
  explicit Lease(GpuSlots& slots) : slots_(slots) {}
  ~Lease() {
    if (gpu_) slots_.release(*gpu_);
  }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;

  Gpu claim() {
    if (gpu_) throw std::logic_error("a grading claimed a second GPU");
    gpu_ = slots_.claim();
    return *gpu_;
  }
  const std::optional<Gpu>& gpu() const { return gpu_; }
  void retire(const std::string& why) {
    slots_.retire(*gpu_, why);
    gpu_.reset();
  }

 private:
  GpuSlots& slots_;
  std::optional<Gpu> gpu_;
};

}  // namespace

GpuRun grade_on_gpus(GpuSlots& slots, std::size_t count, int threads, const GradeAttempt& attempt, const GpuEvents& events) {
  GpuRun run;
  std::mutex run_mutex;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr stopped_by;

  auto leave_ungraded = [&](std::size_t index, const std::string& why) {
    {
      std::lock_guard lock(run_mutex);
      run.left_ungraded.push_back(index);
    }
    if (events.left_ungraded) events.left_ungraded(index, why);
  };

  // Every attempt at one student, each on a GPU the earlier ones did not break.
  auto grade_student = [&](std::size_t index) {
    for (int failures = 0;;) {
      if (slots.in_rotation() == 0) return leave_ungraded(index, "every GPU was taken out of rotation");
      std::string failure;
      std::optional<Gpu> used;
      try {
        Lease lease(slots);
        failure = attempt(index, [&lease] { return lease.claim(); });
        used = lease.gpu();
        // A failure without a GPU cannot be the GPU's: the grading stands as the attempt stored it.
        if (!failure.empty() && used) lease.retire(failure);
      } catch (const NoGpuLeft& none) {
        return leave_ungraded(index, none.what());
      }
      if (failure.empty() || !used) return;
      ++failures;
      if (events.retired) events.retired(index, *used, failure);
      if (failures >= max_gpu_failures_per_student)
        return leave_ungraded(index, "its gradings ended in GPU failures on " + std::to_string(failures) +
                                         " GPUs; it is not tried on another (check the GPUs, then grade it with --only)");
    }
  };

  auto worker = [&] {
    try {
      while (!stop) {
        const std::size_t index = next++;
        if (index >= count) return;
        grade_student(index);
      }
    } catch (...) {  // a store that cannot be written, a missing toolchain: the batch stops after those in flight
      std::lock_guard lock(run_mutex);
      if (!stopped_by) stopped_by = std::current_exception();
      stop = true;
    }
  };

  const std::size_t wanted = std::max<std::size_t>({1, static_cast<std::size_t>(std::max(threads, 0)), slots.in_rotation()});
  std::vector<std::thread> pool;
  for (std::size_t i = 0; i < std::min(wanted, count); ++i) pool.emplace_back(worker);
  for (auto& thread : pool) thread.join();
  if (stopped_by) std::rethrow_exception(stopped_by);
  std::sort(run.left_ungraded.begin(), run.left_ungraded.end());
  return run;
}

}  // namespace grader
