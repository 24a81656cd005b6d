// ptx_facts.cpp: facts of CUDA kernels (inspect/facts.h), read from the PTX nvcc kept beside the student's object
// and from `ptxas -v` on it. PTX is nvcc's own text, one instruction a line ("ld.global.v4.f32 {%f1, ...}, [%rd4];"),
// so an instruction is known by its opcode's dotted parts. The SASS ptxas makes from it may differ (ptxas unrolls,
// fuses, drops dead code), but what the source asked for (shared memory, barriers, shuffles, vector loads, tensor
// cores) is in the PTX, and resource usage is ptxas's own figure.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <fstream>
#include <sstream>

#include "core/tool.h"
#include "inspect/facts.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

std::string_view trim_ptx(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (true) {
    const auto next = text.find(separator, at);
    parts.emplace_back(text.substr(at, next - at));
    if (next == std::string_view::npos) break;
    at = next + 1;
  }
  return parts;
}

bool has(const std::vector<std::string>& parts, std::string_view part) {
  return std::find(parts.begin(), parts.end(), part) != parts.end();
}

bool has_prefix(const std::vector<std::string>& parts, std::string_view prefix) {
  return std::any_of(parts.begin(), parts.end(), [&](const std::string& part) { return part.rfind(prefix, 0) == 0; });
}

// Bits of one element of a typed opcode: ".f32" 32, ".b64" 64, ".b128" 128; 0 for none.
int element_bits(const std::vector<std::string>& parts) {
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    const std::string& part = *it;
    if (part.size() < 2 || std::string("fbsu").find(part[0]) == std::string::npos) continue;
    if (!std::all_of(part.begin() + 1, part.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) continue;
    return std::stoi(part.substr(1));
  }
  return 0;
}

void count_access(GlobalAccess& access, const std::vector<std::string>& parts) {
  int elements = 1;
  if (has(parts, "v4")) {
    ++access.v4;
    elements = 4;
  } else if (has(parts, "v2")) {
    ++access.v2;
    elements = 2;
  } else {
    ++access.scalar;
  }
  access.widest_bits = std::max(access.widest_bits, elements * element_bits(parts));
}

void add_access(GlobalAccess& into, const GlobalAccess& from) {
  into.scalar += from.scalar;
  into.v2 += from.v2;
  into.v4 += from.v4;
  into.widest_bits = std::max(into.widest_bits, from.widest_bits);
}

// A function of the PTX being read: a kernel (.entry) or a device function (.func) it may call.
struct PtxFunction {
  Kernel counts;  // symbol, counts, listing
  bool entry = false;
  std::vector<std::string> calls;
};

// The name after ".entry" or ".func" (a .func may first declare its return value in parentheses).
std::string declared_name(std::string_view header, std::string_view keyword) {
  std::string_view rest = trim_ptx(header.substr(header.find(keyword) + keyword.size()));
  if (!rest.empty() && rest.front() == '(') {
    const auto close = rest.find(')');
    rest = close == std::string_view::npos ? std::string_view() : trim_ptx(rest.substr(close + 1));
  }
  const auto end = rest.find_first_of("( \t;");
  return std::string(rest.substr(0, end));
}

void count_instruction(PtxFunction& function, std::string_view line, std::set<std::string>& labels_seen) {
  Kernel& k = function.counts;
  std::string_view text = trim_ptx(line);
  if (!text.empty() && text.front() == '@') {  // a predicate: "@%p1 bra $L__BB0_2;"
    const auto space = text.find_first_of(" \t");
    text = space == std::string_view::npos ? std::string_view() : trim_ptx(text.substr(space));
  }
  const auto opcode_end = text.find_first_of(" \t;");
  const std::string opcode(text.substr(0, opcode_end));
  const std::vector<std::string> parts = split(opcode, '.');
  const std::string& op = parts[0];
  const std::string_view operands = opcode_end == std::string_view::npos ? std::string_view() : trim_ptx(text.substr(opcode_end));

  if (op == "ld" || op == "ldu" || op == "st") {
    const bool load = op != "st";
    if (has_prefix(parts, "shared")) (load ? k.shared_loads : k.shared_stores)++;
    else if (has(parts, "global")) count_access(load ? k.global_loads : k.global_stores, parts);
    else if (has(parts, "local")) (load ? k.local_loads : k.local_stores)++;
  } else if (op == "cp" && parts.size() > 1 && parts[1] == "async") {
    // cp.async.ca.shared.global [dst], [src], 16: a global load straight into shared memory, 4 to 16 bytes.
    const auto comma = operands.rfind(',');
    const int bytes = comma == std::string_view::npos ? 4 : std::atoi(std::string(trim_ptx(operands.substr(comma + 1))).c_str());
    std::vector<std::string> as_load = {"ld", "global", bytes >= 16 ? "v4" : (bytes == 8 ? "v2" : "b32"), "b32"};
    if (has(parts, "global")) count_access(k.global_loads, as_load);
    if (has_prefix(parts, "shared")) ++k.shared_stores;
  } else if ((op == "bar" || op == "barrier") && !has(parts, "warp")) {
    ++k.barriers;
  } else if (op == "shfl") {
    ++k.shuffles;
  } else if (op == "atom" || op == "red") {
    ++k.atomics;
  } else if (op == "mma" || (op == "wmma" && has(parts, "mma")) || (op == "wgmma" && has_prefix(parts, "mma_async"))) {
    ++k.tensor;
  } else if (op == "cvt" && has(parts, "tf32")) {
    ++k.tf32_conversions;
  } else if (op == "bra" || op == "brx") {
    const std::string target(trim_ptx(operands.substr(0, operands.find(';'))));
    if (labels_seen.count(target)) ++k.loops;
  } else if (op == "call") {
    // "call.uni (retval0), _Z3fooi, (param0);" or "call _Z3barv, ();": the first operand not in parentheses.
    int depth = 0;
    std::string current;
    for (char c : operands) {
      if (c == '(') ++depth;
      if (c == ')') --depth;
      if ((c == ',' || c == ';') && depth == 0) {
        const std::string name(trim_ptx(current));
        if (!name.empty() && name.front() != '(') {
          function.calls.push_back(name);
          break;
        }
        current.clear();
        continue;
      }
      current.push_back(c);
    }
  }
  static const std::set<std::string> arithmetic = {"add", "sub", "mul", "fma", "mad", "div", "rcp", "sqrt", "rsqrt", "min", "max"};
  if (arithmetic.count(op)) {
    if (has(parts, "f32")) ++k.fp32;
    else if (has(parts, "f64")) ++k.fp64;
    else if (has(parts, "f16") || has(parts, "f16x2") || has(parts, "bf16") || has(parts, "bf16x2")) ++k.fp16;
  }
}

constexpr std::size_t listing_cap = 600;  // lines of a kernel's PTX kept for the report

}  // namespace

std::string describe_ptx(std::string_view instruction) {
  // The instruction counted alone, as a kernel of one line; its counts say what it is.
  PtxFunction one;
  std::set<std::string> no_labels;
  count_instruction(one, instruction, no_labels);
  const Kernel& k = one.counts;
  const auto access = [](const GlobalAccess& a) {
    return std::string(a.v4 ? "v4" : a.v2 ? "v2" : "scalar") + " (" + std::to_string(a.widest_bits) + "-bit)";
  };
  if (k.shared_loads) return "shared-memory load";
  if (k.shared_stores) return "shared-memory store";
  if (k.global_loads.total()) return "global load, " + access(k.global_loads);
  if (k.global_stores.total()) return "global store, " + access(k.global_stores);
  if (k.local_loads || k.local_stores) return "local memory";
  if (k.barriers) return "barrier";
  if (k.shuffles) return "warp shuffle";
  if (k.atomics) return "atomic";
  if (k.tensor) return "tensor core";
  if (k.tf32_conversions) return "TF32 conversion";
  if (k.fp64) return "FP64";
  if (k.fp32) return "FP32";
  if (k.fp16) return "FP16";
  return {};
}

std::vector<Kernel> parse_ptx(std::string_view ptx) {
  std::vector<PtxFunction> functions;
  PtxFunction* current = nullptr;
  bool in_body = false;
  int depth = 0;
  std::set<std::string> labels_seen;
  std::size_t at = 0;
  while (at < ptx.size()) {
    auto end = ptx.find('\n', at);
    if (end == std::string_view::npos) end = ptx.size();
    const std::string_view raw = ptx.substr(at, end - at);
    at = end + 1;
    std::string_view line = raw;
    if (const auto comment = line.find("//"); comment != std::string_view::npos) line = line.substr(0, comment);
    line = trim_ptx(line);
    if (line.empty()) continue;

    if (!current) {
      for (std::string_view keyword : {".entry ", ".func "}) {
        if (line.find(keyword) == std::string_view::npos || line.rfind(".extern", 0) == 0) continue;
        functions.push_back({});
        current = &functions.back();
        current->entry = keyword == ".entry ";
        current->counts.symbol = declared_name(line, keyword);
        current->counts.name = demangle(current->counts.symbol);
        in_body = false;
        depth = 0;
        labels_seen.clear();
        break;
      }
      continue;
    }
    if (!in_body) {
      // Between the header and the body: parameters, then .maxntid / .reqntid; a ';' first means a prototype.
      for (std::string_view bound : {".maxntid", ".reqntid"}) {
        if (line.rfind(bound, 0) != 0) continue;
        int threads = 1;
        for (const auto& number : split(trim_ptx(line.substr(bound.size())), ',')) threads *= std::max(1, std::atoi(number.c_str()));
        current->counts.max_threads = threads;
      }
      if (line.front() == '{') {
        in_body = true;
        depth = 1;
        continue;
      }
      if (line.back() == ';' && line.find(".param") == std::string_view::npos) {
        functions.pop_back();
        current = nullptr;
      }
      continue;
    }
    if (line.front() == '{') {
      ++depth;
      continue;
    }
    if (line.front() == '}') {
      if (--depth == 0) current = nullptr;
      continue;
    }
    if (line.front() == '.') continue;  // .reg, .shared, .local declarations
    if (line.back() == ':') {           // a label
      labels_seen.insert(std::string(line.substr(0, line.size() - 1)));
      if (current->counts.listing.size() < listing_cap) current->counts.listing.emplace_back(line);
      continue;
    }
    count_instruction(*current, line, labels_seen);
    if (current->counts.listing.size() < listing_cap) current->counts.listing.emplace_back(line);
  }

  // A kernel's counts include every device function it calls, however indirectly, each once.
  std::map<std::string, const PtxFunction*> by_name;
  for (const auto& function : functions) by_name[function.counts.symbol] = &function;
  std::vector<Kernel> kernels;
  for (const auto& function : functions) {
    if (!function.entry) continue;
    Kernel kernel = function.counts;
    std::set<std::string> seen{function.counts.symbol};
    std::vector<std::string> pending = function.calls;
    while (!pending.empty()) {
      const std::string name = pending.back();
      pending.pop_back();
      if (!seen.insert(name).second) continue;
      const auto found = by_name.find(name);
      if (found == by_name.end()) continue;
      const Kernel& callee = found->second->counts;
      kernel.shared_loads += callee.shared_loads;
      kernel.shared_stores += callee.shared_stores;
      kernel.barriers += callee.barriers;
      kernel.shuffles += callee.shuffles;
      kernel.atomics += callee.atomics;
      add_access(kernel.global_loads, callee.global_loads);
      add_access(kernel.global_stores, callee.global_stores);
      kernel.local_loads += callee.local_loads;
      kernel.local_stores += callee.local_stores;
      kernel.fp32 += callee.fp32;
      kernel.fp64 += callee.fp64;
      kernel.fp16 += callee.fp16;
      kernel.tensor += callee.tensor;
      kernel.tf32_conversions += callee.tf32_conversions;
      kernel.loops += callee.loops;
      pending.insert(pending.end(), found->second->calls.begin(), found->second->calls.end());
    }
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

void add_ptxas_usage(std::vector<Kernel>& kernels, std::string_view output) {
  Kernel* current = nullptr;
  auto number_before = [](std::string_view line, std::string_view unit) -> std::optional<int> {
    const auto at = line.find(unit);
    if (at == std::string_view::npos || at == 0) return std::nullopt;
    auto start = at;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(line[start - 1]))) --start;
    if (start == at) return std::nullopt;
    return std::atoi(std::string(line.substr(start, at - start)).c_str());
  };
  std::size_t at = 0;
  while (at < output.size()) {
    auto end = output.find('\n', at);
    if (end == std::string_view::npos) end = output.size();
    const std::string_view line = output.substr(at, end - at);
    at = end + 1;
    for (std::string_view marker : {"Compiling entry function '", "Function properties for "}) {
      const auto found = line.find(marker);
      if (found == std::string_view::npos) continue;
      std::string_view name = line.substr(found + marker.size());
      name = trim_ptx(name.substr(0, name.find('\'')));
      current = nullptr;
      for (auto& kernel : kernels)
        if (kernel.symbol == name) current = &kernel;
    }
    if (current == nullptr) continue;
    if (auto value = number_before(line, " bytes stack frame")) current->stack_bytes = *value;
    if (auto value = number_before(line, " bytes spill stores")) current->spill_store_bytes = *value;
    if (auto value = number_before(line, " bytes spill loads")) current->spill_load_bytes = *value;
    if (auto value = number_before(line, " registers")) current->registers = *value;
    if (auto value = number_before(line, " bytes smem")) current->shared_bytes = *value;
  }
}

const Kernel* GpuFacts::find(std::string_view symbol) const {
  for (const auto& kernel : kernels)
    if (kernel.symbol == symbol) return &kernel;
  return nullptr;
}

std::vector<const Kernel*> GpuFacts::launched_by(std::string_view symbol) const {
  // nvcc names a kernel's host stub "__device_stub_" + its symbol ("_Z5plainPKfPfi" -> "__device_stub__Z5plainPKfPfi"),
  // and gives the host shadow the kernel's own symbol; reaching either is a launch.
  // The host shadow of a kernel with internal linkage (in an anonymous namespace, or a template's instance there) is
  // mangled with an "L" the PTX's .entry lacks ("..._cu_0dc5dd1bL20multi_element_kernelILb1EEEvPKflPf" against
  // "..._cu_0dc5dd1b20multi_element_kernelILb1EEEvPKflPf"): both demangle alike, so the demangled names match too.
  std::set<std::string> reached;
  for (const auto& name : host.reachable_symbols(symbol)) {
    reached.insert(name);
    reached.insert(plain_name(name));
    reached.insert(demangle(name));
  }
  std::vector<const Kernel*> launched;
  for (const auto& kernel : kernels) {
    const std::string stub = kernel.symbol.rfind("_Z", 0) == 0 ? "__device_stub_" + kernel.symbol : "__device_stub__" + kernel.symbol;
    if (kernel.symbol != symbol && (reached.count(kernel.symbol) || reached.count(stub) || reached.count(demangle(kernel.symbol))))
      launched.push_back(&kernel);
  }
  return launched;
}

GpuFacts read_gpu_facts(const std::vector<fs::path>& ptx_files, const std::vector<fs::path>& host_objects,
                        const std::string& gpu_arch, const std::string& ptxas, bool keep_usage) {
  GpuFacts facts;
  for (const auto& file : ptx_files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InspectError("cannot read " + file.filename().string());
    std::stringstream text;
    text << in.rdbuf();
    std::vector<Kernel> kernels = parse_ptx(text.str());
    const fs::path kept = file.string() + ".ptxas-" + gpu_arch + ".txt";
    std::string usage_text;
    if (keep_usage && fs::exists(kept)) {
      std::ifstream kept_in(kept, std::ios::binary);
      std::stringstream words;
      words << kept_in.rdbuf();
      usage_text = words.str();
    } else {
      const ToolResult usage = run_tool({ptxas, "-v", "-arch=" + gpu_arch, file.string(), "-o", "/dev/null"}, ".", 120, 4u << 20);
      if (!usage.ok())
        throw InspectError("ptxas -v could not read " + file.filename().string() + ": " + usage.output.substr(0, 300));
      usage_text = usage.output;
      if (keep_usage) std::ofstream(kept, std::ios::binary) << usage_text;
    }
    add_ptxas_usage(kernels, usage_text);
    for (auto& kernel : kernels) facts.kernels.push_back(std::move(kernel));
  }
  facts.host = read_cpu_facts(host_objects);
  return facts;
}

}  // namespace grader
