// correctness.cpp: stages 5 and 6 for the correctness items. Every case of an item, with every variant it lists,
// runs in the judge (the expected outputs, unless a dataset gives them) and in the candidate, and the outputs are
// compared (check/outputs.h). One bad case costs its item, never the grading. A GPU lab's items run at once, a few
// threads each taking the next group of them with a judge of its own (grade_all_correctness).
#include <algorithm>
#include <exception>
#include <set>
#include <thread>

#include "check/outputs.h"
#include "pipeline/correctness_groups.h"
#include "pipeline/grading.h"

namespace grader::pipeline {

namespace {

// At most this many correctness items of a GPU lab at once: each holds a judge and a candidate process on the GPU
// (a CUDA context each), and their inputs on the host.
constexpr std::size_t most_items_at_once = 4;

}  // namespace

// A CPU lab's items one after another: their processes would take each other's CPUs (lab 3's race detectors run
// threads), and a batch plans its CPUs for one grading's correctness. A GPU lab's cases are short calls on one GPU
// whose cost is mostly starting processes and drawing inputs: graded on its own (`grader lab5`, a selftest, a node of
// `--slurm`), its items run at once (lab 8's eight items took 7.7 s one after another on an H100, 6.0 s at once, on a
// host busy with other gradings). Not in a batch: there the other GPUs' gradings use the host's cores and bus, and
// four gradings' items at once made a class of lab 5 on four H100s slower (correctness 104 GPU-s one item at a time,
// 126 at once). Not under --sanitize (compute-sanitizer's slowdown is charged per process), and not with items built
// with flags of their own (their build is made once, by whoever needs it first).
void Grading::grade_all_correctness() {
  const auto& items = spec_.correctness;
  auto grade_one = [this, &items](std::size_t i, std::unique_ptr<Worker>& judge) {
    TestResult& test = report_.tests[i];
    selected(items[i].name) ? grade_correctness(items[i], test, judge) : leave_out(test);
  };
  const std::vector<std::vector<std::size_t>> groups = correctness_groups(items);
  const bool flagged = std::any_of(items.begin(), items.end(), [](const CorrectnessItem& c) { return !c.build_flags.empty(); });
  const bool on_its_own = !options_.claim_gpu && options_.timing_gate == nullptr;
  if (!spec_.gpu || !on_its_own || !options_.sanitize.empty() || flagged || groups.size() < 2) {
    for (std::size_t i = 0; i < items.size(); ++i) grade_one(i, judge_);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr failed;
  auto grade_groups = [&] {
    std::unique_ptr<Worker> judge;  // this thread's, for every group it takes
    try {
      for (std::size_t g = next++; g < groups.size(); g = next++)
        for (const std::size_t i : groups[g]) grade_one(i, judge);
    } catch (...) {
      std::lock_guard lock(shared_mutex_);
      if (!failed) failed = std::current_exception();
    }
    if (judge) judge->quit();
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < std::min(groups.size(), most_items_at_once); ++t) threads.emplace_back(grade_groups);
  for (auto& thread : threads) thread.join();
  if (failed) std::rethrow_exception(failed);
}

// `judge`: the judge process this item uses (started when first needed, replaced when it fails).
void Grading::grade_correctness(const CorrectnessItem& item, TestResult& test, std::unique_ptr<Worker>& judge) {
  test.kind = TestKind::correctness;
  test.max_score = item.points;
  Verdict first_failure = Verdict::passed;
  std::string first_details;
  int graded = 0;
  std::set<std::string> hung_variants;

  if (!item.build_flags.empty()) {
    const FlagBuild& built = flag_build(item.build_flags);
    if (built.build.verdict != Verdict::passed) {
      std::lock_guard lock(shared_mutex_);
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
      std::lock_guard lock(shared_mutex_);
      ++report_.hidden_tests_skipped;
      continue;
    }
    progress("correctness", "correctness: " + item.name + ": " + c.name);
    Variables params;
    std::vector<Array> supplied, expected_from_dataset;
    if (!c.dataset.empty()) {
      try {
        const Manifest* manifest = nullptr;
        {
          std::lock_guard lock(shared_mutex_);
          if (!manifest_) manifest_ = load_manifest(env_.root / "datasets" / spec_.name());
          manifest = &*manifest_;
        }
        const DatasetEntry* entry = manifest->find(c.dataset);
        if (entry == nullptr) throw std::runtime_error("no dataset '" + c.dataset + "' in the lab's manifest");
        for (const auto& p : entry->params) params[p.name] = p.value;
        DatasetArrays arrays = load_dataset_arrays(*manifest, *entry);
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
        if (!judge || !judge->alive()) judge = start_worker(lab_.judge, "judge");
        Worker& j = *judge;
        if (!judge_ready) judge_ready = j.alive() && j.setup(params, seed, supplied, judge_timeout());
        if (!judge_ready || !j.run(variant, judge_timeout(), expected, judge_seconds)) {
          result.verdict = Verdict::internal_error;
          result.details = "the judge failed: " + j.failure().details;
          judge.reset();
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
      if (result.verdict != Verdict::passed) {
        std::lock_guard lock(shared_mutex_);
        if (!variant_failures_.count(variant))
          variant_failures_[variant] = item.name;  // not the case: a hidden one's name is never shown
      }
      test.cases.push_back(std::move(result));
    }
  }

  // A process that failed may carry damage no one has seen yet (a heap it overran): the next item starts afresh.
  for (const auto& variant : item.variants) {
    bool failed_before = false;
    {
      std::lock_guard lock(shared_mutex_);
      failed_before = variant_failures_.count(variant) > 0;
    }
    if (failed_before) retire_variant(item, variant);
  }

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
  std::lock_guard lock(shared_mutex_);
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
