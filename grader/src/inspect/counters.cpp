#include "inspect/counters.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace grader {

namespace {

constexpr std::string_view metric_dram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr std::string_view metric_load_sectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
constexpr std::string_view metric_load_requests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
constexpr std::string_view metric_store_sectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
constexpr std::string_view metric_store_requests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
constexpr std::string_view metric_load_conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
constexpr std::string_view metric_store_conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
constexpr std::string_view metric_achieved = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr std::string_view metric_threads_per_instruction = "smsp__thread_inst_executed_per_inst_executed.ratio";
constexpr std::string_view metric_tensor = "sm__inst_executed_pipe_tensor_op_hmma.sum";
constexpr std::string_view metric_fma_pipe = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active";
constexpr std::string_view metric_theoretical = "sm__maximum_warps_per_active_cycle_pct";
constexpr std::string_view metric_duration = "gpu__time_duration.sum";
constexpr std::string_view metric_instructions = "smsp__inst_executed.sum";
constexpr std::string_view metric_registers = "launch__registers_per_thread";
constexpr std::string_view metric_shared_static = "launch__shared_mem_per_block_static";
constexpr std::string_view metric_shared_dynamic = "launch__shared_mem_per_block_dynamic";
constexpr std::string_view metric_block_size = "launch__block_size";
constexpr std::string_view metric_grid_size = "launch__grid_size";
// The occupancy limits: how many blocks a multiprocessor could hold by each resource.
constexpr std::pair<std::string_view, const char*> occupancy_limits[] = {{"launch__occupancy_limit_registers", "registers"},
                                                               {"launch__occupancy_limit_shared_mem", "shared memory"},
                                                               {"launch__occupancy_limit_warps", "warps"},
                                                               {"launch__occupancy_limit_blocks", "blocks per SM"}};

// One CSV record: quoted fields ("a, b"), "" for a quote inside one.
std::vector<std::string> csv_fields_of(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

// "1,048,576", "87.52", "n/a": a number, or false.
bool counter_number(std::string text, double& value) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(value);
}

std::string counter_percent_text(double percent) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f%%", percent);
  return text;
}

}  // namespace

const std::vector<std::string_view>& profiled_metrics() {
  static const std::vector<std::string_view> metrics = [] {
    std::vector<std::string_view> list = {metric_dram, metric_load_sectors, metric_load_requests, metric_store_sectors,
                                          metric_store_requests, metric_load_conflicts, metric_store_conflicts,
                                          metric_achieved, metric_threads_per_instruction, metric_tensor, metric_fma_pipe,
                                          metric_theoretical, metric_duration, metric_instructions, metric_registers,
                                          metric_shared_static, metric_shared_dynamic, metric_block_size, metric_grid_size};
    for (const auto& [metric, words] : occupancy_limits) list.push_back(metric);
    return list;
  }();
  return metrics;
}

std::string profiled_metrics_argument() {
  std::string joined;
  for (const auto metric : profiled_metrics()) joined += (joined.empty() ? "" : ",") + std::string(metric);
  return joined;
}

double KernelCounters::metric(std::string_view name, double otherwise) const {
  const auto found = metrics.find(std::string(name));
  return found == metrics.end() ? otherwise : found->second;
}

std::vector<KernelCounters> parse_ncu_raw_csv(std::string_view text) {
  std::vector<std::string> header;
  std::vector<KernelCounters> kernels;
  int name_column = -1, block_column = -1, grid_column = -1, id_column = -1;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line.rfind("==", 0) == 0) continue;  // ==PROF==, ==WARNING==: ncu's words for people
    std::vector<std::string> fields = csv_fields_of(line);
    if (header.empty()) {
      const auto column = [&](const char* name) {
        const auto found = std::find(fields.begin(), fields.end(), name);
        return found == fields.end() ? -1 : static_cast<int>(found - fields.begin());
      };
      name_column = column("Kernel Name");
      if (name_column < 0) continue;  // not the header yet (a line of the application's own)
      id_column = column("ID");
      block_column = column("Block Size");
      grid_column = column("Grid Size");
      header = std::move(fields);
      continue;
    }
    if (fields.size() != header.size())
      throw std::runtime_error("ncu's raw page has a row of " + std::to_string(fields.size()) + " fields under a header of " +
                               std::to_string(header.size()));
    // The units row: no kernel, no ID ("", "", ..., "%", "sector").
    if (fields[name_column].empty() && (id_column < 0 || fields[id_column].empty())) continue;
    KernelCounters kernel;
    kernel.name = fields[name_column];
    if (block_column >= 0) kernel.block = fields[block_column];
    if (grid_column >= 0) kernel.grid = fields[grid_column];
    for (std::size_t i = 0; i < header.size(); ++i) {
      // Metric columns are named as metrics are: lower-case words joined by "__" and dots.
      if (header[i].find("__") == std::string::npos) continue;
      double value = 0;
      if (counter_number(fields[i], value)) kernel.metrics[header[i]] = value;
    }
    kernels.push_back(std::move(kernel));
  }
  if (header.empty()) throw std::runtime_error("no header with a \"Kernel Name\" column: not ncu's raw page as CSV");
  return kernels;
}

Variables counter_variables(const std::vector<KernelCounters>& kernels) {
  Variables facts;
  if (kernels.empty()) return facts;
  facts["profiled_kernels"] = static_cast<double>(kernels.size());
  // Weighted means over the kernels that answered; a kernel without a duration weighs 1.
  const auto weighted = [&](std::string_view metric, std::string_view weight, const char* fact, double scale) {
    double sum = 0, weights = 0;
    for (const auto& k : kernels) {
      if (!k.has(metric)) continue;
      const double w = std::max(k.metric(weight, 1), 1e-12);
      sum += w * k.metric(metric);
      weights += w;
    }
    if (weights > 0) facts[fact] = scale * sum / weights;
  };
  weighted(metric_dram, metric_duration, "dram_throughput", 0.01);
  weighted(metric_achieved, metric_duration, "achieved_occupancy", 0.01);
  weighted(metric_theoretical, metric_duration, "launch_occupancy", 0.01);
  weighted(metric_fma_pipe, metric_duration, "fma_pipe", 0.01);
  weighted(metric_threads_per_instruction, metric_instructions, "thread_efficiency", 1);
  const auto ratio = [&](std::string_view numerator, std::string_view denominator, const char* fact) {
    double top = 0, bottom = 0;
    bool any = false;
    for (const auto& k : kernels)
      if (k.has(numerator) && k.has(denominator)) {
        top += k.metric(numerator);
        bottom += k.metric(denominator);
        any = true;
      }
    if (any && bottom > 0) facts[fact] = top / bottom;
  };
  ratio(metric_load_sectors, metric_load_requests, "sectors_per_load");
  ratio(metric_store_sectors, metric_store_requests, "sectors_per_store");
  const auto summed = [&](std::initializer_list<std::string_view> metrics, const char* fact) {
    double sum = 0;
    bool any = false;
    for (const auto& k : kernels)
      for (const auto metric : metrics)
        if (k.has(metric)) {
          sum += k.metric(metric);
          any = true;
        }
    if (any) facts[fact] = sum;
  };
  summed({metric_load_conflicts, metric_store_conflicts}, "bank_conflicts");
  summed({metric_tensor}, "tensor_executed");
  return facts;
}

std::string counters_kernel_name(const std::string& signature) {
  // "void ns::k<(int)4>(double const*, ...)": cut at the parameter list's '(' that closes at the end.
  if (signature.empty() || signature.back() != ')') return signature;
  int depth = 0;
  for (std::size_t i = signature.size(); i-- > 0;) {
    if (signature[i] == ')') ++depth;
    if (signature[i] == '(' && --depth == 0) return signature.substr(0, i);
  }
  return signature;
}

std::string seen_launch(const std::vector<KernelCounters>& kernels) {
  if (kernels.empty()) return {};
  const auto longest = std::max_element(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) {
    return a.metric(metric_duration) < b.metric(metric_duration);
  });
  const KernelCounters& k = *longest;
  const auto count = [&](std::string_view metric) { return std::to_string(static_cast<long long>(std::llround(k.metric(metric)))); };
  std::string words = counters_kernel_name(k.name) + ": ";
  words += k.has(metric_grid_size) ? count(metric_grid_size) + " blocks" : "grid " + k.grid;
  words += k.has(metric_block_size) ? " of " + count(metric_block_size) + " threads" : ", blocks of " + k.block;
  if (k.has(metric_registers)) words += ", " + count(metric_registers) + " registers";
  if (k.has(metric_shared_static) || k.has(metric_shared_dynamic))
    words += ", " + std::to_string(static_cast<long long>(std::llround(k.metric(metric_shared_static) + k.metric(metric_shared_dynamic)))) +
             " B shared";
  if (k.has(metric_theoretical)) {
    words += "; theoretical occupancy " + counter_percent_text(k.metric(metric_theoretical));
    // The resource that allows the fewest blocks per multiprocessor limits it (ties: the first named).
    const char* limit = nullptr;
    double fewest = 0;
    for (const auto& [metric, what] : occupancy_limits)
      if (k.has(metric) && (limit == nullptr || k.metric(metric) < fewest)) {
        limit = what;
        fewest = k.metric(metric);
      }
    if (limit != nullptr) words += std::string(" (limited by ") + limit + ")";
  }
  if (k.has(metric_achieved)) words += ", achieved " + counter_percent_text(k.metric(metric_achieved));
  if (kernels.size() > 1) words += " (the longest of " + std::to_string(kernels.size()) + " kernels)";
  return words;
}

std::string ncu_failure(std::string_view output) {
  if (output.find("ERR_NVGPUCTRPERM") != std::string_view::npos)
    return "profiling is not permitted here (ERR_NVGPUCTRPERM: the driver lets only administrators read the GPU's "
           "counters; see docs/ta-guide.md)";
  if (output.find("No kernels were profiled") != std::string_view::npos) return "ncu profiled no kernel of the call";
  // Every ==ERROR== line, in order (at most four, each cut at 300 characters): ncu's first line names the kernel,
  // the ones after it say why, and that is what a TA needs to fix a machine.
  std::string lines;
  int count = 0;
  for (auto error = output.find("==ERROR=="); error != std::string_view::npos && count < 4;
       error = output.find("==ERROR==", error + 1), ++count) {
    auto end = output.find('\n', error);
    if (end == std::string_view::npos) end = output.size();
    if (!lines.empty()) lines += " | ";
    lines += std::string(output.substr(error, std::min<std::size_t>(end - error, 300)));
  }
  if (lines.empty()) return {};
  return "ncu failed: " + lines;
}

}  // namespace grader
