// build.h: pipeline stage 3. The lab's own objects (harness, lab kit runtime, baseline) are built once per
// lab, compiler and flags, and cached; grading a submission compiles only the student's files and links.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/environment.h"
#include "report/verdict.h"
#include "spec/lab_spec.h"

namespace grader {

// The lab's own code failed to build: the lab is broken, not the submission (an internal error).
class LabBuildError : public std::runtime_error {
 public:
  LabBuildError(const std::string& message, std::string log) : std::runtime_error(message), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

// A lab with its own code compiled: the judge executable and the objects a candidate links with.
struct LabBuild {
  std::filesystem::path dir;  // the cache entry
  std::vector<std::filesystem::path> harness_objects;   // harness + lab kit runtime
  std::vector<std::filesystem::path> baseline_objects;
  std::filesystem::path judge;
  std::string gpu_arch;       // "sm_90" for CUDA labs
  bool reused = false;        // found in the cache
};

// The toolchain a lab needs is missing (no nvcc for a CUDA lab): the environment, not the lab or student.
class MissingToolchain : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

LabBuild build_lab(const Environment& env, const LabSpec& spec);

// The name of the lab's cache entry (<cache>/labs/<lab>-<key>): a hash of what the lab's objects depend on.
std::string lab_cache_key(const Environment& env, const LabSpec& spec, const std::string& gpu_arch);

// Whether `flags` let the compiler choose the instruction set from the CPU it runs on (-march=native, -mtune=native,
// -mcpu=native, also inside nvcc's -Xcompiler): objects built so are only good on CPUs of the same kind, and the
// cache key then holds native_cpu_target.
bool tunes_for_this_cpu(const std::vector<std::string>& flags);

// What -march=native resolves to for `cxx` on this machine: GCC's `-march=native -Q --help=target` (the CPU name,
// every extension on or off), else the predefined macros (Clang). Asked once per compiler file and process; empty
// when the compiler says neither.
std::string native_cpu_target(const std::string& cxx);

struct CandidateBuild {
  Verdict verdict = Verdict::passed;  // passed or build_error
  std::string log;                    // the compiler's own words
  std::vector<std::filesystem::path> student_objects;
  std::filesystem::path executable;
};

// Compiles the staged student sources in `workdir` with the lab's flags (objects only: the link policy
// reads and rewrites them before anything is linked).
// `extra_flags` follow the lab's (a correctness item's build_flags); each build named `name` has its own
// objects (workdir/obj-<name>) and executable (workdir/<name>).
CandidateBuild compile_candidate(const Environment& env, const LabSpec& spec, const LabBuild& lab,
                                 const std::vector<std::filesystem::path>& sources, const std::filesystem::path& workdir,
                                 const std::vector<std::string>& extra_flags = {}, const std::string& name = "candidate");

// Links the compiled student objects with the lab's harness into build.executable (workdir/<name>).
// `extra_flags` go on the link line too (-fsanitize=address needs its runtime).
void link_candidate(const Environment& env, const LabSpec& spec, const LabBuild& lab, CandidateBuild& build,
                    const std::filesystem::path& workdir, const std::string& name = "candidate",
                    const std::vector<std::string>& extra_flags = {});

// How the compiler's predefined macros (`-dM -E`) differ when `extra_flags` (an item's build_flags) follow the lab's
// flags: "without __OPTIMIZE__ 1" for -O0. Empty when they do not: code cannot then tell that build from
// the graded one by the preprocessor. Throws std::runtime_error when the compiler cannot say.
std::vector<std::string> build_flag_macro_changes(const Environment& env, const LabSpec& spec,
                                                  const std::vector<std::string>& extra_flags);

// The compute capability of the first CUDA GPU ("sm_90"), or empty when none answers; nvidia-smi is asked once a
// process.
std::string detect_gpu_arch();

}  // namespace grader
