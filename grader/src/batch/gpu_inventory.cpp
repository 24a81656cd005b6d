#include "batch/gpu_inventory.h"

#include <cstdlib>
#include <set>
#include <sstream>

#include "core/environment.h"
#include "core/tool.h"

namespace grader {

namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// Digits only, and few enough for std::stoi: a GPU index, a count.
bool small_decimal(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() < 9;
}

// nvidia-smi, or the program the test hook names (gpu_inventory.h).
std::optional<std::string> smi_program() {
  if (const char* fake = std::getenv("GRADER_TEST_NVIDIA_SMI"); fake != nullptr && *fake) return std::string(fake);
  return find_on_path("nvidia-smi");
}

const std::vector<std::string> inventory_query = {"--query-gpu=index,uuid,name", "--format=csv,noheader"};

}  // namespace

std::string describe_gpu(const Gpu& gpu) { return "GPU " + std::to_string(gpu.index) + " (" + gpu.uuid + ")"; }

std::vector<Gpu> parse_gpu_inventory(const std::string& csv) {
  std::vector<Gpu> gpus;
  std::set<std::string> uuids;
  std::set<int> indices;
  std::istringstream lines(csv);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (trimmed(line).empty()) continue;
    // The name comes last and is taken whole, whatever it holds.
    const auto first = line.find(',');
    const auto second = first == std::string::npos ? std::string::npos : line.find(',', first + 1);
    const std::string where = "nvidia-smi's GPU list, line " + std::to_string(number) + " ('" + trimmed(line) + "')";
    if (second == std::string::npos) throw std::runtime_error(where + ": expected '<index>, <uuid>, <name>'");
    Gpu gpu;
    const std::string index = trimmed(line.substr(0, first));
    gpu.uuid = trimmed(line.substr(first + 1, second - first - 1));
    gpu.name = trimmed(line.substr(second + 1));
    if (!small_decimal(index)) throw std::runtime_error(where + ": the index '" + index + "' is not a number");
    gpu.index = std::stoi(index);
    if (gpu.uuid.rfind("GPU-", 0) != 0 || gpu.uuid.size() <= 4)
      throw std::runtime_error(where + ": '" + gpu.uuid + "' is not a GPU UUID (GPU-...)");
    if (!uuids.insert(gpu.uuid).second || !indices.insert(gpu.index).second)
      throw std::runtime_error(where + ": this GPU is listed twice");
    gpus.push_back(gpu);
  }
  return gpus;
}

std::vector<Gpu> visible_gpus(const std::vector<Gpu>& all, const std::string& cuda_visible_devices) {
  if (trimmed(cuda_visible_devices).empty()) return all;
  std::vector<Gpu> chosen;
  std::istringstream entries(cuda_visible_devices);
  for (std::string entry; std::getline(entries, entry, ',');) {
    entry = trimmed(entry);
    std::vector<const Gpu*> matches;
    for (const auto& gpu : all)
      if (small_decimal(entry) ? gpu.index == std::stoi(entry) : gpu.uuid.rfind(entry, 0) == 0) matches.push_back(&gpu);
    if (matches.size() != 1)
      throw GpuRequestError("CUDA_VISIBLE_DEVICES names '" + entry + "', which is " +
                            (matches.empty() ? "none" : "more than one") + " of the GPUs nvidia-smi lists; unset it, or "
                            "name GPUs by index or UUID (nvidia-smi -L)");
    bool again = false;
    for (const auto& gpu : chosen) again = again || gpu.uuid == matches.front()->uuid;
    if (!again) chosen.push_back(*matches.front());
  }
  return chosen;
}

std::optional<Gpu> grading_gpu(const std::vector<Gpu>& listed, const std::string& cuda_visible_devices) {
  if (listed.size() == 1) return listed.front();  // the job's cgroup shows it its one GPU, whatever number CUDA uses
  try {
    const std::vector<Gpu> visible = visible_gpus(listed, cuda_visible_devices);
    if (!visible.empty()) return visible.front();
  } catch (const GpuRequestError&) {
    // An entry nvidia-smi does not list: which GPU CUDA calls device 0 is not known here.
  }
  return std::nullopt;
}

std::optional<std::vector<Gpu>> list_gpus() {
  const auto smi = smi_program();
  if (!smi) return std::nullopt;
  std::vector<std::string> argv = {*smi};
  argv.insert(argv.end(), inventory_query.begin(), inventory_query.end());
  const ToolResult listed = run_tool(argv, "", 60);
  if (!listed.ok())
    throw GpuRequestError("nvidia-smi could not list the GPUs" + std::string(listed.timed_out ? " (no answer within 60 s)" : "") +
                          ": " + trimmed(listed.output));
  std::vector<Gpu> gpus;
  try {
    gpus = parse_gpu_inventory(listed.output);
  } catch (const std::exception& error) {
    throw GpuRequestError(error.what());
  }
  return gpus;
}

std::optional<std::vector<Gpu>> query_gpus() {
  const auto gpus = list_gpus();
  if (!gpus) return std::nullopt;
  // A SLURM task (or a TA) that gave the grader some GPUs: only those.
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return visible_gpus(*gpus, visible ? visible : "");
}

std::vector<Gpu> choose_gpus(const std::string& request, const std::optional<std::vector<Gpu>>& available) {
  if (request != "all" && (!small_decimal(request) || std::stoi(request) < 1))
    throw GpuRequestError("--gpus expects a count of GPUs (1 or more) or 'all', not '" + request + "'", true);
  if (!available)
    throw GpuRequestError("--gpus " + request + ": no nvidia-smi on PATH, so this machine has no NVIDIA GPU (install the "
                          "NVIDIA driver, or go without --gpus)");
  if (available->empty()) throw GpuRequestError("--gpus " + request + ": nvidia-smi lists no GPU on this machine");
  if (request == "all") return *available;
  const std::size_t wanted = static_cast<std::size_t>(std::stoi(request));
  if (wanted > available->size())
    throw GpuRequestError("--gpus " + request + ": this machine has " + std::to_string(available->size()) + " GPU(s)" +
                          (std::getenv("CUDA_VISIBLE_DEVICES") ? " that CUDA_VISIBLE_DEVICES lets it use" : "") +
                          "; ask for at most that many, or --gpus all");
  return std::vector<Gpu>(available->begin(), available->begin() + static_cast<std::ptrdiff_t>(wanted));
}

std::optional<long long> uncorrectable_ecc_errors(const Gpu& gpu) {
  const auto smi = smi_program();
  if (!smi) return std::nullopt;
  const ToolResult answer = run_tool({*smi, "-i", gpu.uuid, "--query-gpu=ecc.errors.uncorrected.volatile.total",
                                      "--format=csv,noheader,nounits"}, "", 30);
  const std::string count = trimmed(answer.output);
  // "[N/A]" or "[Not Supported]" on a GPU without ECC.
  if (!answer.ok() || !small_decimal(count)) return std::nullopt;
  return std::stoll(count);
}

std::string gpu_health_problem(const Gpu& gpu) {
  const auto smi = smi_program();
  if (!smi) return "nvidia-smi is gone";
  std::vector<std::string> argv = {*smi, "-i", gpu.uuid};
  argv.insert(argv.end(), inventory_query.begin(), inventory_query.end());
  // A GPU that fell off the bus often hangs nvidia-smi rather than failing it.
  const ToolResult answer = run_tool(argv, "", 30);
  if (answer.timed_out) return "nvidia-smi did not answer about it within 30 s";
  if (!answer.ok()) return "nvidia-smi no longer answers for it: " + trimmed(answer.output);
  try {
    for (const auto& listed : parse_gpu_inventory(answer.output))
      if (listed.uuid == gpu.uuid) return "";
  } catch (const std::exception& error) {
    return std::string("nvidia-smi's answer about it is garbled: ") + error.what();
  }
  return "nvidia-smi no longer lists it";
}

}  // namespace grader
