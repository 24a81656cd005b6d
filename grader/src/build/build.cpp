#include "build/build.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "build/build_inputs.h"
#include "build/commands.h"
#include "core/tool.h"
#include "core/unique_name.h"
#include "data/sha256.h"
#include "policy/policy.h"
#include "run/sandbox.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

// An exclusive flock on `path`, held until destroyed, where the file system has locks; none otherwise (the
// build then goes ahead unlocked, as it always could: its result is renamed into place whole).
class BuildLock {
 public:
  explicit BuildLock(const fs::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    while (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      ::close(fd_);
      fd_ = -1;
    }
  }
  BuildLock(const BuildLock&) = delete;
  BuildLock& operator=(const BuildLock&) = delete;
  ~BuildLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the flock
  }

 private:
  int fd_;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string hash_text(const std::string& text) {
  return sha256_hex(std::span(reinterpret_cast<const std::byte*>(text.data()), text.size()));
}

}  // namespace

bool tunes_for_this_cpu(const std::vector<std::string>& flags) {
  for (const auto& flag : flags)
    for (const char* native : {"-march=native", "-mtune=native", "-mcpu=native"})
      if (flag.find(native) != std::string::npos) return true;  // also inside -Xcompiler for nvcc's host compiler
  return false;
}

std::string native_cpu_target(const std::string& cxx) {
  // Asked once per compiler file and process: a batch builds the lab once per student. The compiler's real file is
  // the key, so a CXX that is a link to another compiler is asked again.
  static std::mutex guard;
  static std::map<std::string, std::string> known;
  std::error_code ec;
  const fs::path real = fs::canonical(find_on_path(cxx).value_or(fs::path(cxx)), ec);
  const std::string key = ec ? cxx : real.string();
  const std::lock_guard<std::mutex> lock(guard);
  if (const auto found = known.find(key); found != known.end()) return found->second;
  // GCC's resolved target: the CPU name and every extension on or off. Clang has no -Q --help=target; its
  // predefined macros (__AVX512F__, ...) name the extensions the objects may use.
  ToolResult target = run_tool({cxx, "-march=native", "-Q", "--help=target"}, ".", 30);
  if (!target.ok()) target = run_tool({cxx, "-march=native", "-dM", "-E", "-x", "c++", "/dev/null"}, ".", 30);
  return known[key] = target.ok() ? target.output : "";
}

// What the cached objects depend on: the compilers, the flags, every source and header that goes in, and, where
// the flags say -march=native, what that means here: a cache shared by machines of different CPU kinds (a login
// node and the GPU nodes `--slurm` sends gradings to) must not hand one machine objects built for another's.
std::string lab_cache_key(const Environment& env, const LabSpec& spec, const std::string& gpu_arch) {
  std::string blob = env.cxx + "\n" + env.nvcc.value_or("") + "\n" + gpu_arch + "\n" + spec.build.language + "\n";
  blob += run_tool({env.cxx, "--version"}, ".", 30).output;
  if (tunes_for_this_cpu(spec.build.flags) || tunes_for_this_cpu(spec.build.link_flags))
    blob += "native CPU target:\n" + native_cpu_target(env.cxx);
  for (const auto& flag : aligned_code_flags) blob += flag + "\n";
  for (const auto& flag : line_table_flags) blob += flag + "\n";
  for (const auto& flag : spec.build.flags) blob += flag + "\n";
  for (const auto& flag : spec.build.link_flags) blob += flag + "\n";
  blob += "judge only:\n";
  for (const auto& flag : spec.build.judge_link_flags) blob += flag + "\n";
  auto add_file = [&](const fs::path& path) { blob += path.filename().string() + "\n" + read_file(path) + "\n"; };
  for (const auto& list : {spec.build.headers, spec.build.harness, spec.build.baseline})
    for (const auto& name : list) add_file(spec.dir / name);
  for (const auto& item : fs::directory_iterator(env.labkit_include() / "labkit")) add_file(item.path());
  if (spec.build.language == "cuda" && env.nvcc) blob += run_tool({*env.nvcc, "--version"}, ".", 60).output;
  for (const auto& item : fs::directory_iterator(env.labkit_sources())) add_file(item.path());
  return hash_text(blob).substr(0, 16);
}

namespace {

std::vector<fs::path> labkit_runtime_sources(const Environment& env, const LabSpec& spec) {
  std::vector<fs::path> sources;
  for (const auto& item : fs::directory_iterator(env.labkit_sources())) {
    const auto ext = item.path().extension();
    // CUDA helpers of the lab kit only go into CUDA labs.
    if (ext == ".cpp" || (ext == ".cu" && spec.build.language == "cuda")) sources.push_back(item.path());
  }
  std::sort(sources.begin(), sources.end());
  return sources;
}

// The lab kit's C++ runtime objects, compiled once per compiler and lab kit into <cache>/labkit-<key>/ and copied
// into every lab build that links them: they are the grader's code with fixed flags (compile_command), the same bytes
// for every lab, and compiling them again was most of a small lab's build (runtime.cpp alone, 4 to 7 s of CPU on a
// 2-vCPU machine; issue 35: a CI run builds more than a dozen labs). Only the lab kit's own folder is on their
// include path, never a lab's. Returns the folder; throws LabBuildError when one does not compile.
fs::path shared_labkit_objects(const Environment& env, const LabSpec& spec, const std::vector<fs::path>& sources) {
  std::string blob = env.cxx + "\n" + run_tool({env.cxx, "--version"}, ".", 30).output;
  for (const auto& word : compile_command(env, spec, "", "x.cpp", "x.o", false, {})) blob += word + "\n";
  auto add_file = [&](const fs::path& path) { blob += path.filename().string() + "\n" + read_file(path) + "\n"; };
  std::vector<fs::path> inputs;
  for (const auto& item : fs::directory_iterator(env.labkit_include() / "labkit")) inputs.push_back(item.path());
  for (const auto& item : fs::directory_iterator(env.labkit_sources())) inputs.push_back(item.path());
  std::sort(inputs.begin(), inputs.end());
  for (const auto& path : inputs) add_file(path);
  const fs::path dir = env.cache / ("labkit-" + hash_text(blob).substr(0, 16));
  if (fs::exists(dir / "complete")) return dir;

  fs::create_directories(env.cache);
  const BuildLock lock(dir.string() + ".lock");  // as a lab build's: one compile of them at a time, the rest reuse it
  if (fs::exists(dir / "complete")) return dir;
  const fs::path staging = dir.string() + ".tmp-" + unique_suffix();
  fs::remove_all(staging);
  fs::create_directories(staging);
  std::vector<std::future<std::pair<bool, std::string>>> compiles;
  for (const auto& source : sources) {
    const auto command = compile_command(env, spec, "", source, staging / (source.stem().string() + ".o"), false,
                                         {env.labkit_include()});
    compiles.push_back(std::async(std::launch::async, [command, staging] {
      std::string said;
      const bool ok = run_build_step(command, staging, lab_build_tool(), said);
      return std::make_pair(ok, said);
    }));
  }
  std::string log;
  bool all_ok = true;
  for (auto& compile : compiles) {  // every compile finishes before anything is thrown
    auto [ok, said] = compile.get();
    log += said;
    all_ok = all_ok && ok;
  }
  if (!all_ok) {
    fs::remove_all(staging);
    throw LabBuildError("the lab kit's runtime does not compile", log);
  }
  std::ofstream(staging / "build.log") << log;
  std::ofstream(staging / "complete") << "ok\n";
  std::error_code ec;
  fs::rename(staging, dir, ec);
  if (ec) fs::remove_all(staging);  // another grader finished the same entry first; use theirs
  return dir;
}

}  // namespace

namespace {

std::string query_gpu_arch() {
  auto smi = find_on_path("nvidia-smi");
  if (!smi) return "";
  ToolResult result = run_tool({*smi, "--query-gpu=compute_cap", "--format=csv,noheader"}, ".", 30);
  if (!result.ok()) return "";
  std::string cap;
  for (char c : result.output) {
    if (c == '\n') break;
    if (std::isdigit(static_cast<unsigned char>(c))) cap.push_back(c);
  }
  return cap.empty() ? "" : "sm_" + cap;
}

}  // namespace

// Asked once per process: nvidia-smi takes a tenth of a second or more, a GPU grading asked up to three times (the
// build, the calibration's check, the GPU claim), and the machine's GPUs do not change while a grader runs.
std::string detect_gpu_arch() {
  static const std::string arch = query_gpu_arch();
  return arch;
}

LabBuild build_lab(const Environment& env, const LabSpec& spec) {
  LabBuild lab;
  if (spec.build.language == "cuda") {
    if (!env.nvcc) throw MissingToolchain("lab " + spec.id + " is a CUDA lab and no nvcc was found (looked in $CUDA_HOME/bin, $PATH and /usr/local/cuda/bin); install the CUDA toolkit or set CUDA_HOME");
    lab.gpu_arch = detect_gpu_arch();
    // No GPU here: still build (so students see compile errors) for the course's target, Hopper.
    if (lab.gpu_arch.empty()) lab.gpu_arch = "sm_90";
  }
  if (run_tool({env.cxx, "--version"}, ".", 30).exit_code != 0)
    throw MissingToolchain("no working C++ compiler: '" + env.cxx + "' did not run (set CXX to one)");

  lab.dir = env.cache / "labs" / (spec.name() + "-" + lab_cache_key(env, spec, lab.gpu_arch));
  lab.judge = lab.dir / "judge";
  auto object_for = [&](const fs::path& dir, const fs::path& source) {
    return dir / (source.stem().string() + (is_cuda_source(source) ? ".cu.o" : ".o"));
  };
  auto fill_object_lists = [&](const fs::path& dir) {
    lab.harness_objects.clear();
    lab.baseline_objects.clear();
    for (const auto& name : spec.build.harness) lab.harness_objects.push_back(object_for(dir, spec.dir / name));
    for (const auto& source : labkit_runtime_sources(env, spec)) lab.harness_objects.push_back(object_for(dir, source));
    for (const auto& name : spec.build.baseline) lab.baseline_objects.push_back(object_for(dir, spec.dir / name));
  };

  auto reuse = [&] {
    fill_object_lists(lab.dir);
    lab.reused = true;
    return lab;
  };
  if (fs::exists(lab.dir / "complete")) return reuse();

  // One build of an entry at a time: a grader that finds another building it (two gradings started together,
  // ctest -j) waits for that build and reuses it, instead of compiling the same sources beside it (nvcc: half a
  // minute of CPU for a CUDA lab). The build still goes to a private directory renamed into place, so a grader
  // that could not take the lock never sees a half-written entry either.
  fs::create_directories(lab.dir.parent_path());
  const BuildLock lock(lab.dir.string() + ".lock");
  if (fs::exists(lab.dir / "complete")) return reuse();
  const fs::path staging = lab.dir.string() + ".tmp-" + unique_suffix();
  fs::remove_all(staging);
  fs::create_directories(staging);
  fill_object_lists(staging);
  // The sources compile at once, each in a process of its own: nvcc takes seconds per file (lab 7's harness,
  // judge and lab kit took 20 s one after the other on the H100 host), and a class waits for this build once.
  struct Step {
    fs::path source;
    bool lab_flags;
    std::future<std::pair<bool, std::string>> done;  // compiled, and what the compiler said
  };
  std::vector<Step> steps;
  for (const auto& name : spec.build.harness) steps.push_back({spec.dir / name, true, {}});
  for (const auto& name : spec.build.baseline) steps.push_back({spec.dir / name, true, {}});
  std::vector<fs::path> labkit_cpp;  // compiled once for every lab (shared_labkit_objects); a .cu one, for this lab
  for (const auto& source : labkit_runtime_sources(env, spec)) {
    if (is_cuda_source(source)) steps.push_back({source, false, {}});
    else labkit_cpp.push_back(source);
  }
  for (auto& step : steps) {
    const auto command = compile_command(env, spec, lab.gpu_arch, step.source, object_for(staging, step.source),
                                         step.lab_flags, {spec.dir, env.labkit_include()});
    step.done = std::async(std::launch::async, [command, staging] {
      std::string said;
      const bool ok = run_build_step(command, staging, lab_build_tool(), said);
      return std::make_pair(ok, said);
    });
  }
  std::string log;
  if (!labkit_cpp.empty()) {  // beside the lab's own compiles, which have started
    try {
      const fs::path shared = shared_labkit_objects(env, spec, labkit_cpp);
      for (const auto& source : labkit_cpp) fs::copy_file(shared / (source.stem().string() + ".o"), object_for(staging, source));
      log += "(the lab kit's runtime: " + shared.string() + ")\n";
    } catch (const LabBuildError&) {
      for (auto& step : steps) step.done.wait();
      throw;
    }
  }
  const Step* failed = nullptr;
  for (auto& step : steps) {  // every compile finishes before anything is thrown; the log keeps source order
    auto [ok, said] = step.done.get();
    log += said;
    if (!ok && failed == nullptr) failed = &step;
  }
  if (failed != nullptr)
    throw LabBuildError("the lab's own code (" + failed->source.filename().string() + ") does not compile", log);

  std::vector<fs::path> judge_objects = lab.harness_objects;
  judge_objects.insert(judge_objects.end(), lab.baseline_objects.begin(), lab.baseline_objects.end());
  if (!run_build_step(link_command(env, spec, lab.gpu_arch, judge_objects, staging / "judge", LinkSide::judge), staging,
                lab_build_tool(), log))
    throw LabBuildError("the lab's judge does not link", log);
  std::ofstream(staging / "build.log") << log;
  std::ofstream(staging / "complete") << "ok\n";

  std::error_code ec;
  fs::rename(staging, lab.dir, ec);
  if (ec) fs::remove_all(staging);  // another grader finished the same entry first; use theirs
  fill_object_lists(lab.dir);
  return lab;
}

CandidateBuild compile_candidate(const Environment& env, const LabSpec& spec, const LabBuild& lab,
                                 const std::vector<fs::path>& sources, const fs::path& workdir,
                                 const std::vector<std::string>& extra_flags, const std::string& name) {
  CandidateBuild build;
  // The compiler reads student code, which can name any file: it sees only the build inputs, the staged files and
  // what every user may read (build/build_inputs.h).
  const BuildInputs inputs = prepare_build_inputs(env, spec, lab, workdir, sources);
  const fs::path objects = workdir / ("obj-" + name);
  make_build_output_folder(objects);
  for (const auto& source : sources) {
    if (is_cuda_source(source) && !env.nvcc) {
      build.verdict = Verdict::build_error;
      build.log += source.filename().string() + " is CUDA and no nvcc was found\n";
      return build;
    }
    const fs::path object = objects / (source.filename().string() + ".o");
    // In the sandbox, where there is one, the compiler sees the system and the work directory, nothing else.
    std::vector<std::string> argv = Sandbox::get().wrapper(workdir, workdir, {}, false);
    const auto compile = compile_command(env, spec, lab.gpu_arch, source, object, true,
                                         {inputs.lab_headers, inputs.labkit_include}, extra_flags);
    argv.insert(argv.end(), compile.begin(), compile.end());
    // The source by its path in the work directory ("src/matvec.cpp"): the compiler names it so, and an
    // editor in the student's folder can jump to it.
    const auto source_at = std::find(argv.begin(), argv.end(), source.string());
    if (source_at != argv.end()) *source_at = source.lexically_relative(workdir).string();
    // Every header the source includes, however indirectly: the policy checks [policy] forbid_headers on it.
    argv.insert(argv.end(), {"-MD", "-MF", dependency_file(object).string()});
    // nvcc keeps the PTX it made beside the object (<stem>.ptx), for the inspect stage (inspect/code_facts.h): the
    // same compile, at no extra cost, where a second `nvcc -ptx` would run the front end again.
    if (is_cuda_source(source)) argv.insert(argv.end(), {"--keep", "--keep-dir", objects.string()});
    if (!run_student_step(argv, workdir, objects, {workdir, spec.dir, env.labkit_include(), env.root}, build)) {
      build.verdict = Verdict::build_error;
      return build;
    }
    build.student_objects.push_back(object);
  }
  return build;
}

std::vector<std::string> build_flag_macro_changes(const Environment& env, const LabSpec& spec,
                                                  const std::vector<std::string>& extra_flags) {
  // What the student's compiler predefines with the lab's flags, then with extra_flags after them: the C++
  // compiler's, or for a CUDA lab nvcc's (the host compiler's macros and nvcc's own, __CUDACC_DEBUG__ under -G).
  const bool cuda = spec.build.language == "cuda" && env.nvcc;
  auto macros = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {cuda ? *env.nvcc : env.cxx, "-std=c++20"};
    if (!cuda) argv.insert(argv.end(), aligned_code_flags.begin(), aligned_code_flags.end());
    argv.insert(argv.end(), spec.build.flags.begin(), spec.build.flags.end());
    argv.insert(argv.end(), extra.begin(), extra.end());
    if (cuda) argv.insert(argv.end(), {"-E", "-Xcompiler", "-dM", "-x", "cu", "/dev/null"});
    else argv.insert(argv.end(), {"-dM", "-E", "-x", "c++", "/dev/null"});
    const ToolResult result = run_tool(argv, ".", 60);
    if (!result.ok()) throw std::runtime_error("the compiler could not list its predefined macros: " + result.output);
    std::set<std::string> lines;
    std::istringstream text(result.output);
    for (std::string line; std::getline(text, line);) lines.insert(line);
    return lines;
  };
  const auto graded = macros({});
  const auto checking = macros(extra_flags);
  std::vector<std::string> changes;
  for (const auto& line : graded)
    if (!checking.count(line)) changes.push_back("without " + line.substr(line.find(' ') + 1));
  for (const auto& line : checking)
    if (!graded.count(line)) changes.push_back("with " + line.substr(line.find(' ') + 1));
  return changes;
}

void link_candidate(const Environment& env, const LabSpec& spec, const LabBuild& lab, CandidateBuild& build,
                    const fs::path& workdir, const std::string& name, const std::vector<std::string>& extra_flags) {
  // The linker reads student objects too (under -flto it assembles their inline assembly): as the build user, on
  // copies of the harness objects, writing into the build's own folder; the executable then moves beside the judge.
  const BuildInputs inputs = prepare_build_inputs(env, spec, lab, workdir, {});
  const fs::path objects = workdir / ("obj-" + name);
  make_build_output_folder(objects);
  std::vector<fs::path> all = inputs.harness_objects;
  all.insert(all.end(), build.student_objects.begin(), build.student_objects.end());
  const fs::path linked = objects / name;
  std::vector<std::string> command = link_command(env, spec, lab.gpu_arch, all, linked, LinkSide::candidate, &inputs);
  command.insert(command.begin() + 1, extra_flags.begin(), extra_flags.end());
  std::vector<std::string> argv = Sandbox::get().wrapper(workdir, workdir, {}, false);
  argv.insert(argv.end(), command.begin(), command.end());
  build.executable = workdir / name;
  if (!run_student_step(argv, workdir, objects, {workdir, lab.dir, spec.dir, env.root, env.cache}, build)) {
    build.verdict = Verdict::build_error;
    return;
  }
  fs::rename(linked, build.executable);
}

}  // namespace grader
