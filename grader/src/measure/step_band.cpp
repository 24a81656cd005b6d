#include "measure/step_band.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "measure/statistics.h"

namespace grader {

PerformanceItem step_band_item(const StepRule& step) {
  PerformanceItem item;
  item.name = "step " + step.variant + " against the judge's " + step.judge;
  item.variant = step.variant;
  item.params = step.params;
  item.baseline.variant = step.judge;
  item.metric = Metric::speedup;
  return item;
}

TimingSpec step_band_timing(const TimingSpec& lab) {
  TimingSpec band = lab;
  band.min_reps = std::min(lab.min_reps, 3);
  band.max_reps = std::max(band.min_reps, std::min(lab.max_reps, 5));
  band.max_seconds = std::min(lab.max_seconds, 3.0);
  band.noise_retry_seconds = 0;
  return band;
}

double least_favourable_speedup(const Measurement& measured) {
  const auto& judge = measured.baseline.seconds;
  const auto& candidate = measured.candidate.seconds;
  if (judge.size() == candidate.size() && !judge.empty()) {
    std::vector<double> ratios;
    for (std::size_t i = 0; i < judge.size(); ++i)
      if (candidate[i] > 0) ratios.push_back(judge[i] / candidate[i]);
    if (ratios.size() == judge.size()) return summarize(ratios).q1;
  }
  return measured.speedup_low > 0 ? measured.speedup_low : measured.speedup;
}

std::string outside_band(const StepRule& step, const Measurement& measured, const std::string& sizes) {
  const double faster = least_favourable_speedup(measured);
  if (faster <= step.max_speedup) return "";
  char figures[160];
  std::snprintf(figures, sizeof figures, "%.1fx (at least %.1fx)", measured.speedup, faster);
  char edge[32];
  std::snprintf(edge, sizeof edge, "%gx", step.max_speedup);
  return step.function + " ran " + figures + " faster than the judge's own " + step.judge + " on the same inputs (" +
         sizes + "), where written with the step's technique it runs at most " + edge + " faster: it is not the " +
         step.variant + " step";
}

std::string band_note(const StepRule& step, const Measurement& measured, const std::string& sizes) {
  char figures[96];
  std::snprintf(figures, sizeof figures, "%.2fx its speed, within the band's %gx", measured.speedup, step.max_speedup);
  return "timed against the judge's own " + step.judge + " (" + sizes + "): " + figures;
}

}  // namespace grader
