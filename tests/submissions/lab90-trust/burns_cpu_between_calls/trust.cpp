// Threat: slowing the yardstick down (issue 16, "the candidate cannot slow the judge"). The candidate and the judge
// are timed in turn on the same machine. This submission computes every answer honestly inside its calls, but
// leaves a thread behind that waits until its process has been idle for 50 ms (past the lab kit's look at the
// threads after a timed call) and then burns a CPU until the next call: while the judge's baseline is timed,
// the judge shares the cores with it, and the speedup grows.
// Expected verdict: "eval" passes; the timed items are SUSPECT (the submission's process used CPU time while the
// other side was being timed), 0 performance points.
#include <atomic>
#include <chrono>
#include <thread>

#include "trust.h"

namespace {

using clock_type = std::chrono::steady_clock;

std::atomic<bool> in_call{false};
std::atomic<long long> last_return{0};  // steady_clock ticks at the last return

long long now() { return clock_type::now().time_since_epoch().count(); }

void burner() {
  volatile double sink = 0;
  for (;;) {
    const auto idle = std::chrono::nanoseconds(now() - last_return.load());
    if (in_call.load() || idle < std::chrono::milliseconds(50)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    for (int i = 0; i < 100000; ++i) sink = sink * 0.999 + i;  // about a millisecond of work, then look again
  }
}

}  // namespace

void trust_eval(const double* x, double* y, std::int64_t n) {
  static const bool started = [] {
    std::thread(burner).detach();
    return true;
  }();
  (void)started;
  in_call = true;
  for (std::int64_t i = 0; i < n; ++i) y[i] = trust_p(x[i]);
  last_return = now();
  in_call = false;
}
