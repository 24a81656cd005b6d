// batch_command.h: what `grader batch` was asked, shared by its two halves: cmd_batch.cpp (the command line,
// grading here) and batch_slurm.cpp (a SLURM job array, and --collect once it is over).
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "batch/canvas.h"
#include "batch/roster.h"
#include "batch/runner.h"
#include "batch/slurm.h"
#include "batch/store.h"
#include "cli/exit_codes.h"
#include "core/cpus.h"
#include "core/environment.h"
#include "spec/lab_spec.h"

namespace grader {

// The options of one `grader batch` command, as its command line set them (setup_batch, cmd_batch.cpp).
struct BatchCommand {
  std::string lab;
  std::filesystem::path submissions;
  std::filesystem::path out;
  int jobs = usable_cpus();
  std::string gpus;  // --gpus N|all (batch/gpu_slots.h); empty: one timing slot for the machine
  bool quick = false;
  bool one_at_a_time = false;  // --one-at-a-time: whatever the interference calibration allows (batch/timing_plan.h)
  bool counters = false;  // --counters / --no-counters (GradeOptions::counters); off by default in a batch
  std::optional<std::uint64_t> seed;  // from seed_text, read whole (cli/values.h)
  std::optional<std::string> seed_text;
  bool force = false;
  std::vector<std::string> only;
  std::vector<std::string> regrade;
  std::string reason;  // recorded with each regrade (batch/audit.h)
  bool gradescope = false;
  bool no_bundles = false;
  bool no_summary = false;
  bool similarity = false;  // --similarity: the similarity report into --out too (similarity/similarity.h)
  std::uint64_t max_archive_mb = 64;
  std::size_t max_archive_files = 2000;
  std::string max_archive_mb_text = "64", max_archive_files_text = "2000";
  // The cluster.
  bool slurm = false;
  SlurmOptions slurm_options;
  bool dry_run = false;
  bool wait = false;
  bool collect = false;
  std::optional<std::filesystem::path> array_task;
  // Canvas (batch/canvas.h): read before grading, written after the gradebook.
  std::optional<std::filesystem::path> canvas, canvas_map, canvas_groups;
  std::string canvas_assignment;
  std::optional<CanvasRequest> canvas_request;
};

// A path made absolute with its links resolved: the job script and the array tasks run elsewhere.
std::filesystem::path full_path(const std::filesystem::path& path);

// Says where grades.csv, summary.md and the dashboard went, and names the students not graded yet (then
// ExitCode::internal).
ExitCode report_outputs(const ResultStore& store, const ClassOutputs& outputs);

// --collect: the reports the array tasks stored become grades.csv and summary.md; students without one are named
// with their task's log.
void collect_gradebook(const LabSpec& spec, const ResultStore& store, const std::vector<Submission>& roster,
                       const std::optional<CanvasRequest>& canvas);

// --slurm: writes the job script (printed alone with --dry-run), submits it as an array of tasks that each grade a
// chunk of `students`, and with --wait collects once the job is over. `store` is null only for a dry run.
void submit_to_slurm(const BatchCommand& command, const Environment& env, const LabSpec& spec, const ResultStore* store,
                     const BatchSettings& settings, const std::vector<Submission>& students);

// --similarity: `grader similarity` with its defaults, into the batch's --out (cmd_similarity.cpp).
void write_batch_similarity(const Environment& env, const LabSpec& spec, const BatchCommand& command);

}  // namespace grader
