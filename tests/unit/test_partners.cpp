// test_partners.cpp: which performance items may share one set of timed rounds (measure/partners.h), read from the
// labs as they are, and a partner's measurement from those rounds: the candidate's calls as timed, its own
// yardstick in the baseline's place, the speedup derived anew.
#include <doctest/doctest.h>

#include <filesystem>

#include "measure/partners.h"
#include "spec/lab_spec.h"

using namespace grader;

namespace {

LabSpec partners_lab(const char* folder) {
  return load_lab_spec(std::filesystem::path(TESTS_DIR) / ".." / "labs" / folder);
}

Timing partners_timing(const char* label, std::initializer_list<double> seconds) {
  Timing t;
  t.label = label;
  t.seconds = seconds;
  return t;
}

}  // namespace

TEST_CASE("lab 1's two items time the same calls against two yardsticks: one set of rounds serves both") {
  const LabSpec lab1 = partners_lab("lab1-matvec");
  REQUIRE(lab1.performance.size() == 2);
  const PerformanceItem& speedup = lab1.performance[0];
  const PerformanceItem& bandwidth = lab1.performance[1];
  CHECK(shares_candidate_calls(speedup, bandwidth));
  // The partner must have no compare rows of its own; the item measured may (they are the report's).
  CHECK_FALSE(shares_candidate_calls(bandwidth, speedup));
  CHECK_FALSE(shares_candidate_calls(speedup, speedup));

  PerformanceItem other = bandwidth;
  other.params[0].value = Expr::parse("5000");  // other inputs: other calls
  CHECK_FALSE(shares_candidate_calls(speedup, other));
  other = bandwidth;
  other.baseline.cap = "rowptr";  // a cap runs its rounds out
  CHECK_FALSE(shares_candidate_calls(speedup, other));
  other = bandwidth;
  other.baseline.process = BaselineSpec::Process::candidate;  // the student's own code as yardstick: its own rounds
  CHECK_FALSE(shares_candidate_calls(speedup, other));
  other = bandwidth;
  other.tolerance = Tolerance{1e-6, 0};  // checked otherwise
  CHECK_FALSE(shares_candidate_calls(speedup, other));
  other = bandwidth;
  other.variant = "contiguous";
  CHECK_FALSE(shares_candidate_calls(speedup, other));
}

TEST_CASE("items on different calls never share rounds (lab 4: other variants and sizes)") {
  const LabSpec lab4 = partners_lab("lab4-blocking");
  for (const auto& item : lab4.performance)
    for (const auto& partner : lab4.performance)
      if (item.variant != partner.variant) CHECK_FALSE(shares_candidate_calls(item, partner));
}

TEST_CASE("a partner's measurement: the shared candidate calls against its own yardstick, paired round by round") {
  const LabSpec lab1 = partners_lab("lab1-matvec");
  const PerformanceItem& bandwidth = lab1.performance[1];
  Variables scope{{"m", 10000}, {"n", 10000}, {"threads", 1}};
  Measurement shared;
  shared.candidate = partners_timing("candidate unrolled", {0.050, 0.052, 0.051});
  shared.baseline = partners_timing("judge rowptr", {0.120, 0.125, 0.118});
  shared.compare.push_back(partners_timing("candidate rowptr", {0.13}));
  shared.spent.rounds = 1.5;
  shared.spent.round_count = 3;
  shared.outside_checked = true;
  const Timing tuned = partners_timing("judge tuned", {0.049, 0.050, 0.052});
  const Measurement m = partner_measurement(bandwidth, scope, false, std::nullopt, shared, tuned, std::nullopt);
  CHECK(m.candidate.seconds == shared.candidate.seconds);
  CHECK(m.baseline.label == "judge tuned");
  CHECK(m.baseline.seconds == tuned.seconds);
  CHECK(m.speedup == doctest::Approx(0.050 / 0.051));
  CHECK(m.compare.empty());                  // the item's rows are shown once, with the item
  CHECK(m.spent.rounds == 0);                // the rounds' seconds are the item's, counted once
  CHECK(m.spent.round_count == 3);
  CHECK(m.outside_checked);
}

TEST_CASE("a partner's counters: the candidate's side of the item's, and its own yardstick's counted call") {
  const LabSpec lab1 = partners_lab("lab1-matvec");
  Variables scope{{"m", 10000}, {"n", 10000}, {"threads", 1}};
  Measurement shared;
  shared.candidate = partners_timing("candidate unrolled", {0.050});
  shared.baseline = partners_timing("judge rowptr", {0.120});
  CpuCounters counted;
  CounterSet candidate_side, rowptr_side, tuned_side;
  candidate_side.label = "candidate unrolled";
  rowptr_side.label = "judge rowptr";
  tuned_side.label = "judge tuned";
  candidate_side.threads = rowptr_side.threads = tuned_side.threads = 1;
  counted.sides = {candidate_side, rowptr_side};
  shared.cpu_counters = counted;
  const Measurement m = partner_measurement(lab1.performance[1], scope, false, std::nullopt, shared,
                                            partners_timing("judge tuned", {0.049}), std::nullopt, tuned_side, "");
  REQUIRE(m.cpu_counters.has_value());
  REQUIRE(m.cpu_counters->sides.size() == 2);
  CHECK(m.cpu_counters->sides[0].label == "candidate unrolled");
  CHECK(m.cpu_counters->sides[1].label == "judge tuned");
}
