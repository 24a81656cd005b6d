// lab_spec.h: one lab's lab.toml, validated into one typed structure (pipeline stage 1).
//
// Every key the grader reads is listed in docs/lab-toml.md; the parser refuses keys it does not know, so a
// typo in a lab.toml is an error with its position rather than a silently ignored setting.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/condition.h"
#include "spec/expr.h"
#include "spec/steps_spec.h"

namespace grader {

struct SourcePosition {
  std::string file;
  int line = 0;
  int column = 0;
};
std::string to_string(const SourcePosition& where);  // "labs/lab1-matvec/lab.toml:12:5"; line 0: the file alone

// A lab.toml that cannot be read or is not valid. what() reads "file:line:column: message".
class SpecError : public std::runtime_error {
 public:
  SpecError(SourcePosition where, const std::string& message);
  const SourcePosition& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourcePosition where_;
  std::string message_;
};

// Who may see a case or a benchmark: students' local runs grade only visible ones (and say how many
// hidden ones exist); hidden ones run when staff grade; after_due_date ones are shown once grades are out.
enum class Visibility { visible, hidden, after_due_date };
std::string_view to_string(Visibility visibility);  // "visible", "hidden", "after_due_date"

// |got - expected| <= atol + rtol * |expected|, element by element. NaN never passes.
struct Tolerance {
  double rtol = 1e-12;
  double atol = 0.0;
};

// One parameter of a case or benchmark. Its value is an expression over the machine's variables
// (`threads`: hardware threads the grader may use) so one lab.toml can size work to the machine.
struct Param {
  std::string name;
  Expr value;
  bool real = false;  // written as a decimal number (alpha = 0.5): not a size, so it need not be a whole number
};

// The machine's variables plus every parameter's value, each parameter evaluated after those it reads (a
// parameter may read `threads` and the other parameters of its table; the parser refuses cycles).
// Throws ExprEvalError.
//
//   evaluate_params({{"n", Expr::parse("2*m")}, {"m", Expr::constant(8)}}, {{"threads", 4}})
//   // {{"m", 8}, {"n", 16}, {"threads", 4}}
Variables evaluate_params(const std::vector<Param>& params, const Variables& machine);

struct CaseSpec {
  std::string name;
  std::vector<Param> params;
  std::string dataset;  // an entry of datasets/<lab>/manifest.toml; empty for cases generated from a seed
  Visibility visibility = Visibility::visible;
  std::optional<Tolerance> tolerance;  // overrides the item's and the lab's
  SourcePosition where;
};

// Points when every case passes with every listed variant.
struct CorrectnessItem {
  std::string name;
  double points = 0;
  std::vector<std::string> variants;  // the harness's implementation names
  std::vector<CaseSpec> cases;
  std::optional<Tolerance> tolerance;
  // Compiler flags added after [build] flags for the student's files, for this item's cases only: the
  // grader builds the submission once more and runs these cases in that build (lab3: -O0, where every
  // shared variable lives in memory, so a data race the optimiser happens to hide still shows).
  std::vector<std::string> build_flags;
  SourcePosition where;
};

enum class Metric {
  speedup,   // baseline time / candidate time
  roofline,  // achieved rate / this machine's calibrated peak for whichever of flops or bytes binds
};
std::string_view to_string(Metric metric);

// Points reach `points` when the metric reaches `at`; linear between tiers, 0 below the first tier's `at`
// (unless the first tier has points itself), the last tier's points above it.
struct Tier {
  Expr at;
  double points = 0;
  SourcePosition where;
};

// A next step for a student whose timed result sits below `below` on the figure `of` (the speedup, or the fraction
// of the roofline), and whose code shows what `when` says (conditions on facts and counters, inspect/fact_list.h):
// the report shows the first hint, in file order, that applies. A hint has a `below`, a `when`, or both.
struct Hint {
  Metric of = Metric::speedup;  // the item's own metric unless the hint names the other
  std::optional<Expr> below;
  std::vector<Condition> when;  // all must hold; one naming a fact that was not read does not
  std::string text;
  SourcePosition where;
};

// What the candidate is compared with. Usually the judge's baseline implementation; for scaling
// labs, the candidate itself with other parameters (one thread, for example).
struct BaselineSpec {
  enum class Process { judge, candidate };
  Process process = Process::judge;
  std::string variant;        // empty: the same variant name as the candidate's
  std::vector<Param> params;  // overrides of the item's params
  // A judge variant timed on the same inputs that caps the baseline's time: the yardstick is the faster of
  // the two, so a candidate baseline cannot be bought by slowing it down. Empty: no cap.
  std::string cap;
  // The baseline is the judge's own code for the item's function (lab 4's ikj: the oracle's very loop). Its calls
  // then get the candidate's fresh inputs, call for call, and the outputs of its last call in a round are the
  // expected outputs of the candidate's last call: no replay by the oracle (docs/design.md, "Measuring").
  bool oracle = false;
};

struct PerformanceItem {
  std::string name;
  std::string variant;
  std::vector<Param> params;
  BaselineSpec baseline;
  std::vector<std::string> compare;  // judge variants timed for the report only (cuBLAS, CUB, OpenBLAS)
  // A judge variant no honest code beats (lab 6's copy_only: the transfer bound), timed in the same run: a
  // candidate more than 1.5 times faster is SUSPECT. Empty: the roofline (flops, bytes) is the ceiling.
  std::string bound;
  std::optional<Expr> flops;         // per call, over params and machine variables
  std::optional<Expr> bytes;         // fewest bytes one call must move
  Metric metric = Metric::speedup;
  // Which calibrated peak bounds `flops` on a GPU ("fp32": SGEMM's rate, "fp64": DGEMM's). CPU labs
  // compare with the FP64 peak.
  std::string precision = "fp64";
  // Which calibrated memory ceiling bounds `bytes`: a kernel that only reads (a dot product, a GEMV, a
  // reduction) outruns copy and triad, so it is held to the read-only bandwidth; the default is read-write.
  bool read_only_memory = false;
  // The least value of a machine variable this item needs to be measured fairly, e.g. memory_scaling 1.4:
  // a memory-bound scaling item cannot be told from noise where all threads read barely more than one.
  // Where the machine falls short, the item is not timed and its points leave the total (the report says why).
  std::map<std::string, double> requires_machine;
  // CPU threads the timed call uses: 1 compares with the one-thread ceilings, more with the all-thread
  // ones. An expression over params and `threads`, e.g. "nthreads".
  Expr cpu_threads = Expr::constant(1);
  std::vector<Tier> tiers;           // ascending `at`
  std::vector<Hint> hints;           // in file order; the first that applies is shown
  std::vector<std::string> requires_items;  // correctness items that must pass; empty: every item with this variant
  Visibility visibility = Visibility::visible;
  std::optional<Tolerance> tolerance;  // for the check of the timed call's outputs
  SourcePosition where;

  double max_points() const;
};

struct BuildSpec {
  std::string language = "c++";             // "c++" or "cuda"
  std::vector<std::string> student_files;   // file names read from the submission, nothing else
  std::vector<std::string> headers;         // student-facing headers in the lab directory
  std::vector<std::string> harness;         // sources in the lab directory, built once and cached
  std::vector<std::string> baseline;        // the judge's implementation, in the lab directory
  std::vector<std::string> flags;           // compile flags for student, harness and baseline alike
  std::vector<std::string> link_flags;      // for example -fopenmp: the judge and the candidate
  std::vector<std::string> judge_link_flags;  // the judge only (-lcublas): the candidate is not linked with them
  std::size_t max_file_bytes = 256 * 1024;  // per student file
};

struct PolicySpec {
  std::vector<std::string> forbid;  // globs of undefined symbols refused on top of the grader's defaults
  std::vector<std::string> allow;   // globs taken out of the grader's default refusals
  std::vector<std::string> forbid_headers;  // globs of header paths student code may not include (*/cub/*)
};

struct LimitSpec {
  double wall_seconds = 120;
  double cpu_seconds = 300;
  std::size_t memory_mb = 4096;
  std::size_t output_kb = 64;  // stdout and stderr each
  int processes = 64;          // processes and threads
  std::size_t file_mb = 64;
  int open_files = 64;
};

struct TimingSpec {
  int warmup = 1;
  int min_reps = 5;
  int max_reps = 40;
  double max_seconds = 3.0;      // per performance item, candidate and baseline together
  double target_noise = 0.03;    // stop once both sides' spread (IQR / median) is under this
  // Per item: how long it may be measured again while its metric's confidence interval holds a tier threshold
  // (pipeline/performance.cpp); 0 turns measuring again off.
  double noise_retry_seconds = 10.0;
};

// A name for a part of an expression, for the reader of a handout's generated "What is graded" tables
// (handout/graded_table.h, `grader handout`): every part of a tier or parameter equal to `means` is written as `name`,
// and a line under the table says what it is. It changes nothing that is graded.
struct HandoutName {
  std::string name;  // "P"
  Expr means;        // over machine variables: "min(min(max(threads, 2), 16), cpu_scaling)"
  std::string text;  // "the hardware threads, 2 to 16, at most the calibrated cpu_scaling"
  SourcePosition where;
};

struct LabSpec {
  std::string id;     // "lab1"
  std::string slug;   // "matvec"
  std::string title;
  bool gpu = false;
  // Hidden cases and benchmarks that `grader release` cut out of this copy of lab.toml: a student's report
  // still says how many the staff grade with. 0 in the staff repository, where they are all present.
  int withheld = 0;
  std::filesystem::path dir;  // the lab's directory; its name is "<id>-<slug>"
  std::filesystem::path file;  // the lab.toml it came from
  BuildSpec build;
  PolicySpec policy;
  LimitSpec limits;
  TimingSpec timing;
  Tolerance tolerance;
  std::vector<CorrectnessItem> correctness;
  std::vector<PerformanceItem> performance;
  std::vector<HandoutName> handout_names;  // [handout] names, in file order
  StepsSpec steps;                         // [steps]: what each step is (spec/steps_spec.h)

  std::string name() const { return id + "-" + slug; }
  double max_score() const;
};

// Parses and validates text as the lab.toml at `path` (path is used in messages and to check that the
// directory is named "<id>-<slug>"). Throws SpecError.
LabSpec parse_lab_spec(std::string_view text, const std::filesystem::path& path);

// Reads <lab_dir>/lab.toml. Throws SpecError (a missing or unreadable file is one too, at line 0).
LabSpec load_lab_spec(const std::filesystem::path& lab_dir);

// Every key path the parser accepts ("lab.id", "correctness[].cases[].dataset", ...), so a test can
// prove docs/lab-toml.md lists each one.
const std::vector<std::string>& known_spec_keys();

// An element of performance[].compare written "candidate:<variant>" times the student's own variant; any other
// names a judge variant.
inline constexpr std::string_view candidate_compare_prefix = "candidate:";

// The values with a meaning of their own, by key path: the parser accepts exactly these for a choice
// ("judge", "candidate" for performance[].baseline.process), and lists the forms of a free value
// ("candidate:<variant>" in performance[].compare), so a test can prove docs/lab-toml.md shows each one.
const std::vector<std::string>& known_spec_values(std::string_view key);
const std::vector<std::pair<std::string, std::vector<std::string>>>& known_spec_value_forms();

}  // namespace grader
