// partners.h: items that time the same calls of the student's code against different yardsticks of the judge (lab
// 1's speedup over the naive loop and its fraction of the tuned matvec), measured in one set of rounds
// (MeasureContext::partners): each round times every partner's yardstick, then the item's, then the candidate once,
// so the student's code is timed once for all of them and each item reads its own yardstick beside the same
// candidate calls, paired round by round (measure/interval.h).
#pragma once

#include <optional>
#include <string>

#include "calibrate/calibration.h"
#include "report/report.h"
#include "spec/expr.h"
#include "spec/lab_spec.h"

namespace grader {

// Whether `partner` may be timed in `item`'s rounds: both time the same variant on the same parameters, checked
// to the same tolerance, with the same work (flops, bytes, memory, threads) and bound, each against judge code of
// its own run in the judge's process on those parameters (no cap: a cap runs the rounds out; no parameters of its
// own: the judge holds one set of inputs); the partner has no compare rows (the item's are the report's).
bool shares_candidate_calls(const PerformanceItem& item, const PerformanceItem& partner);

// The partner's measurement from the shared rounds `shared` (the item's, its rates and roofline derived) and the
// partner's own yardstick timed in them: the candidate's calls as they are, its yardstick in the baseline's place,
// its speedup and roofline derived anew (a yardstick of judge code raises the ceiling it beats, as the item's
// does; so does the bound timed with the item). The seconds spent are the item's, shown once: the partner's are 0.
// `scope`: the machine's variables and the parameters (the same for both). Where `shared` was counted
// (measure/cpu_counters.h), the partner's counters are the candidate's side and `yardstick_counts`, the yardstick's
// counted call (or `yardstick_skipped`, why it was not), so each item's report shows its two sides as before.
Measurement partner_measurement(const PerformanceItem& partner, const Variables& scope, bool gpu_lab,
                                const std::optional<Calibration>& calibration, const Measurement& shared,
                                const Timing& yardstick, const std::optional<Timing>& bound,
                                const std::optional<CounterSet>& yardstick_counts = std::nullopt,
                                const std::string& yardstick_skipped = "");

}  // namespace grader
