// policy.h: pipeline stage 4. Reads the student's object files (readelf) before anything links or runs:
//   - the only global definitions kept are the lab's API (what the lab's baseline defines); every other definition,
//     strong, weak or GNU_UNIQUE, C or C++, inline, template or COMDAT, in any section, is made local (its COMDAT
//     groups dissolved), so nothing of the student's can bind a call of the harness's, the C runtime's or a
//     library's: not std::chrono::steady_clock::now(), not an instantiation the harness also uses. What cannot be
//     made local (a COMMON symbol) is refused;
//   - defining a C library, timer or runtime symbol (clock_gettime, main, omp_get_wtime...) is refused;
//   - calling what the lab does not allow (fork, dlopen, sockets, sanitizer runtimes, cublas* in a GEMM lab...) is
//     refused;
//   - code that runs outside main is refused (policy/startup.h): .init/.fini, constructor and destructor tables,
//     ifuncs and IRELATIVE relocations;
//   - headers the lab forbids (CUB, Thrust, CUTLASS: header-only, so nothing of them need be left to name in
//     the object) are refused from the compiler's dependency list.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/environment.h"
#include "report/verdict.h"
#include "spec/lab_spec.h"

namespace grader {

struct PolicyFinding {
  std::string symbol;  // as the linker sees it
  std::string readable;  // demangled
  std::string rule;    // which rule refused it, in words
  std::string object;  // the student file it came from
};

struct PolicyResult {
  Verdict verdict = Verdict::passed;  // passed or policy_refused
  std::vector<PolicyFinding> findings;
  std::string details;  // one line per finding
  std::vector<std::string> localized;  // student definitions made local
};

// `api_objects`: the lab's baseline objects, whose global definitions are the API. Rewrites student
// objects in place (localizing non-API definitions, dissolving COMDAT groups).
PolicyResult apply_link_policy(const LabSpec& spec, const std::vector<std::filesystem::path>& api_objects,
                               const std::vector<std::filesystem::path>& student_objects);

// The grader's default refusals for undefined references (globs); a lab's [policy] adds or allows.
const std::vector<std::string>& default_forbidden_calls();
// Names a student may never define: the C library, timers, runtimes, main.
const std::vector<std::string>& forbidden_definitions();

bool glob_match(std::string_view pattern, std::string_view text);

// Whether the lab's code may start threads: a GPU lab (the CUDA runtime starts its own), or one whose
// [policy] allow lets a way to start them through (OpenMP's GOMP_*, pthread_create, std::thread). The
// syscall filter refuses clone(CLONE_THREAD) in the others.
bool lab_allows_threads(const LabSpec& spec);

// The dependency list the compiler writes beside a student object (-MD -MF <object>.d): every header the
// source included, however indirectly. [policy] forbid_headers is checked against it.
std::filesystem::path dependency_file(const std::filesystem::path& object);

}  // namespace grader
