// gpu_slots.h: `grader batch --gpus N|all` grades one student per GPU at a time (docs/design.md, "A class on every
// GPU"). Each GPU is a slot, the slots taken in turn: a student's grading claims one when its build is done and it
// is about to run code, holds it through correctness and timing (the slot is that GPU's timing slot: nothing else
// runs on it meanwhile), and gives it back when it ends. Builds need no GPU, so the other grading threads compile
// while the GPUs time.
//
// A grading that shows its GPU failed (batch/gpu_failure.h) is discarded before anything is stored; the GPU leaves
// the rotation for the rest of the batch and the student is graded again on another. A student whose gradings took
// `max_gpu_failures_per_student` GPUs down is left ungraded rather than allowed to take down more (the TA looks).
// With every GPU retired, the students still to grade are left ungraded; the batch, run again, resumes with them.
//
//   GpuSlots slots(gpus);
//   GpuRun run = grade_on_gpus(slots, students.size(), threads, [&](std::size_t i, const ClaimGpu& claim) {
//     ... build; const Gpu gpu = claim(); ... run, check, time; return gpu_failure_or_empty;  (stored when empty)
//   }, events);
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "batch/gpu_inventory.h"

namespace grader {

// claim() found every GPU retired: the grading in progress cannot go on, and its student stays ungraded.
struct NoGpuLeft : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RetiredGpu {
  Gpu gpu;
  std::string why;
};

class GpuSlots {
 public:
  explicit GpuSlots(std::vector<Gpu> gpus);

  // A free GPU in rotation, waiting while all are busy. Throws NoGpuLeft once every GPU is retired.
  Gpu claim();
  // Gives a claimed GPU back to the rotation.
  void release(const Gpu& gpu);
  // Takes a claimed GPU out of the rotation for good.
  void retire(const Gpu& gpu, const std::string& why);

  std::size_t in_rotation() const;
  std::vector<RetiredGpu> retired() const;

 private:
  struct Slot {
    Gpu gpu;
    bool busy = false;
    bool retired = false;
    std::uint64_t last_claim = 0;  // when it was last claimed (claims_), 0: never
  };
  Slot& slot_of(const Gpu& gpu);  // with mutex_ held

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Slot> slots_;
  std::uint64_t claims_ = 0;
  std::vector<RetiredGpu> retired_;
};

inline constexpr int max_gpu_failures_per_student = 2;

// Gives the grading its GPU; called at most once per attempt, when the grading is ready to run code.
using ClaimGpu = std::function<Gpu()>;
// One attempt at grading student `index`: returns why its GPU failed (the attempt is void: it stored nothing), or
// empty when the grading stands and was stored. Any exception stops the batch (after the attempts in flight).
using GradeAttempt = std::function<std::string(std::size_t index, const ClaimGpu& claim)>;

struct GpuEvents {
  // A GPU left the rotation; `index` is the student whose grading showed it (graded again unless left ungraded).
  std::function<void(std::size_t index, const Gpu& gpu, const std::string& why)> retired;
  std::function<void(std::size_t index, const std::string& why)> left_ungraded;
};

struct GpuRun {
  std::vector<std::size_t> left_ungraded;  // students with nothing stored: no GPU was left, or too many failed
};

// Grades students 0 .. count-1 on `threads` threads (at least one per GPU, so no GPU idles for want of a thread).
GpuRun grade_on_gpus(GpuSlots& slots, std::size_t count, int threads, const GradeAttempt& attempt,
                     const GpuEvents& events = {});

}  // namespace grader
