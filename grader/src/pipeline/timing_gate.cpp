// timing_gate.cpp: see timing_gate.h.
#include "pipeline/timing_gate.h"

#include <pthread.h>

#include <algorithm>

namespace grader {

namespace {

// Pins the calling thread to `cpus` and returns the CPUs it had, to be given back; nothing for an empty list.
std::optional<cpu_set_t> pin_calling_thread(const std::vector<int>& cpus) {
  if (cpus.empty()) return std::nullopt;
  cpu_set_t before;
  CPU_ZERO(&before);
  if (pthread_getaffinity_np(pthread_self(), sizeof before, &before) != 0) return std::nullopt;
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  for (int cpu : cpus) CPU_SET(cpu, &wanted);
  if (pthread_setaffinity_np(pthread_self(), sizeof wanted, &wanted) != 0) return std::nullopt;
  return before;
}

void unpin_calling_thread(std::optional<cpu_set_t>& restore) {
  if (restore) pthread_setaffinity_np(pthread_self(), sizeof *restore, &*restore);
  restore.reset();
}

}  // namespace

TimingGate::TimingGate(Plan plan) : plan_(std::move(plan)), slot_busy_(static_cast<std::size_t>(plan_.slots()), false) {}

TimingGate::Work::Work(TimingGate& gate) : gate_(&gate) {
  {
    std::unique_lock lock(gate.mutex_);
    if (!gate.plan_.work_beside()) gate.changed_.wait(lock, [&] { return gate.timing_ == 0 && gate.waiting_to_time_ == 0; });
    ++gate.working_;
  }
  restore_ = pin_calling_thread(gate.plan_.work_cpus);
}

void TimingGate::Work::release() {
  if (gate_ == nullptr) return;
  unpin_calling_thread(restore_);
  {
    const std::lock_guard lock(gate_->mutex_);
    --gate_->working_;
  }
  gate_->changed_.notify_all();
  gate_ = nullptr;
}

TimingGate::Timing::Timing(TimingGate& gate) : gate_(&gate) {
  {
    std::unique_lock lock(gate.mutex_);
    ++gate.waiting_to_time_;
    gate.changed_.wait(lock, [&] {
      return gate.timing_ < static_cast<int>(gate.slot_busy_.size()) && (gate.plan_.work_beside() || gate.working_ == 0);
    });
    --gate.waiting_to_time_;
    slot_ = static_cast<int>(std::find(gate.slot_busy_.begin(), gate.slot_busy_.end(), false) - gate.slot_busy_.begin());
    gate.slot_busy_[static_cast<std::size_t>(slot_)] = true;
    ++gate.timing_;
  }
  if (!gate.plan_.slot_cpus.empty()) restore_ = pin_calling_thread(gate.plan_.slot_cpus[static_cast<std::size_t>(slot_)]);
}

void TimingGate::Timing::release() {
  if (gate_ == nullptr) return;
  unpin_calling_thread(restore_);
  {
    const std::lock_guard lock(gate_->mutex_);
    gate_->slot_busy_[static_cast<std::size_t>(slot_)] = false;
    --gate_->timing_;
  }
  gate_->changed_.notify_all();
  gate_ = nullptr;
}

}  // namespace grader
