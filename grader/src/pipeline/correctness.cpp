// correctness.cpp: stages 5 and 6 for the correctness items. Every case of an item, with every variant it lists,
// runs in the judge (the expected outputs, unless a dataset gives them) and in the candidate, and the outputs are
// compared (check/outputs.h). One bad case costs its item, never the grading.
#include <algorithm>
#include <set>

#include "check/outputs.h"
#include "pipeline/grading.h"

namespace grader::pipeline {

void Grading::grade_correctness(const CorrectnessItem& item, TestResult& test) {
  test.kind = TestKind::correctness;
  test.max_score = item.points;
  Verdict first_failure = Verdict::passed;
  std::string first_details;
  int graded = 0;
  std::set<std::string> hung_variants;

  if (!item.build_flags.empty()) {
    const FlagBuild& built = flag_build(item.build_flags);
    if (built.build.verdict != Verdict::passed) {
      for (const auto& c : item.cases)
        if (c.visibility != Visibility::visible && !options_.include_hidden) ++report_.hidden_tests_skipped;
      test.verdict = built.build.verdict;
      test.details = built.details;
      test.score = 0;
      item_verdicts_[item.name] = test.verdict;
      return;
    }
  }

  for (const auto& c : item.cases) {
    if (c.visibility != Visibility::visible && !options_.include_hidden) {
      ++report_.hidden_tests_skipped;
      continue;
    }
    progress("correctness", "correctness: " + item.name + ": " + c.name);
    Variables params;
    std::vector<Array> supplied, expected_from_dataset;
    if (!c.dataset.empty()) {
      try {
        if (!manifest_) manifest_ = load_manifest(env_.root / "datasets" / spec_.name());
        const DatasetEntry* entry = manifest_->find(c.dataset);
        if (entry == nullptr) throw std::runtime_error("no dataset '" + c.dataset + "' in the lab's manifest");
        for (const auto& p : entry->params) params[p.name] = p.value;
        DatasetArrays arrays = load_dataset_arrays(*manifest_, *entry);
        supplied = std::move(arrays.inputs);
        expected_from_dataset = std::move(arrays.expected);
      } catch (const std::exception& error) {
        for (const auto& variant : item.variants)
          test.cases.push_back({c.name, variant, Verdict::internal_error, error.what(), c.visibility});
        if (first_failure == Verdict::passed) {
          first_failure = Verdict::internal_error;
          first_details = error.what();
        }
        continue;
      }
    } else {
      params = case_params(c.params, machine_);
    }
    const std::uint64_t seed = derive_seed(options_.seed, item.name + "/" + c.name);
    const Tolerance& tolerance = tolerance_for(spec_, item.tolerance, c.tolerance);

    bool judge_ready = false;
    std::set<std::string> candidates_ready;  // variants whose process holds this case's inputs
    for (const auto& variant : item.variants) {
      CaseResult result{c.name, variant, Verdict::passed, "", c.visibility};
      // One hang costs the whole item already; waiting out every later case would only slow the report.
      if (hung_variants.count(variant)) {
        result.verdict = Verdict::not_run;
        result.details = "skipped: an earlier case of this version ran into the time limit";
        test.cases.push_back(std::move(result));
        continue;
      }
      ++graded;
      // The candidate builds this case's inputs while the judge computes the expected outputs (setup is not
      // timed, and for a gigabyte of inputs it costs as much as the judge's run).
      Worker* setting_up = nullptr;  // the process the setup went to: if it dies meanwhile, no other takes its place
      if (!candidates_ready.count(variant)) {
        setting_up = &candidate_for(item, variant);
        if (setting_up->alive()) setting_up->start_setup(params, seed, supplied, judge_timeout());
      }
      // The expected outputs: the dataset's, or the judge's naive code on the same inputs.
      std::vector<Array> expected = expected_from_dataset;
      double judge_seconds = 0;
      if (expected.empty()) {
        Worker& j = judge();
        if (!judge_ready) judge_ready = j.alive() && j.setup(params, seed, supplied, judge_timeout());
        if (!judge_ready || !j.run(variant, judge_timeout(), expected, judge_seconds)) {
          result.verdict = Verdict::internal_error;
          result.details = "the judge failed: " + j.failure().details;
          judge_.reset();
          judge_ready = false;
        }
      }
      if (result.verdict == Verdict::passed) {
        Worker& cand = setting_up != nullptr ? *setting_up : candidate_for(item, variant);
        bool candidate_ready = candidates_ready.count(variant) > 0;
        if (!candidate_ready && cand.finish_setup()) {
          candidate_ready = true;
          candidates_ready.insert(variant);
        }
        std::vector<Array> got;
        double seconds = 0;
        const double timeout = (hang_slack_seconds + hang_factor * judge_seconds) *
                               (options_.sanitize.empty() ? 1 : sanitizer_slowdown);
        if (!candidate_ready) {
          result.verdict = cand.failure().verdict == Verdict::passed ? Verdict::internal_error : cand.failure().verdict;
          result.details = cand.failure().details;
        } else if (!cand.run(variant, timeout, got, seconds)) {
          result.verdict = cand.failure().verdict;
          result.details = cand.failure().details;
          if (!cand.alive()) candidates_ready.erase(variant);
        } else {
          OutputsCheck check = check_outputs(got, expected, tolerance);
          if (check.oracle_invalid) {
            result.verdict = Verdict::internal_error;
            result.details = "the expected outputs contain NaN or Inf: the lab's judge or dataset is broken";
          } else if (!check.passed) {
            result.verdict = Verdict::wrong_answer;
            result.details = check.summary;
          }
        }
        // The report names the function: each variant runs in its own process, so this one's code crashed it.
        if (result.verdict == Verdict::crash) result.details = "the " + variant + " version crashed: " + result.details;
        retire_if_dead(item, variant);
      }
      if (result.verdict != Verdict::passed && first_failure == Verdict::passed) {
        first_failure = result.verdict;
        first_details = c.name + " [" + variant + "]: " + result.details;
      }
      if (result.verdict == Verdict::time_limit) hung_variants.insert(variant);
      if (result.verdict != Verdict::passed && !variant_failures_.count(variant))
        variant_failures_[variant] = item.name;  // not the case: a hidden one's name is never shown
      test.cases.push_back(std::move(result));
    }
  }

  // A process that failed may carry damage no one has seen yet (a heap it overran): the next item starts afresh.
  for (const auto& variant : item.variants)
    if (variant_failures_.count(variant)) retire_variant(item, variant);

  test.verdict = first_failure;
  test.details = first_failure == Verdict::passed ? std::to_string(graded) + " runs passed" : first_details;
  if (!item.build_flags.empty() && first_failure == Verdict::passed) {
    test.details += " (built with";
    for (const auto& flag : item.build_flags) test.details += " " + flag;
    test.details += ")";
  }
  test.score = first_failure == Verdict::passed ? item.points : 0;
  if (graded == 0 && first_failure == Verdict::passed) {
    test.verdict = Verdict::not_run;
    test.details = "every case of this item is hidden; it is graded when staff grade";
    test.score = 0;
  }
  item_verdicts_[item.name] = test.verdict;
}

std::vector<std::string> Grading::required_correctness(const PerformanceItem& item) const {
  std::vector<std::string> needed = item.requires_items;
  if (needed.empty()) {
    for (const auto& c : spec_.correctness)
      for (const auto& v : c.variants)
        if (v == item.variant) needed.push_back(c.name);
  }
  return needed;
}

bool Grading::selected(const std::string& name) const {
  if (options_.only.empty() || options_.only == name) return true;
  for (const auto& item : spec_.performance)
    if (item.name == options_.only) {
      const auto needed = required_correctness(item);
      return std::find(needed.begin(), needed.end(), name) != needed.end();
    }
  return false;
}

bool Grading::prerequisites_passed(const PerformanceItem& item, std::string& missing) const {
  for (const auto& name : required_correctness(item)) {
    auto it = item_verdicts_.find(name);
    if (it == item_verdicts_.end() || (it->second != Verdict::passed && it->second != Verdict::not_run)) {
      missing += (missing.empty() ? "" : ", ") + name;
    }
  }
  return missing.empty();
}

}  // namespace grader::pipeline
