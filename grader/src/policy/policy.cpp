#include "policy/policy.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <set>

#include "core/tool.h"
#include "policy/elf_file.h"
#include "policy/startup.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

std::string readable_symbol(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

// The C name a symbol stands for, so "clock_gettime@GLIBC_2.17" and versioned aliases match their rule.
std::string base_name(const std::string& symbol) {
  auto at = symbol.find('@');
  return at == std::string::npos ? symbol : symbol.substr(0, at);
}

bool matches_any(const std::vector<std::string>& patterns, const std::string& name) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return glob_match(p, name); });
}

// The headers a student object's source included (its -MD dependency list), or nullopt without one.
std::optional<std::vector<std::string>> included_headers(const fs::path& object) {
  std::ifstream in(dependency_file(object));
  if (!in) return std::nullopt;
  std::vector<std::string> headers;
  std::string word;
  bool target = true;  // "obj.o: source.cu header1 header2 \"
  while (in >> word) {
    if (word == "\\") continue;
    if (target) {
      target = word.back() != ':';
      continue;
    }
    if (!word.empty() && word.back() == ':') continue;  // -MP's phony targets
    headers.push_back(fs::path(word).lexically_normal().string());
  }
  return headers;
}

}  // namespace

fs::path dependency_file(const fs::path& object) { return object.string() + ".d"; }

bool lab_allows_threads(const LabSpec& spec) {
  if (spec.gpu) return true;
  for (const char* starter : {"pthread_create", "GOMP_parallel", "thrd_create",
                              "_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE"})
    if (matches_any(spec.policy.allow, starter) && !matches_any(spec.policy.forbid, starter)) return true;
  return false;
}

bool glob_match(std::string_view pattern, std::string_view text) {
  // '*' and '?' only: enough for symbol families (cublas*, GOMP_*), no character classes needed.
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

const std::vector<std::string>& default_forbidden_calls() {
  static const std::vector<std::string> calls = {
      // new processes and programs
      "fork", "_Fork", "vfork", "clone", "clone3", "execve", "execveat", "fexecve", "execv", "execvp", "execvpe", "execl",
      "execlp", "execle", "system", "popen", "posix_spawn", "posix_spawnp",
      // loading or patching code, raw system calls, debugging other processes
      "dlopen", "dlmopen", "dlsym", "dlvsym", "syscall", "ptrace", "mprotect", "process_vm_readv", "process_vm_writev",
      // the network
      "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "getaddrinfo", "gethostbyname",
      // signals and timers that could stop or fool the harness
      "kill", "tkill", "tgkill", "sigaction", "signal", "setitimer", "alarm", "timer_create", "prctl",
      // threads and OpenMP, unless the lab teaches them ([policy] allow)
      "pthread_create", "GOMP_*", "omp_*", "__kmpc_*", "thrd_create",
      // C++ threads start inside libstdc++, so a student object only names these: std::thread, std::jthread,
      // std::async
      "_ZNSt6thread*", "_ZNSt7jthread*", "*__future_base*",
      // the sanitizers' runtimes: a weak reference to one (__tsan_init) tells a sanitized build from the graded one
      "__tsan_*", "__asan_*", "__ubsan_*", "__msan_*", "__lsan_*", "__hwasan_*", "__sanitizer_*",
  };
  return calls;
}

const std::vector<std::string>& forbidden_definitions() {
  static const std::vector<std::string> names = {
      "main", "_start", "_init", "_fini",
      // timers the harness or the grader reads
      "clock_gettime", "gettimeofday", "clock", "time", "times", "getrusage", "omp_get_wtime", "omp_get_wtick",
      "cudaEventElapsedTime", "cudaEventRecord", "cudaEventSynchronize", "cudaDeviceSynchronize", "cudaStreamSynchronize",
      // the C library and runtimes the harness calls
      "malloc", "free", "calloc", "realloc", "memcpy", "memmove", "memset", "memcmp", "write", "read", "exit", "_exit",
      "abort", "pthread_*", "GOMP_*", "omp_*", "cuda*", "cublas*", "__cxa_*", "__libc_*", "__sanitizer_*", "__asan_*",
      "__ubsan_*", "__tsan_*", "__msan_*", "__lsan_*", "__hwasan_*", "_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm",
  };
  return names;
}

namespace {

// Rewrites `object` so that it defines globally nothing but the lab's API: every other definition made local. Its
// COMDAT groups are dissolved first: the linker keeps one copy of each group by name, even a group whose symbols are
// local, and a local reference into a discarded copy does not link. So the student's inline functions and template
// instantiations become its own private copies, and the harness keeps its own. GNU_UNIQUE is made weak by a first
// pass: objcopy localizes it in no other way, and in one pass it weakens after localizing. (objcopy 2.40 fails
// without a word on an empty symbol list, so a list goes only where it has names.)
void localize(const fs::path& object, const std::vector<std::string>& names, const std::vector<std::string>& unique,
              const std::set<std::string>& group_sections) {
  auto run = [&](std::vector<std::string> argv) {
    argv.insert(argv.begin(), "objcopy");
    argv.push_back(object.string());
    ToolResult rewritten = run_tool(argv, object.parent_path(), 60);
    if (!rewritten.ok()) throw std::runtime_error("objcopy could not localize symbols: " + rewritten.output);
  };
  auto list_file = [&](const std::string& suffix, const std::vector<std::string>& lines) {
    const fs::path file = object.string() + suffix;
    std::ofstream out(file);
    for (const auto& line : lines) out << line << "\n";
    return file.string();
  };
  if (!unique.empty()) run({"--weaken-symbols=" + list_file(".unique", unique)});
  std::vector<std::string> argv;
  if (!names.empty()) argv.push_back("--localize-symbols=" + list_file(".localize", names));
  for (const auto& section : group_sections) argv.push_back("--remove-section=" + section);
  if (!argv.empty()) run(argv);
}

}  // namespace

PolicyResult apply_link_policy(const LabSpec& spec, const std::vector<fs::path>& api_objects,
                               const std::vector<fs::path>& student_objects) {
  PolicyResult result;
  // The API: the strong global definitions of the lab's baseline, the functions the harness calls. (Not its weak
  // ones: an inline function or template instantiation the harness has too would then stay global in the student's
  // object, where a strong or unique definition would outrank the harness's weak copy.)
  std::set<std::string> api;
  for (const auto& object : api_objects)
    for (const auto& symbol : read_elf(object).symbols)
      if (symbol.global_definition() && symbol.binding == "GLOBAL" && symbol.type != "IFUNC") api.insert(symbol.name);

  std::vector<std::string> forbidden_calls;
  for (const auto& call : default_forbidden_calls())
    if (!matches_any(spec.policy.allow, call)) forbidden_calls.push_back(call);
  forbidden_calls.insert(forbidden_calls.end(), spec.policy.forbid.begin(), spec.policy.forbid.end());
  const bool cuda = spec.build.language == "cuda";

  auto refuse = [&](const std::string& symbol, std::string rule, const fs::path& object) {
    result.findings.push_back({symbol, readable_symbol(symbol), std::move(rule), object.filename().string()});
  };

  for (const auto& object : student_objects) {
    bool forbidden_use_named = false;
    // Header-only libraries leave no symbol to read once inlined (cub::BlockReduce in the student's own kernel),
    // so the lab forbids their headers, read from the compiler's own list of what the source included.
    if (!spec.policy.forbid_headers.empty()) {
      const auto headers = included_headers(object);
      if (!headers) {
        refuse(dependency_file(object).filename().string(),
               "has no dependency list, so the headers this lab forbids cannot be checked", object);
      } else {
        for (const auto& pattern : spec.policy.forbid_headers) {
          const auto hit = std::find_if(headers->begin(), headers->end(),
                                        [&](const std::string& header) { return glob_match(pattern, header); });
          if (hit != headers->end())
            refuse(*hit, "is included (directly or through another header), and this lab forbids the headers " + pattern,
                   object);
        }
      }
    }
    const ElfFile elf = read_elf(object);
    // By name, as nm lists them: findings come in an order a reader can scan, the same from one compiler to the next.
    std::vector<ElfSymbol> symbols = elf.symbols;
    std::stable_sort(symbols.begin(), symbols.end(), [](const ElfSymbol& a, const ElfSymbol& b) { return a.name < b.name; });
    std::vector<std::string> to_localize, unique;
    for (const auto& symbol : symbols) {
      const std::string name = base_name(symbol.name);
      // A weak reference (`__attribute__((weak))` on a declaration) is a call like any other once the library
      // that defines it is loaded.
      if (symbol.undefined()) {
        if (name.empty()) continue;
        // A call the lab forbids; lab allows override the grader's defaults but never the lab's own forbid.
        if (matches_any(forbidden_calls, name) || matches_any(spec.policy.forbid, readable_symbol(name))) {
          bool allowed = matches_any(spec.policy.allow, name) && !matches_any(spec.policy.forbid, name) &&
                         !matches_any(spec.policy.forbid, readable_symbol(name));
          if (!allowed) refuse(symbol.name, "calls " + name + ", which this lab does not allow", object);
        }
        continue;
      }
      if (symbol.type == "SECTION" || symbol.type == "FILE") continue;
      // What the lab forbids is forbidden defined as much as called: CUB or Thrust kernels, say, are
      // instantiated inside the student's own object rather than called from a library.
      // A library's instantiated templates come by the hundred: the first one per object names it well enough.
      if (!spec.policy.forbid.empty() && (matches_any(spec.policy.forbid, name) || matches_any(spec.policy.forbid, readable_symbol(name)))) {
        if (!forbidden_use_named) refuse(symbol.name, "uses " + readable_symbol(name) + ", which this lab forbids", object);
        forbidden_use_named = true;
        continue;
      }
      if (!symbol.global_definition() || api.count(symbol.name)) continue;
      // nvcc emits registration and stub symbols of its own for every CUDA object: not the student's naming.
      const bool cuda_generated = cuda && (name.rfind("__cuda", 0) == 0 || name.rfind("__nv", 0) == 0 ||
                                           name.rfind("__fatbinwrap", 0) == 0 || name.find("__device_stub__") != std::string::npos);
      if (matches_any(forbidden_definitions(), name) && !cuda_generated) {
        refuse(symbol.name, "defines " + name + ", a name the C library, the runtime or the harness owns", object);
        continue;
      }
      // Everything else an object defines globally, strong, weak or unique, C or C++, inline or template, in any
      // section, is made local: only the API can bind a call of the harness's (or of the C runtime's).
      to_localize.push_back(symbol.name);
      if (symbol.binding == "UNIQUE") unique.push_back(symbol.name);
    }
    for (const auto& outside : code_outside_main(elf, cuda)) refuse(outside.what, outside.rule, object);

    std::set<std::string> group_sections;
    for (const auto& section : elf.sections)
      if (section.type == "GROUP") group_sections.insert(section.name);
    if (to_localize.empty() && group_sections.empty()) continue;
    localize(object, to_localize, unique, group_sections);
    result.localized.insert(result.localized.end(), to_localize.begin(), to_localize.end());
    // What objcopy could not make local (a COMMON symbol has no section to be local in) is refused: nothing but the
    // API may be left for the linker to bind.
    std::set<std::string> refused_here;
    for (const auto& finding : result.findings)
      if (finding.object == object.filename().string()) refused_here.insert(finding.symbol);
    for (const auto& symbol : read_elf(object).symbols)
      if (symbol.global_definition() && !api.count(symbol.name) && !refused_here.count(symbol.name))
        refuse(symbol.name, "is defined globally (" + symbol.binding + (symbol.section == "COM" ? ", common" : "") +
               ") and could not be made local: only the lab's API may be defined globally", object);
  }

  if (!result.findings.empty()) {
    result.verdict = Verdict::policy_refused;
    for (const auto& finding : result.findings)
      result.details += finding.object + ": " + finding.readable + ": " + finding.rule + "\n";
  }
  return result;
}

}  // namespace grader
