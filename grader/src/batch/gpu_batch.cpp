#include "batch/gpu_batch.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <mutex>
#include <tuple>

#include <unistd.h>

#include "batch/gpu_failure.h"
#include "core/atomic_file.h"
#include "core/utf8.h"
#include "core/utc_time.h"

namespace grader {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

fs::path retired_folder(const fs::path& out) { return out / "gpu-retired"; }

// Each GPU's uncorrectable ECC count as read by the check after its last grading (by UUID; nothing: the GPU has no
// ECC). The next grading on that GPU starts from it instead of asking nvidia-smi again when it claims the GPU: the GPU
// was held through that check and given back only after it, so no code ran on it between the two readings. That is
// one nvidia-smi call fewer per student, made while the student holds a GPU, and nvidia-smi calls of the gradings on
// the other GPUs wait for each other in the driver. A count that rose while the GPU was idle between two gradings is
// then seen by the next one, which is voided and graded again elsewhere, and the GPU retired: as it should be. Kept for
// the grader's life (a batch is one process); a UUID names one GPU, and its volatile count only grows.
class EccCountsAfterGrading {
 public:
  std::optional<std::optional<long long>> find(const std::string& uuid) {
    std::lock_guard lock(mutex_);
    const auto found = counts_.find(uuid);
    if (found == counts_.end()) return std::nullopt;
    return found->second;
  }
  void remember(const std::string& uuid, std::optional<long long> count) {
    std::lock_guard lock(mutex_);
    counts_[uuid] = count;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::optional<long long>> counts_;
};

EccCountsAfterGrading& ecc_counts_after_grading() {
  static EccCountsAfterGrading counts;
  return counts;
}

}  // namespace

std::map<std::string, GpuCalibration> calibrate_gpus(const Environment& env, const LabSpec& spec, bool quick,
                                                     const std::vector<Gpu>& gpus, BatchProgress& progress) {
  std::map<std::string, GpuCalibration> calibrations;
  const bool needs_ceilings = std::any_of(spec.performance.begin(), spec.performance.end(),
                                          [](const PerformanceItem& p) { return p.metric == Metric::roofline; });
  if (quick || !needs_ceilings) return calibrations;
  std::vector<std::string> missing;
  for (const auto& gpu : gpus) {
    if (auto known = load_gpu_calibration(env, gpu.uuid)) calibrations[gpu.uuid] = *known;
    else missing.push_back(gpu.uuid);
  }
  if (!missing.empty()) {
    progress.note("calibrating " + std::to_string(missing.size()) + " GPU(s) once each, by UUID; `grader calibrate --gpus all` "
                  "redoes it");
    try {
      const std::vector<GpuCalibration> measured = run_gpu_calibrations(env, missing);
      for (std::size_t i = 0; i < missing.size(); ++i) calibrations[missing[i]] = measured[i];
    } catch (const std::exception& error) {
      progress.note(std::string("warning: the GPUs could not be calibrated one by one (") + error.what() +
                    "); their roofline figures come from the machine's calibration");
    }
  }
  for (const auto& gpu : gpus) {
    const auto found = calibrations.find(gpu.uuid);
    if (found == calibrations.end()) continue;
    char figures[160];
    std::snprintf(figures, sizeof figures, "%.0f GB/s read, %.1f TFLOP/s SGEMM%s", found->second.read_bandwidth_gbps,
                  found->second.sgemm_tflops, found->second.stable ? "" : " (NOT stable)");
    progress.note("roofline of " + describe_gpu(gpu) + ": " + figures);
  }
  return calibrations;
}

StudentGrading on_claimed_gpu(StudentGrading grading, const ClaimGpu& claim, ClaimedGpu& claimed,
                              const std::map<std::string, GpuCalibration>& calibrations) {
  grading.timing_gate = nullptr;  // the GPU is this grading's alone until it ends: it is the timing slot
  grading.claim_gpu = [&claim, &claimed, &calibrations] {
    const Gpu gpu = claim();
    claimed.gpu = gpu;
    const auto known = ecc_counts_after_grading().find(gpu.uuid);
    claimed.ecc_errors_before = known ? *known : uncorrectable_ecc_errors(gpu);
    GpuAssignment assignment{gpu.index, gpu.uuid, std::nullopt};
    if (const auto found = calibrations.find(gpu.uuid); found != calibrations.end()) assignment.calibration = found->second;
    return assignment;
  };
  return grading;
}

std::string gpu_failure_after(const Report& report, const ClaimedGpu& claimed) {
  if (!claimed.gpu) return "";
  if (std::string why = gpu_failure_in(report); !why.empty()) return why;
  if (std::string why = gpu_health_problem(*claimed.gpu); !why.empty()) return why;
  const auto after = uncorrectable_ecc_errors(*claimed.gpu);
  ecc_counts_after_grading().remember(claimed.gpu->uuid, after);
  if (claimed.ecc_errors_before && after && *after > *claimed.ecc_errors_before)
    return "its uncorrectable ECC errors rose from " + std::to_string(*claimed.ecc_errors_before) + " to " +
           std::to_string(*after) + " during the grading";
  return "";
}

void record_retired_gpu(const fs::path& out, const Gpu& gpu, const std::string& why, const std::string& student) {
  fs::create_directories(retired_folder(out));
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const json record = {{"retired_at", utc_now_text()},
                       {"hostname", valid_utf8(host)},
                       {"gpu_index", gpu.index},
                       {"gpu_uuid", gpu.uuid},
                       {"gpu_name", gpu.name},
                       {"why", valid_utf8(why)},
                       {"student", valid_utf8(student)}};
  std::string name = utc_now_text("%Y%m%d-%H%M%S") + "-";
  for (char c : gpu.uuid) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  write_file_atomically(retired_folder(out) / (name + ".json"), record.dump(2) + "\n");
}

std::string gpu_summary_markdown(const fs::path& out, const std::vector<json>& reports) {
  // hostname, index, uuid -> students graded there
  std::map<std::tuple<std::string, int, std::string>, int> graded_on;
  for (const auto& report : reports) {
    const json machine = report.value("machine", json::object());
    if (!machine.contains("gpu_uuid") || !machine["gpu_uuid"].is_string() || !machine["gpu_index"].is_number_integer()) continue;
    ++graded_on[{machine.value("hostname", ""), machine["gpu_index"].get<int>(), machine["gpu_uuid"].get<std::string>()}];
  }
  std::vector<json> retired;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(retired_folder(out), ec)) {
    if (entry.path().extension() != ".json") continue;
    try {
      std::ifstream in(entry.path());
      retired.push_back(json::parse(in));
    } catch (const std::exception&) {
      retired.push_back({{"why", "(an unreadable record: " + entry.path().filename().string() + ")"}});
    }
  }
  if (graded_on.empty() && retired.empty()) return "";
  std::sort(retired.begin(), retired.end(),
            [](const json& a, const json& b) { return a.value("retired_at", "") < b.value("retired_at", ""); });

  std::string md;
  if (!graded_on.empty()) {
    md += "\n**GPUs:** one student per GPU at a time (`--gpus`); each report names its GPU.";
    for (const auto& [key, count] : graded_on)
      md += " " + valid_utf8(std::get<0>(key)) + " GPU " + std::to_string(std::get<1>(key)) + " (" + valid_utf8(std::get<2>(key)) +
            "): " + std::to_string(count) + " student(s).";
    md += "\n";
  }
  for (const auto& r : retired)
    md += "\n**GPU taken out of rotation:** GPU " + std::to_string(r.value("gpu_index", -1)) + " (" + r.value("gpu_uuid", "?") +
          ") on " + r.value("hostname", "?") + " at " + r.value("retired_at", "?") + ", while grading " + r.value("student", "?") +
          ": " + r.value("why", "?") + ". That grading was discarded, not stored; the student was graded again on another "
          "GPU, or is listed above as not graded. Check the GPU (nvidia-smi, the kernel log's Xid lines) before using it again.\n";
  return md;
}

}  // namespace grader
