#include "policy/policy.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "core/tool.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

struct Symbol {
  std::string name;
  char type = '?';  // nm's letter: U undefined, T/D/B/R strong, W/V weak, lower case local
  unsigned long long value = 0;
};

std::vector<Symbol> read_symbols(const fs::path& object) {
  ToolResult result = run_tool({"nm", "-P", object.string()}, object.parent_path(), 60);
  if (!result.ok()) throw std::runtime_error("nm could not read " + object.string() + ": " + result.output);
  std::vector<Symbol> symbols;
  std::istringstream lines(result.output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    Symbol symbol;
    std::string type, value;
    if (!(fields >> symbol.name >> type) || type.empty()) continue;
    symbol.type = type[0];
    if (fields >> value) symbol.value = std::strtoull(value.c_str(), nullptr, 16);
    symbols.push_back(symbol);
  }
  return symbols;
}

// 'i': a GNU indirect function, resolved at load time: a strong definition like any other.
bool is_strong_global(char type) {
  return type == 'T' || type == 'D' || type == 'B' || type == 'R' || type == 'G' || type == 'S' || type == 'i';
}
bool is_weak(char type) { return type == 'W' || type == 'V' || type == 'u' || type == 'w' || type == 'v'; }

std::string demangle(const std::string& name) {
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

// The function defined at `offset` in section `section` of `object` (readelf -s gives each symbol's
// section index, readelf -S the index's name). "<section>+<offset>" when none is.
std::string function_at(const fs::path& object, const std::string& section, unsigned long long offset) {
  std::map<std::string, std::string> section_names;  // index -> name
  ToolResult sections = run_tool({"readelf", "-S", "-W", object.string()}, object.parent_path(), 60);
  std::istringstream section_lines(sections.output);
  std::string line;
  while (std::getline(section_lines, line)) {
    // "  [ 5] .text.startup     PROGBITS ..."
    auto open = line.find('[');
    auto close = line.find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    std::string index = line.substr(open + 1, close - open - 1);
    index.erase(0, index.find_first_not_of(' '));
    std::istringstream rest(line.substr(close + 1));
    std::string section_name;
    if (rest >> section_name) section_names[index] = section_name;
  }
  ToolResult table = run_tool({"readelf", "-s", "-W", object.string()}, object.parent_path(), 60);
  std::istringstream symbol_lines(table.output);
  while (std::getline(symbol_lines, line)) {
    // "   12: 0000000000000362    90 FUNC    LOCAL  DEFAULT    5 _ZL24__sti____cudaRegisterAllv"
    std::istringstream fields(line);
    std::string number, value, size, type, bind, visibility, index, name;
    if (!(fields >> number >> value >> size >> type >> bind >> visibility >> index >> name)) continue;
    if (type != "FUNC" || number.back() != ':') continue;
    if (section_names[index] == section && std::strtoull(value.c_str(), nullptr, 16) == offset) return name;
  }
  return section + "+" + std::to_string(offset);
}

// The functions a CUDA object's .init_array calls. nvcc registers each object's kernels from a static
// constructor of its own (__sti____cudaRegisterAll); anything else there is the student's.
std::vector<std::string> init_array_targets(const fs::path& object) {
  ToolResult result = run_tool({"readelf", "-r", "-W", object.string()}, object.parent_path(), 60);
  std::vector<std::string> targets;
  std::istringstream lines(result.output);
  std::string line;
  bool in_init_array = false;
  while (std::getline(lines, line)) {
    if (line.rfind("Relocation section", 0) == 0) {
      in_init_array = line.find(".init_array") != std::string::npos || line.find(".ctors") != std::string::npos ||
                      line.find(".preinit_array") != std::string::npos;
      continue;
    }
    if (!in_init_array || line.empty()) continue;
    // "offset info type symbol-value symbol-name + addend". The name is often a section (".text + 362"):
    // then the target is the function at that offset, which nm names.
    std::istringstream fields(line);
    std::string offset, info, type, value, name, plus, addend;
    if (!(fields >> offset >> info >> type >> value >> name)) continue;
    if (offset.find_first_not_of("0123456789abcdef") != std::string::npos) continue;  // the column headings
    fields >> plus >> addend;
    if (name.rfind(".", 0) == 0 && !addend.empty()) name = function_at(object, name, std::stoull(addend, nullptr, 16));
    targets.push_back(name);
  }
  return targets;
}

bool is_nvcc_registration(const std::string& symbol) { return symbol.find("__sti____cudaRegisterAll") != std::string::npos; }

// Sections that hold code run before main.
std::vector<std::string> startup_sections(const fs::path& object) {
  ToolResult result = run_tool({"readelf", "-S", "-W", object.string()}, object.parent_path(), 60);
  std::vector<std::string> found;
  for (const char* section : {".init_array", ".preinit_array", ".ctors"}) {
    const std::string needle = std::string(section);
    auto pos = result.output.find(needle);
    while (pos != std::string::npos) {
      const char after = pos + needle.size() < result.output.size() ? result.output[pos + needle.size()] : ' ';
      if (after == ' ' || after == '.') {  // ".init_array" or ".init_array.00100", not ".init_arrayfoo"
        found.push_back(section);
        break;
      }
      pos = result.output.find(needle, pos + 1);
    }
  }
  return found;
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
      "__ubsan_*", "__tsan_*", "_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm",
  };
  return names;
}

PolicyResult apply_link_policy(const LabSpec& spec, const std::vector<fs::path>& api_objects,
                               const std::vector<fs::path>& student_objects) {
  PolicyResult result;
  std::set<std::string> api;
  for (const auto& object : api_objects)
    for (const auto& symbol : read_symbols(object))
      if (is_strong_global(symbol.type)) api.insert(symbol.name);

  std::vector<std::string> forbidden_calls;
  for (const auto& call : default_forbidden_calls())
    if (!matches_any(spec.policy.allow, call)) forbidden_calls.push_back(call);
  forbidden_calls.insert(forbidden_calls.end(), spec.policy.forbid.begin(), spec.policy.forbid.end());
  const bool cuda = spec.build.language == "cuda";

  auto refuse = [&](const Symbol& symbol, std::string rule, const fs::path& object) {
    result.findings.push_back({symbol.name, demangle(symbol.name), std::move(rule), object.filename().string()});
  };

  for (const auto& object : student_objects) {
    std::vector<std::string> localized_here;
    bool forbidden_use_named = false;
    // Header-only libraries leave no symbol to read once inlined (cub::BlockReduce in the student's own kernel),
    // so the lab forbids their headers, read from the compiler's own list of what the source included.
    if (!spec.policy.forbid_headers.empty()) {
      const auto headers = included_headers(object);
      if (!headers) {
        refuse(Symbol{dependency_file(object).filename().string(), '?'},
               "has no dependency list, so the headers this lab forbids cannot be checked", object);
      } else {
        for (const auto& pattern : spec.policy.forbid_headers) {
          const auto hit = std::find_if(headers->begin(), headers->end(),
                                        [&](const std::string& header) { return glob_match(pattern, header); });
          if (hit != headers->end())
            refuse(Symbol{*hit, 'H'}, "is included (directly or through another header), and this lab forbids the "
                   "headers " + pattern, object);
        }
      }
    }
    for (const auto& symbol : read_symbols(object)) {
      const std::string name = base_name(symbol.name);
      // A weak reference ('w', 'v': `__attribute__((weak))` on a declaration) is a call like any other
      // once the library that defines it is loaded.
      if (symbol.type == 'U' || symbol.type == 'w' || symbol.type == 'v') {
        // A call the lab forbids; lab allows override the grader's defaults but never the lab's own forbid.
        if (matches_any(forbidden_calls, name) || matches_any(spec.policy.forbid, demangle(name))) {
          bool allowed = matches_any(spec.policy.allow, name) && !matches_any(spec.policy.forbid, name) &&
                         !matches_any(spec.policy.forbid, demangle(name));
          if (!allowed) refuse(symbol, "calls " + name + ", which this lab does not allow", object);
        }
        continue;
      }
      // What the lab forbids is forbidden defined as much as called: CUB or Thrust kernels, say, are
      // instantiated inside the student's own object rather than called from a library.
      // A library's instantiated templates come by the hundred: the first one per object names it well enough.
      if (symbol.type != 'U' && !spec.policy.forbid.empty() &&
          (matches_any(spec.policy.forbid, name) || matches_any(spec.policy.forbid, demangle(name)))) {
        if (!forbidden_use_named) refuse(symbol, "uses " + demangle(name) + ", which this lab forbids", object);
        forbidden_use_named = true;
        continue;
      }
      // An ifunc's resolver runs while the program is being loaded, before main and before the syscall
      // filter is installed: code before main, like a constructor.
      if (symbol.type == 'i') {
        refuse(symbol, "defines " + demangle(name) + " as an indirect function (GNU ifunc, or target_clones): its "
               "resolver would run before main; write one version, or choose at run time", object);
        continue;
      }
      if (!is_strong_global(symbol.type) && !is_weak(symbol.type)) continue;
      if (api.count(symbol.name)) continue;
      // nvcc emits registration and stub symbols of its own for every CUDA object.
      const bool cuda_generated = cuda && (name.rfind("__cuda", 0) == 0 || name.rfind("__nv", 0) == 0 ||
                                           name.rfind("__fatbinwrap", 0) == 0 || name.find("__device_stub__") != std::string::npos);
      if (matches_any(forbidden_definitions(), name) && !cuda_generated) {
        refuse(symbol, "defines " + name + ", a name the C library, the runtime or the harness owns", object);
        continue;
      }
      // A weak definition of a C name could stand in for a library function the harness calls; C++
      // inline functions and templates (mangled names) are merged by the linker with the harness's own.
      // (DW.ref.* are the compiler's own references to the exception personality routine.)
      const bool compiler_generated = name.rfind("DW.ref.", 0) == 0;
      if (is_weak(symbol.type) && symbol.type != 'w' && symbol.type != 'v' && name.rfind("_Z", 0) != 0 && !cuda_generated &&
          !compiler_generated) {
        refuse(symbol, "defines " + name + " as a weak global: only the lab's API may be defined globally", object);
        continue;
      }
      if (is_weak(symbol.type) || cuda_generated) continue;
      localized_here.push_back(symbol.name);
      result.localized.push_back(symbol.name);
    }
    for (const auto& section : startup_sections(object)) {
      if (cuda) {
        bool only_registration = true;
        for (const auto& target : init_array_targets(object)) only_registration = only_registration && is_nvcc_registration(target);
        if (only_registration) continue;
      }
      refuse(Symbol{section, 'S'},
             "has a " + section + " section: code that runs before main (a global object with a constructor, or "
             "__attribute__((constructor))); make such objects local to a function",
             object);
    }
    // Rewrite this object only if it has something to hide, naming exactly its own symbols.
    if (!localized_here.empty()) {
      const fs::path list_file = object.string() + ".localize";
      std::ofstream list(list_file);
      for (const auto& name : localized_here) list << name << "\n";
      list.close();
      ToolResult rewritten = run_tool({"objcopy", "--localize-symbols=" + list_file.string(), object.string()},
                                      object.parent_path(), 60);
      if (!rewritten.ok()) throw std::runtime_error("objcopy could not localize symbols: " + rewritten.output);
    }
  }

  if (!result.findings.empty()) {
    result.verdict = Verdict::policy_refused;
    for (const auto& finding : result.findings)
      result.details += finding.object + ": " + finding.readable + ": " + finding.rule + "\n";
  }
  return result;
}

}  // namespace grader
