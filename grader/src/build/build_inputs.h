// build_inputs.h: what a student's compile and link may read, and whom they run as.
//
// The compiler reads what the student wrote, and that can name any file: `#include "/path/lab.toml"` quotes it in
// a compile error, `.incbin "/path/data.npy"` in inline assembly builds it into the program (under -flto the
// assembly runs at the link). So, when the grader is root, a student's compile and link run as the build user
// (run/unprivileged.h), who opens only what every user may, with a clean environment and none of the grader's
// descriptors; and inside bubblewrap, where there is one, with only the system and the work directory in view.
// What they need is copied into the work directory, readable by everyone, and nothing else:
//
//   <workdir>/src/                   the staged student files
//   <workdir>/build-inputs/lab/      the lab's `headers`, not its folder (lab.toml holds the hidden cases)
//   <workdir>/build-inputs/labkit/   the lab kit's headers
//   <workdir>/build-inputs/link/     the harness objects and the syscall filter's archives
//   <workdir>/obj-<build>/           the build user's own: the objects, dependency lists and executable it writes
//
// The lab's folder, its datasets and the grader's own files are out of the build user's reach wherever their
// modes keep them from other users: the exports' scripts make them so, and a root grader without bubblewrap
// warns, on stderr, when the build user can read the lab's lab.toml.
#pragma once

#include <filesystem>
#include <vector>

#include "build/build.h"
#include "core/environment.h"
#include "core/tool.h"
#include "spec/lab_spec.h"

namespace grader {

struct BuildInputs {
  std::filesystem::path lab_headers;     // -I for the lab's headers
  std::filesystem::path labkit_include;  // -I for the lab kit's
  std::vector<std::filesystem::path> harness_objects;  // copies of lab.harness_objects
  std::filesystem::path filter_library;   // the syscall filter's start-up objects; empty without the filter
  std::filesystem::path seccomp_archive;  // libseccomp.a beside it; empty: the shared libseccomp is linked
};

// Copies what a student's build reads into `workdir` (above) and makes the staged `sources` readable by the build
// user. Safe to call again for another build of the same grading.
BuildInputs prepare_build_inputs(const Environment& env, const LabSpec& spec, const LabBuild& lab,
                                 const std::filesystem::path& workdir, const std::vector<std::filesystem::path>& sources);

// Creates `folder` for the build user to write into (its owner, when the grader is root).
void make_build_output_folder(const std::filesystem::path& folder);

// How a student's compile or link runs: as the build user, with PATH and the locale of the grader's environment
// only, its HOME and TMPDIR in `output_folder`.
ToolOptions student_build_tool(double timeout_seconds, const std::filesystem::path& output_folder);

// The folders the build log names a file by, staff paths all: a log shows "matvec.h", "labkit/labkit.h",
// "src/matvec.cpp" instead of the work directory's paths.
std::vector<std::filesystem::path> build_input_folders(const std::filesystem::path& workdir);

}  // namespace grader
