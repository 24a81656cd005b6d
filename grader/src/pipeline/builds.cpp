// builds.cpp: the submission's builds, for grade.cpp's pipeline: staging the declared files, the lab's cached
// build, the student's compile, the link policy and the link; an item's own build with extra flags (lab3's race
// detectors); and with --sanitize, the instrumented twin of each build that runs.
#include <string>
#include <vector>

#include "build/stage.h"
#include "pipeline/grade.h"
#include "pipeline/grading.h"
#include "policy/policy.h"

namespace grader {

namespace pipeline {

bool Grading::build_everything() {
  progress("staging", "staging " + options_.submission.string());
  StageResult staged = stage_submission(spec_, options_.submission, workdir_ / "src");
  if (staged.verdict != Verdict::passed) {
    report_.verdict = staged.verdict;
    report_.verdict_details = staged.details;
    return false;
  }
  if (!options_.keep_staged_in.empty()) {
    // For the replay bundle; failing to keep a copy must not cost the student the grading.
    std::error_code ec;
    fs::copy(workdir_ / "src", options_.keep_staged_in, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
    if (ec) report_.warnings.push_back("the replay bundle lacks the staged files: " + ec.message());
  }

  progress("build (lab)", "building the lab's harness and judge");
  try {
    lab_ = build_lab(env_, spec_);
  } catch (const LabBuildError& error) {
    report_.verdict = Verdict::internal_error;
    report_.verdict_details = error.what();
    report_.build_log = error.log();
    return false;
  }

  // Workers may run as an unprivileged user who cannot reach the build tree (a clone under /root): the
  // judge runs from the work directory, like the candidate.
  fs::copy_file(lab_.judge, workdir_ / "judge", fs::copy_options::overwrite_existing);
  lab_.judge = workdir_ / "judge";

  progress("build (submission)", "compiling the submission");
  staged_sources_ = staged.sources;
  candidate_build_ = compile_candidate(env_, spec_, lab_, staged.sources, workdir_);
  report_.build_log = candidate_build_.log;
  if (candidate_build_.verdict != Verdict::passed) {
    report_.verdict = candidate_build_.verdict;
    report_.verdict_details = "the submission does not compile; the compiler's messages follow";
    return false;
  }

  // Before anything links or runs: what the student's objects define and call.
  PolicyResult policy = apply_link_policy(spec_, lab_.baseline_objects, candidate_build_.student_objects);
  if (policy.verdict != Verdict::passed) {
    report_.verdict = policy.verdict;
    report_.verdict_details = policy.details;
    return false;
  }

  link_candidate(env_, spec_, lab_, candidate_build_, workdir_);
  report_.build_log = candidate_build_.log;
  if (candidate_build_.verdict != Verdict::passed) {
    report_.verdict = candidate_build_.verdict;
    report_.verdict_details = "the submission does not link with the lab's harness; the linker's words are in the build log";
    return false;
  }
  if (is_compiler_sanitizer(options_.sanitize)) return build_sanitized();
  return true;
}

// --sanitize=address,undefined on a CPU lab: the same sources again, instrumented, and that build runs. The
// link policy has read the plain build above (the instrumentation adds the sanitizers' own calls and a
// constructor, which the policy would refuse); the sources are the same.
bool Grading::build_sanitized() {
  CandidateBuild sanitized = sanitized_build({}, "candidate");
  if (sanitized.verdict != Verdict::passed) {
    report_.verdict = sanitized.verdict;
    report_.verdict_details = "the submission does not build with -fsanitize=" + options_.sanitize + "; see the build log";
    return false;
  }
  candidate_build_.executable = sanitized.executable;
  return true;
}

// Every build of the submission that runs gets the sanitizer, an item's own build (lab3's race detectors) as
// much as the main one: item_flags first, then the sanitizer's. -ffile-prefix-map makes the
// sanitizers' reports name "src/matvec.cpp:25", the student's own file.
CandidateBuild Grading::sanitized_build(const std::vector<std::string>& item_flags, const std::string& name) {
  std::vector<std::string> flags = item_flags;
  for (const std::string& flag : {"-fsanitize=" + options_.sanitize, std::string("-fno-omit-frame-pointer"), std::string("-g"),
                                  "-ffile-prefix-map=" + workdir_.string() + "/="})
    flags.push_back(flag);
  std::string shown;
  for (const auto& flag : item_flags) shown += flag + " ";
  shown += "-fsanitize=" + options_.sanitize;
  progress("build (submission)", "compiling the submission again, with " + shown);
  CandidateBuild sanitized = compile_candidate(env_, spec_, lab_, staged_sources_, workdir_, flags, name + "-sanitized");
  if (sanitized.verdict == Verdict::passed)
    link_candidate(env_, spec_, lab_, sanitized, workdir_, name + "-sanitized", {"-fsanitize=" + options_.sanitize});
  report_.build_log += "\n# the build with " + shown + "\n" + sanitized.log;
  return sanitized;
}

Grading::FlagBuild& Grading::flag_build(const std::vector<std::string>& flags) {
  auto found = flag_builds_.find(flags);
  if (found != flag_builds_.end()) return found->second;
  FlagBuild& made = flag_builds_[flags];
  std::string shown;
  for (const auto& flag : flags) shown += (shown.empty() ? "" : " ") + flag;
  progress("build (submission)", "compiling the submission again, with " + shown);
  const std::string name = "candidate-" + std::to_string(flag_builds_.size());
  // A checking build the code can recognise is one it can behave well in (lab3's race detectors were once built
  // at -O0, where `#ifndef __OPTIMIZE__` chose serial code): an item's flags must leave every predefined macro as
  // the graded build has it. Flags that do not are the lab's mistake, reported before anything is compiled.
  std::vector<std::string> changes;
  try {
    changes = build_flag_macro_changes(env_, spec_, flags);
  } catch (const std::exception& error) {
    changes = {error.what()};
  }
  if (!changes.empty()) {
    std::string listed;
    for (std::size_t i = 0; i < changes.size() && i < 4; ++i) listed += (i == 0 ? "" : ", ") + changes[i];
    made.build.verdict = Verdict::internal_error;
    made.details = "the lab's build_flags (" + shown + ") change what the compiler predefines (" + listed +
                   "), so the submission could tell this build from the graded one; the lab must choose flags "
                   "that keep the graded build's optimisation level and macros";
    return made;
  }
  made.build = compile_candidate(env_, spec_, lab_, staged_sources_, workdir_, flags, name);
  if (made.build.verdict != Verdict::passed) {
    made.details = "the submission does not compile with this item's extra flags (" + shown + "); see the build log";
  } else if (PolicyResult policy = apply_link_policy(spec_, lab_.baseline_objects, made.build.student_objects);
             policy.verdict != Verdict::passed) {
    // Other flags change what an object calls and defines (what is inlined), so the policy reads this build too.
    made.build.verdict = policy.verdict;
    made.details = "built with " + shown + ": " + policy.details;
  } else {
    link_candidate(env_, spec_, lab_, made.build, workdir_, name);
    if (made.build.verdict != Verdict::passed)
      made.details = "built with " + shown + ", the submission does not link with the lab's harness; see the build log";
  }
  report_.build_log += "\n# the build with " + shown + "\n" + made.build.log;
  // The policy has read the plain objects above; what runs is the instrumented twin.
  if (made.build.verdict == Verdict::passed && is_compiler_sanitizer(options_.sanitize)) {
    CandidateBuild sanitized = sanitized_build(flags, name);
    if (sanitized.verdict != Verdict::passed) {
      made.build.verdict = sanitized.verdict;
      made.details = "the submission does not build with " + shown + " -fsanitize=" + options_.sanitize + "; see the build log";
    } else {
      made.build.executable = sanitized.executable;
    }
  }
  return made;
}

}  // namespace pipeline

}  // namespace grader
