// test_spec_steps.cpp: lab.toml's [steps] (spec/spec_steps.cpp): what a step is, read with positions, and a lab's
// mistakes refused where they are written; the real stepwise labs parse into the steps they state.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "spec/lab_spec.h"

namespace fs = std::filesystem;
using namespace grader;

namespace {

// A lab directory of its own (labs/lab9-demo), removed at scope exit.
class StepsLab {
 public:
  StepsLab() {
    std::string pattern = (fs::temp_directory_path() / "test_spec_steps-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    root_ = pattern;
    dir_ = root_ / "lab9-demo";
    fs::create_directories(dir_);
    for (const char* file : {"demo.h", "harness.cpp", "baseline.cpp"}) std::ofstream(dir_ / file) << "// " << file << "\n";
  }
  ~StepsLab() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  LabSpec parse(const std::string& text) const {
    std::ofstream(dir_ / "lab.toml") << text;
    return load_lab_spec(dir_);
  }

 private:
  fs::path root_, dir_;
};

// Two steps, "slow" and "fast", of a GPU lab (facts are a GPU lab's); the [steps] section starts on line 25.
std::string lab_with_steps(const std::string& steps, bool gpu = true) {
  return std::string("[lab]\nid = \"lab9\"\nslug = \"demo\"\ntitle = \"Demo\"\ngpu = ") + (gpu ? "true" : "false") +
         "\n\n[build]\nstudent_files = [\"demo.cpp\"]\nheaders = [\"demo.h\"]\nharness = [\"harness.cpp\"]\n"
         "baseline = [\"baseline.cpp\"]\n\n"
         "[[correctness]]\nname = \"slow\"\npoints = 5\nvariants = [\"slow\"]\ncases = [ { name = \"n 10\", params = { n = 10 } } ]\n\n"
         "[[correctness]]\nname = \"fast\"\npoints = 5\nvariants = [\"fast\"]\ncases = [ { name = \"n 10\", params = { n = 10 } } ]\n" +
         steps;
}

void steps_should_fail(const std::string& steps, int line, const std::string& fragment, bool gpu = true) {
  StepsLab lab;
  try {
    lab.parse(lab_with_steps(steps, gpu));
  } catch (const SpecError& error) {
    INFO("error: " << std::string(error.what()));
    CHECK(error.where().line == line);
    CHECK(error.message().find(fragment) != std::string::npos);
    return;
  }
  FAIL("the spec parsed, but should fail at line " << line << " with '" << fragment << "'");
}

}  // namespace

TEST_CASE("a lab without [steps] has none") {
  StepsLab lab;
  CHECK(lab.parse(lab_with_steps("")).steps.empty());
}

TEST_CASE("[steps] reads the best function, the lab's forbidden facts, and each step's rules and band") {
  StepsLab lab;
  const LabSpec spec = lab.parse(lab_with_steps(R"(
[steps]
best = "run_fast"
forbid = ["tensor_core"]

[[steps.step]]
variant = "slow"
function = "run_slow"
requires = ["shared_memory", "barriers"]
forbids = ["shuffles"]
judge = "slow_judge"
params = { n = 4096 }
max_speedup = 2.5
)"));
  REQUIRE(spec.steps.steps.size() == 1);
  CHECK(spec.steps.best == "run_fast");
  CHECK(spec.steps.forbid == std::vector<std::string>{"tensor_core"});
  const StepRule& step = spec.steps.steps.front();
  CHECK(step.variant == "slow");
  CHECK(step.function == "run_slow");
  CHECK(step.requires_facts == std::vector<std::string>{"shared_memory", "barriers"});
  CHECK(step.forbids_facts == std::vector<std::string>{"shuffles"});
  CHECK(step.judge == "slow_judge");
  CHECK(step.max_speedup == 2.5);
  CHECK(evaluate_params(step.params, {{"threads", 1}}).at("n") == 4096);
  CHECK(spec.steps.find("slow") == &step);
  CHECK(spec.steps.find("fast") == nullptr);
}

TEST_CASE("[steps] refuses a lab's mistakes where they are written") {
  const std::string head = "\n[steps]\nbest = \"run_fast\"\n\n[[steps.step]]\n";  // [[steps.step]] on line 28
  SUBCASE("a variant no item grades") {
    steps_should_fail(head + "variant = \"medium\"\nfunction = \"run_medium\"\n", 29, "no [[correctness]]");
  }
  SUBCASE("a fact the reader does not know") {
    steps_should_fail(head + "variant = \"slow\"\nfunction = \"run_slow\"\nrequires = [\"shared_mem\"]\n", 31, "not a fact");
  }
  SUBCASE("facts in a CPU lab") {
    steps_should_fail(head + "variant = \"slow\"\nfunction = \"run_slow\"\nforbids = [\"shuffles\"]\n", 31, "GPU lab", false);
  }
  SUBCASE("a fact both required and forbidden") {
    steps_should_fail(head + "variant = \"slow\"\nfunction = \"run_slow\"\nrequires = [\"shuffles\"]\nforbids = [\"shuffles\"]\n",
                      28, "both requires and forbids");
  }
  SUBCASE("half a timing band") {
    steps_should_fail(head + "variant = \"slow\"\nfunction = \"run_slow\"\njudge = \"slow\"\n", 28, "together");
  }
  SUBCASE("a band whose edge would catch a student who matches the judge") {
    steps_should_fail(head + "variant = \"slow\"\nfunction = \"run_slow\"\njudge = \"slow\"\nparams = { n = 8 }\nmax_speedup = 1\n",
                      33, "above 1");
  }
  SUBCASE("the best function as a step") {
    steps_should_fail(head + "variant = \"fast\"\nfunction = \"run_fast\"\n", 28, "best function");
  }
  SUBCASE("one variant twice") {
    steps_should_fail(head + "variant = \"slow\"\nfunction = \"run_slow\"\n\n[[steps.step]]\nvariant = \"slow\"\nfunction = \"other\"\n",
                      32, "already a step");
  }
  SUBCASE("no step at all") { steps_should_fail("\n[steps]\nbest = \"run_fast\"\nstep = []\n", 27, "at least one"); }
  SUBCASE("an unknown key") {
    steps_should_fail(head + "variant = \"slow\"\nfunction = \"run_slow\"\nmax_speed = 2\n", 31, "max_speed");
  }
}

TEST_CASE("the stepwise labs declare their steps") {
  const fs::path labs = fs::path(TESTS_DIR) / ".." / "labs";
  const LabSpec lab2 = load_lab_spec(labs / "lab2-loop-order");
  CHECK(lab2.steps.best == "matmul_best");
  CHECK(lab2.steps.steps.size() == 6);
  const LabSpec lab4 = load_lab_spec(labs / "lab4-blocking");
  REQUIRE(lab4.steps.find("blocked") != nullptr);
  CHECK(lab4.steps.find("blocked")->judge == "cache_blocked");
  const LabSpec lab8 = load_lab_spec(labs / "lab8-reductions");
  REQUIRE(lab8.steps.find("sequential") != nullptr);
  CHECK(lab8.steps.find("sequential")->forbids_facts == std::vector<std::string>{"shuffles"});
}
