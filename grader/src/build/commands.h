// commands.h: the command lines of a build (build/build.h) and how one step of it runs. A compile is nvcc for a .cu
// file and the C++ compiler otherwise, with the grader's code-placement and line-table flags before the lab's; a
// link gives the judge the lab's judge-only libraries and the candidate the syscall filter and full RELRO instead. A
// lab's step runs as the grader; a student's runs as the build user, bounded in time, and its log keeps the
// compiler's words with every staff path taken off.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "build/build.h"
#include "core/environment.h"
#include "core/tool.h"
#include "spec/lab_spec.h"

namespace grader {

struct BuildInputs;

bool is_cuda_source(const std::filesystem::path& path);

// Every C++ compile of lab code (the student's, the harness's, the judge's) aligns functions and loops to 64 bytes,
// and has line tables (-g1) for the report's listing; both before the lab's flags, so a lab may still choose
// otherwise. Why, in commands.cpp.
extern const std::vector<std::string> aligned_code_flags;
extern const std::vector<std::string> line_table_flags;

// One compiler command line for `source`. `lab_flags`: the lab's own flags and `extra_flags` after them (later flags
// win: -fno-gcse after -O2); without, the lab kit's runtime's fixed -O2 (it is the grader's code, not the lab's).
// `includes`: the lab's headers, then the lab kit's.
std::vector<std::string> compile_command(const Environment& env, const LabSpec& spec, const std::string& gpu_arch,
                                         const std::filesystem::path& source, const std::filesystem::path& object,
                                         bool lab_flags, const std::vector<std::filesystem::path>& includes,
                                         const std::vector<std::string>& extra_flags = {});

// Who an executable is for: the judge gets the lab's judge-only libraries (cuBLAS for its yardstick), the
// candidate gets the syscall filter instead (run/syscall_filter.h) and none of those libraries.
enum class LinkSide { judge, candidate };

// `inputs`: the candidate's, for its syscall filter; the judge has none.
std::vector<std::string> link_command(const Environment& env, const LabSpec& spec, const std::string& gpu_arch,
                                      const std::vector<std::filesystem::path>& objects,
                                      const std::filesystem::path& executable, LinkSide side,
                                      const BuildInputs* inputs = nullptr);

// Runs one compile or link; appends the command and what the tool said to `log`.
bool run_build_step(const std::vector<std::string>& argv, const std::filesystem::path& cwd, const ToolOptions& options,
                    std::string& log);

// How the lab's own code is compiled: as the grader, for up to ten minutes.
ToolOptions lab_build_tool();

// A student's compile or link, as the build user writing into `output_folder` (build/build_inputs.h), within 90 s (a
// template bomb is a build error, not a hung grader): the compiler's words, with the student's own file names, go to
// build.log, which students and TAs read; the command line (the sandbox's, full of the `staff` folders' paths) goes
// only to the work directory's build-commands.log (--keep-workdir keeps it).
bool run_student_step(const std::vector<std::string>& argv, const std::filesystem::path& workdir,
                      const std::filesystem::path& output_folder, std::vector<std::filesystem::path> staff,
                      CandidateBuild& build);

}  // namespace grader
