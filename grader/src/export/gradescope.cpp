// gradescope.cpp: autograder.zip (export.h). Staged in this process's scratch folder, scanned, zipped beside
// the target and renamed over it, so a failed export leaves no half-written zip.
#include <unistd.h>

#include "export/course.h"
#include "export/export.h"
#include "export/zip.h"

namespace grader {

namespace fs = std::filesystem;

void refuse_gpu_lab(const LabSpec& spec) {
  if (!spec.gpu) return;
  throw ExportError(spec.id + " is a GPU lab, and Gradescope and PrairieLearn graders have no GPU: grade it with "
                    "`grader batch " + spec.id + " SUBMISSIONS --out DIR` on a machine with one, or spread the class "
                    "over a GPU cluster with `--slurm --gpus-per-task 1` (docs/ta-guide.md, \"On a cluster\")");
}

ExportSummary export_gradescope(const Environment& env, const LabSpec& spec, const ExportOptions& options, const fs::path& zip) {
  refuse_gpu_lab(spec);
  const fs::path stage = staging_folder(env, "export-gradescope-" + spec.name());
  const RemoveWhenDone remove_stage{stage};
  write_released_course(env, spec, stage / "course");
  write_hidden_parts(env, spec, stage / "course");
  write_platform_support(env, spec, options, stage / "platform");
  copy_platform_file(env, "gradescope/setup.sh", stage / "setup.sh");
  copy_platform_file(env, "gradescope/run_autograder", stage / "run_autograder");
  check_no_reference_leaks(env, stage);

  ExportSummary summary;
  summary.files = count_files(stage);
  const fs::path partial = zip.parent_path() / ("." + zip.filename().string() + ".tmp-" + std::to_string(::getpid()));
  try {
    write_zip(stage, partial);
    fs::rename(partial, zip);
  } catch (...) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    throw;
  }
  summary.bytes = fs::file_size(zip);
  summary.steps = {
      "Gradescope: create a Programming Assignment worth " + std::to_string(static_cast<long>(spec.max_score())) +
          " points; in its Autograder settings choose the Ubuntu 24.04 base image and upload " + zip.filename().string(),
      "give the autograder at least " + std::to_string(std::max<std::size_t>((spec.limits.memory_mb + 1023) / 1024, 1)) +
          " GiB of memory (the lab's memory limit) and a timeout of at least " + std::to_string(options.timeout_seconds) + " s",
      "students upload " + [&] {
        std::string files;
        for (const auto& file : spec.build.student_files) files += (files.empty() ? "" : ", ") + file;
        return files;
      }() + " (or their repository: skeletons/" + spec.name() + "/ is found in it)",
      "turn the leaderboard on in the assignment's settings to rank the class by the lab's figures"};
  return summary;
}

}  // namespace grader
