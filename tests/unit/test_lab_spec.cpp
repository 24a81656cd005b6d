#include <doctest/doctest.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "spec/lab_spec.h"

namespace fs = std::filesystem;
using namespace grader;

namespace {

// A lab directory in a fresh temporary folder, holding the lab files the demo spec lists; removed at scope exit.
class TempLab {
 public:
  explicit TempLab(const std::string& name = "lab9-demo") {
    std::string pattern = (fs::temp_directory_path() / "test_lab_spec-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    root_ = pattern;
    dir_ = root_ / name;
    fs::create_directories(dir_);
    for (const char* file : {"demo.h", "harness.cpp", "baseline.cpp"})
      std::ofstream(dir_ / file) << "// " << file << "\n";
  }
  ~TempLab() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  TempLab(const TempLab&) = delete;
  TempLab& operator=(const TempLab&) = delete;

  fs::path lab_toml() const { return dir_ / "lab.toml"; }
  LabSpec parse(const std::string& text) const {
    std::ofstream(lab_toml()) << text;
    return load_lab_spec(dir_);
  }

 private:
  fs::path root_;
  fs::path dir_;
};

// The smallest valid spec; the failing cases below are one edit of it, so their line numbers are these.
const std::string demo_spec = R"([lab]
id = "lab9"
slug = "demo"
title = "Demo"

[build]
student_files = ["demo.cpp"]
headers = ["demo.h"]
harness = ["harness.cpp"]
baseline = ["baseline.cpp"]

[[correctness]]
name = "small"
points = 10
variants = ["fast"]
cases = [ { name = "n 10", params = { n = 10 } } ]

[[performance]]
name = "fast speedup"
variant = "fast"
params = { n = 1000 }
flops = "2*n"
tiers = [ { at = 1.5, points = 0 }, { at = 3, points = 10 } ]
)";
//  line 16 is `cases`, line 22 `flops`, line 23 `tiers`.

// `text` with its only occurrence of `from` replaced by `to`.
std::string edit(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "the demo spec has no '" << from << "'");
  REQUIRE_MESSAGE(text.find(from, at + 1) == std::string::npos, "'" << from << "' occurs twice in the demo spec");
  return text.replace(at, from.size(), to);
}

// Parses `text` as labs/lab9-demo/lab.toml (or another directory name) and checks that it fails at
// line:column with a message containing `fragment`.
void spec_should_fail(const std::string& text, int line, int column, const std::string& fragment,
                      const std::string& directory = "lab9-demo") {
  TempLab lab(directory);
  try {
    lab.parse(text);
  } catch (const SpecError& error) {
    INFO("error: " << std::string(error.what()));
    CHECK(error.where().file == lab.lab_toml().string());
    CHECK(error.where().line == line);
    CHECK(error.where().column == column);
    CHECK(error.message().find(fragment) != std::string::npos);
    CHECK(std::string(error.what()).rfind(to_string(error.where()) + ": ", 0) == 0);
    return;
  }
  FAIL("the spec parsed, but should fail at " << line << ":" << column << " with '" << fragment << "'");
}

double value_of(const std::vector<Param>& params, const std::string& name) {
  return evaluate_params(params, {{"threads", 1}}).at(name);
}

}  // namespace

TEST_CASE("the real lab1 lab.toml parses into the values it states") {
  const LabSpec spec = load_lab_spec(fs::path(TESTS_DIR) / ".." / "labs" / "lab1-matvec");

  CHECK(spec.id == "lab1");
  CHECK(spec.slug == "matvec");
  CHECK(spec.name() == "lab1-matvec");
  CHECK_FALSE(spec.gpu);
  CHECK(spec.dir.filename() == "lab1-matvec");

  CHECK(spec.build.language == "c++");
  CHECK(spec.build.student_files == std::vector<std::string>{"matvec.cpp"});
  CHECK(spec.build.harness == std::vector<std::string>{"harness.cpp"});
  CHECK(spec.build.flags == std::vector<std::string>{"-O2", "-march=native"});
  CHECK(spec.build.max_file_bytes == 256 * 1024);

  CHECK(spec.limits.cpu_seconds == 240);
  CHECK(spec.limits.processes == 16);
  CHECK(spec.limits.open_files == LimitSpec{}.open_files);  // not in the file: the default
  CHECK(spec.timing.max_reps == 30);
  CHECK(spec.timing.max_seconds == 4.0);
  CHECK(spec.tolerance.atol == 1e-10);

  REQUIRE(spec.correctness.size() == 3);
  const CorrectnessItem& rowptr = spec.correctness[0];
  CHECK(rowptr.name == "row pointers");
  CHECK(rowptr.points == 10);
  CHECK(rowptr.variants == std::vector<std::string>{"rowptr"});
  REQUIRE(rowptr.cases.size() == 4);
  CHECK(rowptr.cases[0].dataset == "square-8");
  CHECK(rowptr.cases[0].params.empty());
  CHECK(value_of(rowptr.cases[1].params, "m") == 100);
  CHECK(rowptr.cases[3].visibility == Visibility::hidden);
  CHECK(rowptr.cases[1].visibility == Visibility::visible);

  REQUIRE(spec.performance.size() == 2);
  const PerformanceItem& bandwidth = spec.performance[1];
  CHECK(bandwidth.variant == "unrolled");
  CHECK(bandwidth.metric == Metric::speedup);
  CHECK(bandwidth.baseline.process == BaselineSpec::Process::judge);
  CHECK(bandwidth.baseline.variant == "tuned");
  CHECK(bandwidth.bound == "read_a");
  REQUIRE(bandwidth.flops);
  CHECK(bandwidth.flops->text() == "2*m*n");
  CHECK(bandwidth.bytes->evaluate(evaluate_params(bandwidth.params, {{"threads", 2}})) == 8.0 * (1e8 + 2e4));
  REQUIRE(bandwidth.tiers.size() == 2);
  CHECK(bandwidth.tiers[0].at.evaluate({}) == 0.55);
  CHECK(bandwidth.read_only_memory);  // a matrix-vector product only reads: the read-only ceiling
  CHECK(bandwidth.max_points() == 20);
  CHECK(spec.performance[0].metric == Metric::speedup);
  CHECK(spec.max_score() == 80);
}

TEST_CASE("the demo spec parses, and what it leaves out takes the documented defaults") {
  TempLab lab;
  const LabSpec spec = lab.parse(demo_spec);
  CHECK(spec.title == "Demo");
  CHECK(spec.build.language == "c++");
  CHECK(spec.build.max_file_bytes == BuildSpec{}.max_file_bytes);
  CHECK(spec.timing.min_reps == TimingSpec{}.min_reps);
  CHECK(spec.tolerance.rtol == Tolerance{}.rtol);
  CHECK_FALSE(spec.correctness[0].tolerance.has_value());
  CHECK(spec.performance[0].baseline.variant.empty());
  CHECK(spec.performance[0].requires_items.empty());
  CHECK(spec.performance[0].tiers[1].where.line == 23);
  CHECK(spec.max_score() == 20);
}

TEST_CASE("a spec that uses every key parses, and tolerances inherit what they leave out") {
  TempLab lab;
  const LabSpec spec = lab.parse(R"toml([lab]
id = "lab9"
slug = "demo"
title = "Demo"
gpu = true

[build]
language = "cuda"
student_files = ["demo.cu"]
headers = ["demo.h"]
harness = ["harness.cpp"]
baseline = ["baseline.cpp"]
flags = ["-O3"]
link_flags = ["-lcublas"]
max_file_kb = 64

[policy]
forbid = ["cublas*"]
allow = ["fork"]

[limits]
wall_seconds = 60
cpu_seconds = 90.5
memory_mb = 2048
output_kb = 32
processes = 8
file_mb = 16
open_files = 32

[timing]
warmup = 0
min_reps = 3
max_reps = 3
max_seconds = 2
target_noise = 0.05

[tolerance]
rtol = 1e-6
atol = 1e-9

[[correctness]]
name = "small"
points = 5
variants = ["fast", "faster"]
build_flags = ["-O0", "-fno-inline"]
tolerance = { atol = 1e-3 }
cases = [
  { name = "n 10", params = { n = 10, m = "2*n + threads" }, visibility = "after_due_date", tolerance = { rtol = 0.5 } },
  { name = "public", dataset = "tiny" },
]

[[performance]]
name = "faster scaling"
variant = "faster"
params = { n = 4096, nthreads = "threads" }
baseline = { process = "candidate", variant = "faster", params = { nthreads = 1 } }
compare = ["cublas"]
flops = "2*n^2"
bytes = "8*n"
metric = "roofline"
tiers = [ { at = 0.5, points = 0 }, { at = "max(0.6, min(0.9, 0.1*nthreads))", points = 7.5 } ]
hints = [ { below = 0.3, text = "first" }, { of = "speedup", below = "0.5*nthreads", text = "second" }, { below = 0.9, text = "third" } ]
requires = ["small"]
visibility = "hidden"
tolerance = { rtol = 1e-4, atol = 0 }
)toml");
  CHECK(spec.gpu);
  CHECK(spec.build.language == "cuda");
  CHECK(spec.build.max_file_bytes == 64 * 1024);
  CHECK(spec.policy.forbid == std::vector<std::string>{"cublas*"});
  CHECK(spec.limits.cpu_seconds == 90.5);
  CHECK(spec.timing.warmup == 0);

  const CorrectnessItem& item = spec.correctness[0];
  CHECK(item.build_flags == std::vector<std::string>{"-O0", "-fno-inline"});
  REQUIRE(item.tolerance);
  CHECK(item.tolerance->rtol == 1e-6);  // from [tolerance]
  CHECK(item.tolerance->atol == 1e-3);
  REQUIRE(item.cases[0].tolerance);
  CHECK(item.cases[0].tolerance->rtol == 0.5);
  CHECK(item.cases[0].tolerance->atol == 1e-3);  // from the item
  CHECK(item.cases[0].visibility == Visibility::after_due_date);
  // Parameters keep the order they were written in, and may read each other and `threads`.
  REQUIRE(item.cases[0].params.size() == 2);
  CHECK(item.cases[0].params[0].name == "n");
  CHECK(evaluate_params(item.cases[0].params, {{"threads", 4}}).at("m") == 24);

  const PerformanceItem& perf = spec.performance[0];
  CHECK(perf.baseline.process == BaselineSpec::Process::candidate);
  REQUIRE(perf.baseline.params.size() == 1);
  CHECK(perf.baseline.params[0].name == "nthreads");
  CHECK(perf.compare == std::vector<std::string>{"cublas"});
  CHECK(perf.requires_items == std::vector<std::string>{"small"});
  CHECK(perf.visibility == Visibility::hidden);
  CHECK_FALSE(perf.tiers[1].at.is_constant());
  CHECK(perf.max_points() == 7.5);
  CHECK(spec.max_score() == 12.5);
  // Hints keep file order; `of` defaults to the item's metric.
  REQUIRE(perf.hints.size() == 3);
  CHECK(perf.hints[0].of == Metric::roofline);
  CHECK(perf.hints[1].of == Metric::speedup);
  CHECK(perf.hints[2].text == "third");
  CHECK(perf.hints[1].where.line > 0);
}

TEST_CASE("every performance item of every lab offers at least two next steps") {
  int labs = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TESTS_DIR) / ".." / "labs")) {
    if (!fs::exists(entry.path() / "lab.toml")) continue;
    ++labs;
    const LabSpec spec = load_lab_spec(entry.path());
    for (const auto& item : spec.performance) {
      INFO(spec.name() << ": " << item.name);
      CHECK(item.hints.size() >= 2);
    }
  }
  CHECK(labs >= 8);
}

TEST_CASE("evaluate_params evaluates parameters after those they read") {
  const std::vector<Param> params{{"n", Expr::parse("2*m")}, {"m", Expr::constant(8)}};
  const Variables values = evaluate_params(params, {{"threads", 4}});
  CHECK(values == Variables{{"m", 8}, {"n", 16}, {"threads", 4}});
  CHECK_THROWS_AS(evaluate_params({{"a", Expr::parse("b")}, {"b", Expr::parse("a")}}, {}), ExprEvalError);
}

TEST_CASE("a missing lab.toml is a SpecError at line 0 naming the file") {
  TempLab lab;
  try {
    load_lab_spec(lab.lab_toml().parent_path());
    FAIL("an absent lab.toml loaded");
  } catch (const SpecError& error) {
    CHECK(error.where().line == 0);
    CHECK(std::string(error.what()).find("lab.toml: cannot read") != std::string::npos);
  }
}

TEST_CASE("malformed specs fail at the line and column of the mistake") {
  SUBCASE("TOML syntax error") { spec_should_fail(edit(demo_spec, "title = \"Demo\"", "title = Demo"), 4, 9, "value"); }
  SUBCASE("unknown key at the top level") {
    spec_should_fail(edit(demo_spec, "[lab]\n", "verbose = true\n[lab]\n"), 1, 1,
                     "unknown key 'verbose' at the top level");
  }
  SUBCASE("unknown key in a table suggests the close one") {
    spec_should_fail(edit(demo_spec, "points = 10\n", "pionts = 10\n"), 14, 1, "did you mean 'points'?");
  }
  SUBCASE("unknown key inside a case") {
    spec_should_fail(edit(demo_spec, "params = { n = 10 }", "parms = { n = 10 }"), 16, 28,
                     "unknown key 'parms' in 'correctness[].cases[]'");
  }
  SUBCASE("wrong type") {
    spec_should_fail(edit(demo_spec, "points = 10\n", "points = \"ten\"\n"), 14, 10,
                     "expected a number for 'points', got a string");
  }
  SUBCASE("missing required key, at the table's position") {
    spec_should_fail(edit(demo_spec, "points = 10\n", ""), 12, 1, "missing required key 'points' in [[correctness]]");
  }
  SUBCASE("bad visibility") {
    spec_should_fail(edit(demo_spec, "params = { n = 10 } }", "params = { n = 10 }, visibility = \"secret\" }"), 16, 62,
                     "expected one of \"visible\", \"hidden\", \"after_due_date\" for 'visibility'");
  }
  SUBCASE("build_flags must be an array of strings") {
    spec_should_fail(edit(demo_spec, "variants = [\"fast\"]\n", "variants = [\"fast\"]\nbuild_flags = \"-O0\"\n"), 16, 15,
                     "expected an array for 'build_flags', got a string");
  }
  SUBCASE("bad metric") {
    spec_should_fail(edit(demo_spec, "flops = \"2*n\"\n", "flops = \"2*n\"\nmetric = \"fastest\"\n"), 23, 10,
                     "expected one of \"speedup\", \"roofline\" for 'metric'");
  }
  SUBCASE("roofline without flops or bytes") {
    spec_should_fail(edit(demo_spec, "flops = \"2*n\"", "metric = \"roofline\""), 22, 10, "needs 'flops' or 'bytes'");
  }
  SUBCASE("expression syntax error, at its character inside the string") {
    spec_should_fail(edit(demo_spec, "\"2*n\"", "\"2**n\""), 22, 12, "invalid expression \"2**n\" for 'flops'");
  }
  SUBCASE("unknown variable in flops") {
    spec_should_fail(edit(demo_spec, "\"2*n\"", "\"2*k\""), 22, 9,
                     "'flops' reads 'k', which is neither a parameter of this benchmark (n) nor a machine variable");
  }
  SUBCASE("unknown variable in a case parameter") {
    spec_should_fail(edit(demo_spec, "params = { n = 10 }", "params = { n = \"m + 1\" }"), 16, 43, "reads 'm'");
  }
  SUBCASE("parameters that read each other in a cycle") {
    spec_should_fail(edit(demo_spec, "params = { n = 1000 }", "params = { n = \"m\", m = \"2*n\" }"), 21, 16,
                     "parameter 'n' depends on itself: n -> m -> n");
  }
  SUBCASE("tiers that do not ascend") {
    spec_should_fail(edit(demo_spec, "{ at = 3,", "{ at = 1.2,"), 23, 44, "tiers must ascend");
  }
  SUBCASE("tier points that decrease") {
    spec_should_fail(edit(demo_spec, "points = 0 }", "points = 20 }"), 23, 57, "tier points must not decrease");
  }
  SUBCASE("requires naming a missing item") {
    spec_should_fail(edit(demo_spec, "flops = \"2*n\"\n", "flops = \"2*n\"\nrequires = [\"small\", \"big\"]\n"), 23, 22,
                     "'requires' names 'big', but no [[correctness]] item has that name");
  }
  SUBCASE("a benchmark whose variant no correctness item checks") {
    spec_should_fail(edit(demo_spec, "variant = \"fast\"", "variant = \"fastest\""), 20, 11,
                     "no [[correctness]] item checks variant 'fastest'");
  }
  SUBCASE("duplicate item name") {
    spec_should_fail(edit(demo_spec, "[[performance]]\n",
                          "[[correctness]]\nname = \"small\"\npoints = 1\nvariants = [\"fast\"]\n"
                          "cases = [ { name = \"a\", dataset = \"a\" } ]\n\n[[performance]]\n"),
                     19, 8, "another [[correctness]] item is already named 'small' (line 13)");
  }
  SUBCASE("duplicate case name") {
    spec_should_fail(
        edit(demo_spec, "params = { n = 10 } }", "params = { n = 10 } }, { name = \"n 10\", dataset = \"x\" }"), 16, 60,
        "another case of 'small' is already named 'n 10'");
  }
  SUBCASE("a case with both params and dataset") {
    spec_should_fail(edit(demo_spec, "params = { n = 10 } }", "params = { n = 10 }, dataset = \"x\" }"), 16, 49,
                     "not both");
  }
  SUBCASE("a case with neither params nor dataset") {
    spec_should_fail(edit(demo_spec, ", params = { n = 10 } }", " }"), 16, 11, "a case needs 'params'");
  }
  SUBCASE("directory name that does not match id and slug, at the id key") {
    spec_should_fail(demo_spec, 2, 1, "the lab directory is named 'lab9-other', but [lab] id and slug make 'lab9-demo'",
                     "lab9-other");
  }
  SUBCASE("bad lab id") {
    spec_should_fail(edit(demo_spec, "id = \"lab9\"", "id = \"nine\""), 2, 6,
                     "'id' must be \"lab\" followed by digits");
  }
  SUBCASE("missing harness file") {
    spec_should_fail(edit(demo_spec, "harness = [\"harness.cpp\"]", "harness = [\"harness.cpp\", \"missing.cpp\"]"), 9,
                     27, "'missing.cpp' (listed in 'harness') is not a file in the lab directory");
  }
  SUBCASE("student file with a slash") {
    spec_should_fail(edit(demo_spec, "[\"demo.cpp\"]", "[\"src/demo.cpp\"]"), 7, 18, "must be a plain file name");
  }
  SUBCASE("student file named like a lab file") {
    spec_should_fail(edit(demo_spec, "[\"demo.cpp\"]", "[\"demo.cpp\", \"demo.h\"]"), 7, 30,
                     "has the name of a file the lab provides");
  }
  SUBCASE("cuda without gpu") {
    spec_should_fail(edit(demo_spec, "[build]\n", "[build]\nlanguage = \"cuda\"\n"), 7, 12, "needs gpu = true");
  }
  SUBCASE("max_reps below min_reps") {
    spec_should_fail(edit(demo_spec, "[build]\n", "[timing]\nmin_reps = 10\nmax_reps = 5\n\n[build]\n"), 8, 12,
                     "max_reps (5) must be at least min_reps (10)");
  }
  SUBCASE("min_reps above the default max_reps") {
    spec_should_fail(edit(demo_spec, "[build]\n", "[timing]\nmin_reps = 100\n\n[build]\n"), 7, 12, "the default");
  }
  SUBCASE("negative limit") {
    spec_should_fail(edit(demo_spec, "[build]\n", "[limits]\nmemory_mb = 0\n\n[build]\n"), 7, 13,
                     "'memory_mb' must be at least 1, got 0");
  }
  SUBCASE("a baseline override of a parameter the benchmark does not have") {
    spec_should_fail(edit(demo_spec, "flops = \"2*n\"\n", "flops = \"2*n\"\nbaseline = { params = { k = 1 } }\n"), 23,
                     25, "baseline parameter 'k' overrides no parameter of this benchmark (n)");
  }
  SUBCASE("a parameter named like a machine variable") {
    spec_should_fail(edit(demo_spec, "params = { n = 1000 }", "params = { n = 1000, threads = 4 }"), 21, 22,
                     "'threads' is a machine variable");
  }
}

// [handout] names change only how `grader handout` writes expressions; each is checked where it is written.
TEST_CASE("[handout] names are read strictly, at their position") {
  const std::string head = demo_spec + "\n[handout]\nnames = [\n  { name = \"p\", means = \"max(threads, 2)\", text = \"threads\" },\n";
  //  line 25 is [handout], 27 the first name, 28 the second.
  TempLab lab("lab9-demo");
  const LabSpec spec = lab.parse(head + "]\n");
  REQUIRE(spec.handout_names.size() == 1);
  CHECK(spec.handout_names[0].name == "p");
  CHECK(spec.handout_names[0].means.same_as(Expr::parse("max( threads,2 )")));
  CHECK(spec.handout_names[0].where.line == 27);
  SUBCASE("a name that is not a symbol") {
    spec_should_fail(head + "  { name = \"2p\", means = \"threads\", text = \"x\" },\n]\n", 28, 12, "'name' is a symbol");
  }
  SUBCASE("a name whose means reads a parameter") {
    spec_should_fail(head + "  { name = \"q\", means = \"n\", text = \"x\" },\n]\n", 28, 25, "reads 'n'");
  }
  SUBCASE("two names for one expression") {
    spec_should_fail(head + "  { name = \"q\", means = \"max(threads,2)\", text = \"x\" },\n]\n", 28, 25,
                     "\"p\" already names this expression");
  }
  SUBCASE("an unknown key") {
    spec_should_fail(head + "  { name = \"q\", means = \"threads\", txt = \"x\" },\n]\n", 28, 36, "unknown key 'txt'");
  }
}
