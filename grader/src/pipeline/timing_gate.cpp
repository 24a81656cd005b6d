// timing_gate.cpp: see timing_gate.h.
#include "pipeline/timing_gate.h"

namespace grader {

TimingGate::Work::Work(TimingGate& gate) : gate_(&gate) {
  std::unique_lock lock(gate.mutex_);
  gate.changed_.wait(lock, [&] { return !gate.timing_ && gate.waiting_to_time_ == 0; });
  ++gate.working_;
}

void TimingGate::Work::release() {
  if (gate_ == nullptr) return;
  {
    const std::lock_guard lock(gate_->mutex_);
    --gate_->working_;
  }
  gate_->changed_.notify_all();
  gate_ = nullptr;
}

TimingGate::Timing::Timing(TimingGate& gate) : gate_(&gate) {
  std::unique_lock lock(gate.mutex_);
  ++gate.waiting_to_time_;
  gate.changed_.wait(lock, [&] { return !gate.timing_ && gate.working_ == 0; });
  --gate.waiting_to_time_;
  gate.timing_ = true;
}

void TimingGate::Timing::release() {
  if (gate_ == nullptr) return;
  {
    const std::lock_guard lock(gate_->mutex_);
    gate_->timing_ = false;
  }
  gate_->changed_.notify_all();
  gate_ = nullptr;
}

}  // namespace grader
