#include "build/commands.h"

#include <algorithm>
#include <fstream>

#include "build/build_inputs.h"
#include "policy/policy.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

// Student code gets a bounded compile: a template bomb is a build error, not a hung grader.
constexpr double student_compile_seconds = 90;
constexpr double lab_compile_seconds = 600;

// The start-up object that installs the syscall filter before main, and libseccomp (the build inputs' copies). The
// archive holds one object per kind of lab (grader/filter/); the linker takes the one whose symbol it is told to keep.
std::vector<std::string> filter_link_flags(const LabSpec& spec, bool nvcc, const BuildInputs& inputs) {
  if (inputs.filter_library.empty()) return {};
  const char* start_object = nvcc                      ? "grader_syscall_filter_cuda"
                             : lab_allows_threads(spec) ? "grader_syscall_filter_threads"
                                                        : "grader_syscall_filter_no_threads";
  const std::string keep = std::string("--undefined=") + start_object;
  // libseccomp itself: its static archive where the build put one beside the filter's, else the shared library.
  const std::string seccomp = inputs.seccomp_archive.empty() ? "-lseccomp" : inputs.seccomp_archive.string();
  if (nvcc) return {"-Xlinker", keep, inputs.filter_library.string(), seccomp};
  return {"-Wl," + keep, inputs.filter_library.string(), seccomp};
}

// `text` with every staff folder's prefix taken off: the lab's headers read "matvec.h", the lab kit's
// "labkit/...", the work directory's files "src/matvec.cpp". Longest prefix first, so nested folders map right.
std::string without_staff_paths(std::string text, std::vector<fs::path> folders) {
  std::vector<std::string> prefixes;
  for (const auto& folder : folders)
    if (!folder.empty()) prefixes.push_back(folder.lexically_normal().string() + (folder.has_filename() ? "/" : ""));
  std::sort(prefixes.begin(), prefixes.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  for (const auto& prefix : prefixes)
    for (auto at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at)) text.erase(at, prefix.size());
  return text;
}

}  // namespace

// Every function and loop of the C++ compiler's lab code (the student's files, the harness, the judge) starts on a
// 64-byte boundary. Where a hot loop starts within the CPU's 64-byte fetch and op-cache lines moves its speed by
// a third on an AMD EPYC (Zen 3): lab 3's judge and a submission running the same i-k-j loop read 1.09 to 1.27x
// apart in one build of the lab, and 0.99 to 1.04x in another that differed from it only by an unused file in
// the lab kit, so a yardstick timed in the judge's binary handed serial code scaling points. With these flags the
// same pair read 0.78 to 1.01x in both builds. Before the lab's flags, so a lab may still choose otherwise.
// nvcc's host code is left as it is: a CUDA lab times its kernels, not host loops.
const std::vector<std::string> aligned_code_flags = {"-falign-functions=64", "-falign-loops=64"};

// Line tables (and no more debug information): the report's listing shows each instruction of the hot loop under
// the source line it came from (objdump -l, inspect/look.h). GCC's -g never changes the code it generates, so the
// code the grader times and the facts it reads are the same; test_inspect_cpu proves it on lab 1's reference. Before
// the lab's flags, so a lab may still choose otherwise (-g0).
const std::vector<std::string> line_table_flags = {"-g1"};

bool is_cuda_source(const fs::path& path) { return path.extension() == ".cu"; }

std::vector<std::string> compile_command(const Environment& env, const LabSpec& spec, const std::string& gpu_arch,
                                         const fs::path& source, const fs::path& object, bool lab_flags,
                                         const std::vector<fs::path>& includes,
                                         const std::vector<std::string>& extra_flags) {
  std::vector<std::string> argv;
  if (is_cuda_source(source)) {
    argv = {*env.nvcc, "-std=c++20", "-arch=" + gpu_arch};
  } else {
    argv = {env.cxx, "-std=c++20"};
  }
  if (lab_flags) {
    if (!is_cuda_source(source)) {
      argv.insert(argv.end(), aligned_code_flags.begin(), aligned_code_flags.end());
      argv.insert(argv.end(), line_table_flags.begin(), line_table_flags.end());
    }
    argv.insert(argv.end(), spec.build.flags.begin(), spec.build.flags.end());
    argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());  // later flags win: -fno-gcse after -O2
  } else {
    argv.push_back("-O2");
  }
  for (const auto& folder : includes) argv.push_back("-I" + folder.string());
  argv.insert(argv.end(), {"-c", source.string(), "-o", object.string()});
  return argv;
}

std::vector<std::string> link_command(const Environment& env, const LabSpec& spec, const std::string& gpu_arch,
                                      const std::vector<fs::path>& objects, const fs::path& executable, LinkSide side,
                                      const BuildInputs* inputs) {
  std::vector<std::string> argv;
  if (spec.build.language == "cuda") {
    // An rpath to the toolkit's libraries: workers run with a clean environment, without LD_LIBRARY_PATH,
    // and must still find cuBLAS.
    const fs::path toolkit_lib = fs::path(*env.nvcc).parent_path().parent_path() / "lib64";
    argv = {*env.nvcc, "-arch=" + gpu_arch, "-Xlinker", "-rpath=" + toolkit_lib.string()};
  } else {
    argv = {env.cxx};
    argv.insert(argv.end(), spec.build.flags.begin(), spec.build.flags.end());
  }
  for (const auto& object : objects) argv.push_back(object.string());
  argv.insert(argv.end(), spec.build.link_flags.begin(), spec.build.link_flags.end());
  if (side == LinkSide::judge) {
    argv.insert(argv.end(), spec.build.judge_link_flags.begin(), spec.build.judge_link_flags.end());
  } else {
    const auto filter = filter_link_flags(spec, spec.build.language == "cuda", *inputs);
    argv.insert(argv.end(), filter.begin(), filter.end());
    // Every library call resolved before main and its table made read-only (full RELRO): student code cannot
    // redirect a call of the harness's (clock_gettime, say) by writing over its GOT slot.
    if (spec.build.language == "cuda") argv.insert(argv.end(), {"-Xlinker", "-z", "-Xlinker", "now"});
    else argv.push_back("-Wl,-z,now");
  }
  argv.insert(argv.end(), {"-o", executable.string()});
  return argv;
}

bool run_build_step(const std::vector<std::string>& argv, const fs::path& cwd, const ToolOptions& options, std::string& log) {
  ToolResult result = run_tool(argv, cwd, options);
  log += "$ " + quote_command(argv) + "\n" + result.output;
  if (result.timed_out)
    log += "(stopped: the compiler ran past " + std::to_string(static_cast<int>(options.timeout_seconds)) + " s)\n";
  return result.ok();
}

ToolOptions lab_build_tool() {
  ToolOptions options;
  options.timeout_seconds = lab_compile_seconds;
  options.output_cap = 256 * 1024;
  return options;
}

bool run_student_step(const std::vector<std::string>& argv, const fs::path& workdir, const fs::path& output_folder,
                      std::vector<fs::path> staff, CandidateBuild& build) {
  std::string output;
  const bool ok = run_build_step(argv, workdir, student_build_tool(student_compile_seconds, output_folder), output);
  const auto inputs = build_input_folders(workdir);
  staff.insert(staff.end(), inputs.begin(), inputs.end());
  const auto command_end = output.find('\n');
  std::ofstream(workdir / "build-commands.log", std::ios::app) << output.substr(0, command_end + 1);
  build.log += without_staff_paths(output.substr(command_end + 1), staff);
  return ok;
}

}  // namespace grader
