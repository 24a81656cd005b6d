// test_step_rules.cpp: the structural and fact rules of steps (steps/step_rules.h) on code described by hand, the
// verdicts they give to a report's items (steps/step_verdicts.h), and the substitution selftest builds
// (steps/substitution.h).
#include <doctest/doctest.h>

#include "measure/step_band.h"
#include "steps/step_rules.h"
#include "steps/step_verdicts.h"
#include "steps/substitution.h"

using namespace grader;

namespace {

StepsSpec two_steps() {
  StepsSpec steps;
  steps.best = "mm_best";
  steps.steps.push_back(StepRule{"ijk", "mm_ijk", {}, {}, "", {}, 0, 1, 1});
  steps.steps.push_back(StepRule{"ikj", "mm_ikj", {}, {}, "", {}, 0, 2, 1});
  return steps;
}

// An honest submission: three functions of their own code, ijk and best sharing a helper (an edge routine).
SubmissionCode honest() {
  SubmissionCode code;
  code.functions["mm_ijk"] = {"h-ijk", {"edge"}, {}};
  code.functions["mm_ikj"] = {"h-ikj", {}, {}};
  code.functions["mm_best"] = {"h-best", {"edge", "memcpy"}, {}};
  code.functions["edge"] = {"h-edge", {}, {}};
  return code;
}

}  // namespace

TEST_CASE("honest steps break no rule, a helper shared with the best function included") {
  CHECK(check_step_rules(two_steps(), honest()).empty());
}

TEST_CASE("a step that reaches the best function, directly or through a helper, is caught") {
  SubmissionCode code = honest();
  SUBCASE("directly") { code.functions["mm_ikj"].calls.insert("mm_best"); }
  SUBCASE("through a helper") {
    code.functions["mm_ikj"].calls.insert("trampoline");
    code.functions["trampoline"] = {"h-t", {"mm_best"}, {}};
  }
  const auto findings = check_step_rules(two_steps(), code);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].variant == "ikj");
  CHECK(findings[0].what.find("mm_ikj calls mm_best") != std::string::npos);
}

TEST_CASE("a step that reaches another step is caught, whichever was declared first") {
  SubmissionCode code = honest();
  code.functions["mm_ijk"].calls.insert("mm_ikj");
  const auto findings = check_step_rules(two_steps(), code);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].variant == "ijk");
}

TEST_CASE("a step that compiles to the same code as the best function, or an earlier step, is caught") {
  SUBCASE("a copy of the best function") {
    SubmissionCode code = honest();
    code.functions["mm_ikj"] = code.functions["mm_best"];
    const auto findings = check_step_rules(two_steps(), code);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].variant == "ikj");
    CHECK(findings[0].what.find("same code as mm_best") != std::string::npos);
  }
  SUBCASE("both wrappers of one helper under other names: the same code") {
    SubmissionCode code = honest();
    code.functions["mm_best"] = {"h-wrap", {"impl_a"}, {}};
    code.functions["impl_a"] = {"h-impl", {}, {}};
    code.functions["mm_ikj"] = {"h-wrap", {"impl_b"}, {}};
    code.functions["impl_b"] = {"h-impl", {}, {}};
    CHECK(check_step_rules(two_steps(), code).size() == 1);
  }
  SUBCASE("the first step and the best function alike: the first step keeps its points (a skeleton's start)") {
    SubmissionCode code = honest();
    code.functions["mm_ijk"] = code.functions["mm_best"];
    CHECK(check_step_rules(two_steps(), code).empty());
  }
  SUBCASE("the best function deferring to a step (calling it) is no copy of the best function in that step") {
    SubmissionCode code = honest();
    code.functions["mm_best"] = {"h-best", {"mm_ikj"}, {}};
    CHECK(check_step_rules(two_steps(), code).empty());
  }
  SUBCASE("two steps alike: the one declared first keeps its points (a skeleton's copies of its first step)") {
    SubmissionCode code = honest();
    code.functions["mm_ikj"] = code.functions["mm_ijk"];
    const auto findings = check_step_rules(two_steps(), code);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].variant == "ikj");
    CHECK(findings[0].what.find("same code as mm_ijk") != std::string::npos);
  }
}

TEST_CASE("a step whose function the objects do not define is left to the other rules") {
  SubmissionCode code = honest();
  code.functions.erase("mm_ikj");
  CHECK(check_step_rules(two_steps(), code).empty());
}

TEST_CASE("GPU steps: the facts of every kernel a step can launch") {
  StepsSpec steps;
  steps.best = "reduce_best";
  steps.forbid = {"tensor_core"};
  steps.steps.push_back(StepRule{"sequential", "reduce_sequential", {"shared_memory", "barriers"}, {"shuffles"}, "", {}, 0, 1, 1});
  steps.steps.push_back(StepRule{"shuffle", "reduce_shuffle", {"shuffles"}, {}, "", {}, 0, 2, 1});
  SubmissionCode code;
  code.functions["reduce_sequential"] = {"h1", {}, {"sequential_kernel"}};
  code.functions["reduce_shuffle"] = {"h2", {}, {"shuffle_kernel"}};
  code.functions["reduce_best"] = {"h3", {}, {"best_kernel"}};
  code.kernels["sequential_kernel"].facts = {"shared_memory", "barriers"};
  code.kernels["shuffle_kernel"].facts = {"shuffles", "shared_memory", "barriers"};
  code.kernels["best_kernel"].facts = {"shuffles", "vector_loads"};
  CHECK(check_step_rules(steps, code).empty());

  SUBCASE("launching the best function's kernel: the same kernels") {
    code.functions["reduce_shuffle"].launches = {"best_kernel"};
    const auto findings = check_step_rules(steps, code);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].what.find("reduce_shuffle launches the same kernels as reduce_best") != std::string::npos);
  }
  SUBCASE("the first step launching the best function's kernel: its facts catch it") {
    code.functions["reduce_sequential"].launches = {"best_kernel"};
    const auto findings = check_step_rules(steps, code);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].variant == "sequential");
  }
  SUBCASE("a kernel that lacks a required fact") {
    code.kernels["sequential_kernel"].facts = {"barriers"};
    const auto findings = check_step_rules(steps, code);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].what.find("uses shared memory, which this step requires") != std::string::npos);
  }
  SUBCASE("a kernel that shows a forbidden fact, its own or the lab's") {
    code.kernels["sequential_kernel"].facts.insert("shuffles");
    code.kernels["shuffle_kernel"].facts.insert("tensor_core");
    const auto findings = check_step_rules(steps, code);
    REQUIRE(findings.size() == 2);
    CHECK(findings[0].what.find("uses warp shuffles") != std::string::npos);
    CHECK(findings[1].what.find("tensor-core") != std::string::npos);
  }
  SUBCASE("its own kernel plus the best one's: the best one's facts count") {
    code.functions["reduce_sequential"].launches.insert("best_kernel");
    const auto findings = check_step_rules(steps, code);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].what.find("best_kernel") != std::string::npos);
  }
  SUBCASE("no kernel at all, where the step only forbids facts (a launch through a pointer)") {
    steps.steps[0].requires_facts.clear();
    code.functions["reduce_sequential"].launches.clear();
    const auto findings = check_step_rules(steps, code);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].what.find("launches no kernel") != std::string::npos);
  }
  SUBCASE("no kernel at all, where the step requires facts") {
    code.functions["reduce_shuffle"].launches.clear();
    const auto findings = check_step_rules(steps, code);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].what.find("launches no kernel") != std::string::npos);
  }
}

TEST_CASE("a caught step loses every item that grades it, correctness included, in the report") {
  LabSpec spec;
  spec.correctness.push_back(CorrectnessItem{"ijk", 5, {"ijk"}, {}, {}, {}, {}});
  spec.correctness.push_back(CorrectnessItem{"best", 10, {"best"}, {}, {}, {}, {}});
  PerformanceItem timed;
  timed.name = "ijk timed";
  timed.variant = "ijk";
  spec.performance.push_back(timed);
  Report report;
  report.tests.push_back({"ijk", TestKind::correctness, Verdict::passed, 5, 5, "", Visibility::visible, {}, {}, {}});
  report.tests.push_back({"best", TestKind::correctness, Verdict::passed, 10, 10, "", Visibility::visible, {}, {}, {}});
  report.tests.push_back({"ijk timed", TestKind::performance, Verdict::passed, 20, 20, "2.1x", Visibility::visible, {}, {}, {}});
  apply_step_findings(spec, {{"ijk", "mm_ijk calls mm_best"}}, report);
  CHECK(report.tests[0].verdict == Verdict::not_this_step);
  CHECK(report.tests[0].score == 0);
  CHECK(report.tests[0].details.find("mm_ijk calls mm_best") != std::string::npos);
  CHECK(report.tests[1].verdict == Verdict::passed);
  CHECK(report.tests[1].score == 10);
  CHECK(report.tests[2].verdict == Verdict::not_this_step);
  CHECK(report.tests[2].score == 0);
  CHECK(report.tests[2].details.find("2.1x") != std::string::npos);  // what it measured is still said
}

TEST_CASE("the substitution renames every step's own definition and makes its symbol jump to the best one") {
  StepsSpec steps = two_steps();
  const std::map<std::string, std::string> files{{"mm.cpp", "#include \"mm.h\"\nvoid mm_ijk() {}\n"},
                                                 {"other.cpp", "void mm_ikj() {}\n"}};
  const std::map<std::string, std::string> symbols{{"mm_best", "_Z7mm_bestv"}, {"mm_ijk", "_Z6mm_ijkv"}, {"mm_ikj", "_Z6mm_ikjv"}};
  const auto out = substituted_sources(steps, files, symbols, "mm.cpp");
  REQUIRE(out.size() == 2);
  for (const auto& [name, text] : out) {
    CAPTURE(name);
    CHECK(text.find("#define mm_ijk " + replaced_name("mm_ijk") + "\n") == text.find("#define"));  // first of all
    CHECK(text.find("#define mm_ikj " + replaced_name("mm_ikj")) != std::string::npos);
    CHECK(text.find("#line 1\n" + files.at(name)) != std::string::npos);  // the reference's own text follows
  }
  const std::string& best_file = out.at("mm.cpp");
  CHECK(best_file.find("_Z6mm_ijkv:") != std::string::npos);
  CHECK(best_file.find("_Z6mm_ikjv:") != std::string::npos);
  CHECK(best_file.find(" _Z7mm_bestv\\n") != std::string::npos);
  CHECK(out.at("other.cpp").find("__asm__") == std::string::npos);
  CHECK_THROWS_AS(substituted_sources(steps, files, {{"mm_best", "_Z7mm_bestv"}}, "mm.cpp"), std::invalid_argument);
  CHECK_THROWS_AS(substituted_sources(steps, files, {{"mm_best", "a\\n.globl x"}, {"mm_ijk", "b"}, {"mm_ikj", "c"}}, "mm.cpp"),
                  std::invalid_argument);
}

TEST_CASE("a band reads the ratios of calls timed in one round: a round slowed on both sides keeps its ratio") {
  Measurement measured;
  measured.baseline.seconds = {4, 8, 4.4, 8.8, 4};  // other work doubles some rounds, on both sides
  measured.candidate.seconds = {1, 2, 1.1, 2.2, 1};
  measured.speedup_low = 4.0 / 2.0;  // crossed quartiles: the judge's fast rounds against the candidate's slow ones
  CHECK(least_favourable_speedup(measured) == doctest::Approx(4.0));
  SUBCASE("one round slower on the candidate's side only: the lower quartile moves little") {
    measured.candidate.seconds[1] = 4;
    CHECK(least_favourable_speedup(measured) == doctest::Approx(4.0));
  }
  SUBCASE("counts that differ: the crossed quartiles") {
    measured.candidate.seconds.pop_back();
    CHECK(least_favourable_speedup(measured) == doctest::Approx(2.0));
  }
}
