// grader batch LAB SUBMISSIONS --out DIR: grades a class. docs/ta-guide.md is the user's guide.
//
//   grader batch lab1 subs --out grades                    every student, here (resumable: run it again)
//   grader batch lab1 subs --out grades --regrade alice --reason "appeal 12"   alice again, same inputs, logged
//   grader batch lab1 subs --out grades --slurm --account cs101 --constraint icelake   a SLURM job array
//   grader batch lab1 subs --out grades --collect          gradebook and summary once the array is done
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>

#include "batch/gpu_batch.h"
#include "batch/progress.h"
#include "batch/roster.h"
#include "batch/runner.h"
#include "batch/slurm.h"
#include "batch/store.h"
#include "report/reference_points.h"
#include "build/build.h"
#include "cli/batch_command.h"
#include "cli/common.h"
#include "cli/values.h"
#include "core/scratch.h"
#include "pipeline/grade.h"
#include "run/sandbox.h"

namespace grader {

namespace fs = std::filesystem;

fs::path full_path(const fs::path& path) { return fs::weakly_canonical(fs::absolute(path)); }
ExitCode report_outputs(const ResultStore& store, const ClassOutputs& outputs) {
  std::cout << "wrote " << (store.folder() / "grades.csv").string() << " (" << outputs.students << " students), "
            << (store.folder() / "summary.md").string() << " and the dashboard " << (store.folder() / "report.html").string()
            << "\n";
  if (!outputs.not_graded.empty()) {
    std::cout << outputs.not_graded.size() << " student(s) not graded yet:";
    for (const auto& id : outputs.not_graded) std::cout << " " << id;
    std::cout << "\n";
    return ExitCode::internal;
  }
  return ExitCode::all_passed;
}

namespace {

// The batch seed and --quick are fixed by the first run into a folder: a gradebook never mixes inputs or modes.
BatchSettings settle_settings(const BatchCommand& command, const LabSpec& spec, const ResultStore& store) {
  BatchSettings settings{spec.id, 0, command.quick, {}};
  const auto existing = store.settings();
  if (existing) {
    if (existing->lab != spec.id)
      throw CommandFailure(ExitCode::usage, store.folder().string() + " holds a batch of " + existing->lab + ", not " + spec.id +
                                                "; choose another --out");
    if (existing->quick != command.quick)
      throw CommandFailure(ExitCode::usage, store.folder().string() + " holds a " + (existing->quick ? "--quick" : "timed") +
                                                " batch; run with" + (existing->quick ? "" : "out") +
                                                " --quick, or choose another --out");
    if (command.seed && *command.seed != existing->seed)
      throw CommandFailure(ExitCode::usage, store.folder().string() + " was graded with --seed " + std::to_string(existing->seed) +
                                                "; a different seed needs another --out");
    settings.seed = existing->seed;
    settings.formats = existing->formats;  // once written, always written: a regrade leaves no stale file
  } else {
    settings.seed = command.seed.value_or(fresh_seed());
  }
  if (command.gradescope && !settings.writes(gradescope_format)) settings.formats.push_back(gradescope_format);
  return settings;
}

std::vector<Submission> choose_students(const BatchCommand& command, const std::vector<Submission>& roster,
                                        std::vector<std::string>& unknown) {
  if (command.array_task) {
    TaskRoster tasks;
    try {
      tasks = read_task_roster(*command.array_task);
    } catch (const std::exception& error) {
      throw CommandFailure(ExitCode::usage, error.what());
    }
    const char* index = std::getenv("SLURM_ARRAY_TASK_ID");
    if (index == nullptr || std::string(index).find_first_not_of("0123456789") != std::string::npos || !*index)
      throw CommandFailure(ExitCode::usage, "--array-task runs inside a SLURM array task (SLURM_ARRAY_TASK_ID is not a number)");
    return select_students(roster, task_students(tasks, std::stoul(index)), unknown);
  }
  std::vector<std::string> wanted = command.only;
  wanted.insert(wanted.end(), command.regrade.begin(), command.regrade.end());
  if (wanted.empty()) return roster;
  return select_students(roster, wanted, unknown);
}

StudentGrading student_grading(const BatchCommand& command, const BatchSettings& settings) {
  StudentGrading grading;
  grading.batch_seed = settings.seed;
  grading.quick = command.quick;
  grading.counters = command.counters;
  grading.limits.max_bytes = command.max_archive_mb << 20;
  grading.limits.max_entries = command.max_archive_files;
  grading.scratch = scratch_root() / "batch";  // private to this process, removed when it ends (core/scratch.h)
  return grading;
}

// --gpus on this node: a GPU lab only (a CPU lab's timings take the machine's cores, one student at a time).
std::vector<Gpu> batch_gpus(const BatchCommand& command, const LabSpec& spec) {
  if (!spec.gpu)
    throw CommandFailure(ExitCode::usage, "--gpus: " + spec.name() + " is a CPU lab, timed on the machine's cores one student "
                                          "at a time; grade it without --gpus");
  try {
    return choose_gpus(command.gpus, query_gpus());
  } catch (const GpuRequestError& error) {
    throw CommandFailure(error.malformed ? ExitCode::usage : ExitCode::environment, error.what());
  }
}

// The numbers of the command line, read whole: a wrapped or negative value is a usage error, never a silent limit.
void read_numbers(BatchCommand& command) {
  if (command.seed_text) command.seed = parse_whole_number("--seed", *command.seed_text, 0, UINT64_MAX);
  // 1 MiB .. 1 TiB: 2^44 MiB once wrapped to a 0-byte limit, and -1 to no limit at all.
  command.max_archive_mb = parse_whole_number("--max-archive-mb", command.max_archive_mb_text, 1, std::uint64_t{1} << 20);
  command.max_archive_files = parse_whole_number("--max-archive-files", command.max_archive_files_text, 1, 100'000'000);
  const SlurmOptions& slurm = command.slurm_options;
  for (const auto& [option, value] : {std::pair{"--partition", slurm.partition}, {"--time", slurm.time}, {"--account", slurm.account},
                                      {"--qos", slurm.qos}, {"--mem", slurm.mem}, {"--constraint", slurm.constraint}})
    if (const std::string problem = sbatch_value_problem(option, value); !problem.empty()) throw CommandFailure(ExitCode::usage, problem);
  for (const auto& extra : slurm.extra) {
    if (const std::string problem = sbatch_value_problem("--sbatch", extra); !problem.empty()) throw CommandFailure(ExitCode::usage, problem);
    if (extra.rfind("-", 0) != 0)
      throw CommandFailure(ExitCode::usage, "--sbatch '" + extra + "' is not an sbatch option (like --reservation=exam)");
  }
  if (slurm.chunk < 0 || slurm.array_limit < 0) throw CommandFailure(ExitCode::usage, "--chunk and --array-limit are counts: 1 or more");
}

// --canvas ROSTER.csv [--canvas-map MAP.csv] [--canvas-groups GROUPS.csv]: read now, so a wrong file stops the batch
// before anyone is graded.
void read_canvas_request(BatchCommand& command, const LabSpec& spec) {
  if (!command.canvas) {
    if (command.canvas_map || command.canvas_groups || !command.canvas_assignment.empty())
      throw CommandFailure(ExitCode::usage, "--canvas-map, --canvas-groups and --canvas-assignment go with --canvas ROSTER.csv");
    return;
  }
  try {
    CanvasRequest request{read_canvas_roster(*command.canvas), {}, command.canvas_assignment, std::nullopt};
    if (command.canvas_map) request.map = read_submission_map(*command.canvas_map);
    if (command.canvas_groups) request.groups = read_canvas_groups(*command.canvas_groups);
    if (request.assignment.empty()) request.assignment = spec.name();
    command.canvas_request = std::move(request);
  } catch (const std::exception& error) {
    throw CommandFailure(ExitCode::usage, std::string("--canvas: ") + error.what());
  }
}

ResultStore open_store(const fs::path& out) {
  try {
    return ResultStore(out);
  } catch (const std::exception& error) {
    throw CommandFailure(ExitCode::usage, std::string("--out: ") + error.what());
  }
}

void lock_store(const ResultStore& store, FolderLock::Mode mode, std::optional<FolderLock>& into) {
  try {
    into.emplace(store.folder(), mode);
    if (!into->held()) std::cerr << "warning: " << into->why() << "; nothing keeps another batch out of this folder\n";
  } catch (const BusyFolder& busy) {
    throw CommandFailure(ExitCode::usage, busy.what());
  } catch (const std::exception& error) {
    throw CommandFailure(ExitCode::usage, std::string("--out: ") + error.what());
  }
}

void run_batch_command(BatchCommand command) {
  read_numbers(command);
  const Environment env = current_environment();
  const LabSpec spec = load_lab(env, command.lab);
  read_canvas_request(command, spec);
  if (!fs::is_directory(command.submissions))
    throw CommandFailure(ExitCode::usage, "the submissions folder " + command.submissions.string() + " is not a folder");
  if (command.jobs < 1) throw CommandFailure(ExitCode::usage, "--jobs must be at least 1");
  const int modes = int(command.slurm) + int(command.collect) + int(command.array_task.has_value());
  if (modes > 1) throw CommandFailure(ExitCode::usage, "--slurm, --collect and --array-task do not go together");
  if (command.array_task && (!command.only.empty() || !command.regrade.empty()))
    throw CommandFailure(ExitCode::usage, "--array-task chooses its own students; --only and --regrade do not apply");
  // --gpus before anything is written: a refused batch leaves no folder behind.
  std::vector<Gpu> gpus;
  if (!command.gpus.empty() && command.slurm) {  // N GPUs per task, unless --gpus-per-task says otherwise
    if (!spec.gpu) batch_gpus(command, spec);  // the CPU-lab refusal
    if (command.slurm_options.gpus_per_task == 0 && command.gpus == "all")
      throw CommandFailure(ExitCode::usage, "--slurm --gpus all: say how many GPUs each task gets with --gpus-per-task N");
    if (command.slurm_options.gpus_per_task == 0)
      command.slurm_options.gpus_per_task = static_cast<int>(parse_whole_number("--gpus", command.gpus, 1, 1024));
  } else if (!command.gpus.empty() && !command.collect) {
    gpus = batch_gpus(command, spec);
  }

  // A dry run writes nothing, not even the output folder.
  std::optional<ResultStore> store;
  if (!(command.slurm && command.dry_run)) store.emplace(open_store(command.out));
  // Two local batches into one folder would grade everyone twice: the second is refused. The tasks of one SLURM
  // array grade disjoint students and share the lock; --slurm itself writes only its own submission folder.
  std::optional<FolderLock> lock;
  if (store && !command.slurm)
    lock_store(*store, command.array_task ? FolderLock::Mode::shared : FolderLock::Mode::exclusive, lock);
  const std::optional<fs::path> out_path = store ? std::optional<fs::path>(full_path(command.out)) : std::nullopt;
  std::vector<Submission> roster;
  try {
    roster = read_roster(command.submissions, out_path);
  } catch (const std::exception& error) {
    throw CommandFailure(ExitCode::usage, error.what());
  }

  if (command.collect) {
    if (auto existing = store->settings(); existing && existing->lab != spec.id)
      throw CommandFailure(ExitCode::usage, store->folder().string() + " holds a batch of " + existing->lab + ", not " + spec.id);
    collect_gradebook(spec, *store, roster, command.canvas_request);
    return;
  }

  BatchSettings settings{spec.id, command.seed.value_or(0), command.quick, {}};
  if (store) settings = settle_settings(command, spec, *store);
  else if (!command.seed) settings.seed = fresh_seed();
  if (command.gradescope && !settings.writes(gradescope_format)) settings.formats.push_back(gradescope_format);

  std::vector<std::string> unknown;
  std::vector<Submission> students = choose_students(command, roster, unknown);
  if (!unknown.empty()) {
    std::string list;
    for (const auto& id : unknown) list += " " + id;
    if (!command.array_task) throw CommandFailure(ExitCode::usage, "no submission for:" + list + " in " + command.submissions.string());
    std::cerr << "warning: the roster names students no longer in the submissions folder:" << list << "\n";
  }

  if (command.slurm) {
    submit_to_slurm(command, env, spec, store ? &*store : nullptr, settings, students);
    return;
  }

  store->save_settings(settings);
  store->remove_stale_temporaries();
  const bool terminal = stderr_is_terminal() && !command.array_task;
  BatchRun run;
  run.jobs = command.jobs;
  run.force = command.force || !command.regrade.empty();
  run.gradescope = settings.writes(gradescope_format);
  run.reason = command.reason;
  run.bundles = !command.no_bundles;
  run.grading = student_grading(command, settings);
  run.gpus = gpus;
  run.one_at_a_time = command.one_at_a_time;

  std::size_t to_grade = 0;
  for (const auto& s : students)
    if (run.force || !store->finished(s.id)) ++to_grade;
  BatchProgress progress(to_grade, terminal, std::cerr);
  std::cerr << spec.name() << ": " << students.size() << " student(s), " << (students.size() - to_grade)
            << " already graded; grading " << to_grade << " with " << command.jobs << " job(s)"
            << (!run.gpus.empty() ? ", one student per GPU on " + std::to_string(run.gpus.size()) + " GPU(s)"
                : command.quick   ? ", --quick" : "")
            << "; batch seed " << settings.seed << "\n";
  if (run.gradescope) {
    std::cerr << "writing Gradescope files too (this folder's batch asked for them once; .batch.json keeps it)\n";
    // Students graded before --gradescope was first asked for get theirs from their stored reports, not graded again
    // (by the local batch; the tasks of a SLURM array write only their own students').
    const std::size_t written = command.array_task ? 0 : write_missing_gradescope(*store, roster);
    if (written > 0)
      std::cerr << "wrote the Gradescope files of " << written << " student(s) graded earlier, from their stored reports\n";
  }
  if (to_grade > 0 && !Sandbox::get().available()) {
    // "no sandbox: <why>; no syscall filter: ...": the why, said before anyone's code runs.
    const std::string isolation = Sandbox::get().description();
    const std::string why = isolation.substr(0, isolation.find(';')).substr(std::string(no_sandbox_words).size());
    std::cerr << "warning: grading WITHOUT the sandbox (" << why << "): student code runs as you, can read your files "
              << "and reach the network. summary.md will say so; see docs/ta-guide.md, \"The sandbox\"\n";
  }

  const auto start = std::chrono::steady_clock::now();
  BatchCounts counts;
  try {
    if (to_grade > 0) prepare_lab(env, spec, command.quick, progress);
    if (to_grade > 0 && !run.gpus.empty()) run.gpu_calibrations = calibrate_gpus(env, spec, command.quick, run.gpus, progress);
    counts = run_batch(env, spec, students, *store, run, progress);
  } catch (const MissingToolchain& missing) {
    progress.close();
    throw CommandFailure(ExitCode::environment, std::string(missing.what()) + " (the students graded so far are stored; run again once it is fixed)");
  } catch (const LabBuildError& error) {
    progress.close();
    throw CommandFailure(ExitCode::internal, std::string("the lab's own code does not build: ") + error.what() + "\n" + error.log());
  } catch (const std::exception& error) {
    progress.close();
    throw CommandFailure(ExitCode::internal, std::string(error.what()) + " (the students graded so far are stored; run again to go on)");
  }
  progress.close();
  std::error_code ec;
  fs::remove_all(run.grading.scratch, ec);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "graded " << counts.graded << " student(s) in " << short_duration(seconds) << " (" << counts.skipped
            << " already done): " << counts.graded - counts.failed << " passed, " << counts.failed << " with failures, "
            << counts.internal_errors << " internal error(s)\n";
  for (const auto& retired : counts.retired_gpus)
    std::cout << describe_gpu(retired.gpu) << " was taken out of rotation: " << retired.why << "\n";

  ExitCode code = counts.internal_errors > 0 ? ExitCode::internal : ExitCode::all_passed;
  // Before the class outputs, so the dashboard they write links the similarity report.
  if (command.similarity) try {
      write_batch_similarity(env, spec, command);
    } catch (const CommandFailure& failure) {
      std::cerr << "grader: the similarity report was not written: " << failure.what() << "\n";
      if (code == ExitCode::all_passed) code = failure.code();
    }
  if (!command.no_summary) {
    const ClassOutputs outputs = write_class_outputs(spec, *store, roster, load_reference_points(env, spec.name()));
    if (report_outputs(*store, outputs) != ExitCode::all_passed && command.only.empty() && command.regrade.empty())
      code = ExitCode::internal;
    if (command.canvas_request)
      write_canvas_outputs(*command.canvas_request, spec.max_score(), store->folder(), store->all_results(), std::cerr);
  }
  command_result() = code;
}

}  // namespace

void setup_batch(CLI::App& app) {
  auto command = std::make_shared<BatchCommand>();
  auto* batch = app.add_subcommand("batch", "grade a class: a gradebook, feedback per student, resumable (docs/ta-guide.md)");
  batch->add_option("lab", command->lab, "the lab: lab1, matvec or lab1-matvec")->required();
  batch->add_option("submissions", command->submissions, "a folder with one entry per student: a folder, .zip or .tar.gz")->required();
  batch->add_option("--out,-o", command->out, "where grades.csv, summary.md and each student's files go")->required();
  batch->add_option("--jobs,-j", command->jobs, "students graded at once (builds and correctness; timings take turns)")
      ->default_str(std::to_string(command->jobs));
  batch->add_flag("--quick,-q", command->quick, "correctness only: no timing");
  batch->add_flag("--one-at-a-time", command->one_at_a_time,
                  "time one student at a time with nothing beside, even where this machine's interference calibration "
                  "allows more");
  batch->add_flag("--counters,!--no-counters", command->counters,
                  "count cycles and cache misses (CPU labs) or profile with ncu (CUDA labs) over one more call of each "
                  "timed item, for the reports (off by default: time per student; they never change points)");
  batch->add_option("--gpus", command->gpus, "GPU labs: one student per GPU at a time, on N GPUs or all of them");
  batch->add_option("--seed", command->seed_text, "the batch seed (default: drawn once, then kept in <out>/.batch.json)");
  batch->add_flag("--force", command->force, "regrade students who are already graded");
  batch->add_option("--only", command->only, "grade just these students (comma-separated ids)")->delimiter(',');
  batch->add_option("--regrade", command->regrade, "regrade this student, replaying their inputs (repeatable)");
  batch->add_option("--reason", command->reason, "why: recorded with each regrade in <out>/regrades.csv");
  batch->add_flag("--gradescope", command->gradescope, "also write gradescope/<id>.results.json, now and on every later run");
  batch->add_flag("--no-bundles", command->no_bundles, "do not write <id>.bundle, each student's replay bundle");
  batch->add_flag("--no-summary", command->no_summary, "do not write grades.csv and summary.md at the end");
  batch->add_flag("--similarity", command->similarity, "also write similarity.html: similar submissions, starter code left "
                  "out (grader similarity has the options)");
  batch->add_option("--canvas", command->canvas, "also write canvas.csv for Canvas's gradebook, from this roster (Canvas's export)");
  batch->add_option("--canvas-map", command->canvas_map, "with --canvas: a CSV `submission,student` naming each submission's student");
  batch->add_option("--canvas-groups", command->canvas_groups, "with --canvas: a group assignment; Canvas's export of the group set (each member gets the group's score)");
  batch->add_option("--canvas-assignment", command->canvas_assignment, "with --canvas: the assignment column (default: the lab's name)");
  batch->add_option("--max-archive-mb", command->max_archive_mb_text, "refuse archives that unpack to more than this")
      ->default_str("64");
  batch->add_option("--max-archive-files", command->max_archive_files_text, "refuse archives with more entries than this")
      ->default_str("2000");
  const std::string cluster = "On a SLURM cluster";
  batch->add_flag("--slurm", command->slurm, "submit the class as a SLURM job array instead of grading here")->group(cluster);
  batch->add_option("--chunk", command->slurm_options.chunk, "students per array task (default: about ten minutes of work)")
      ->group(cluster);
  batch->add_option("--partition", command->slurm_options.partition, "the SLURM partition")->group(cluster);
  batch->add_option("--time", command->slurm_options.time, "time limit per array task (SLURM syntax, e.g. 30:00; default: "
                    "three times the estimate)")->group(cluster);
  batch->add_option("--account", command->slurm_options.account, "the account charged")->group(cluster);
  batch->add_option("--qos", command->slurm_options.qos, "the quality of service")->group(cluster);
  batch->add_option("--mem", command->slurm_options.mem, "memory per task (SLURM syntax, e.g. 8G)")->group(cluster);
  batch->add_option("--constraint", command->slurm_options.constraint, "node features, e.g. icelake: one node type for "
                    "the whole class, so timings compare")->group(cluster);
  batch->add_option("--array-limit", command->slurm_options.array_limit, "at most this many tasks at once (%N)")->group(cluster);
  batch->add_option("--sbatch", command->slurm_options.extra, "another sbatch option, as one word (repeatable), e.g. "
                    "--sbatch=--reservation=exam")->group(cluster);
  batch->add_option("--gpus-per-task", command->slurm_options.gpus_per_task, "GPUs per array task")->group(cluster);
  batch->add_option("--cpus-per-task", command->slurm_options.cpus_per_task, "CPUs per array task")->group(cluster);
  batch->add_flag("--exclusive", command->slurm_options.exclusive, "a whole node per task (only where the cluster's "
                  "policy allows; see docs/ta-guide.md)")->group(cluster);
  batch->add_flag("--dry-run", command->dry_run, "print the job script; submit nothing, write nothing")->group(cluster);
  batch->add_flag("--wait", command->wait, "wait for the job to end, then --collect")->group(cluster);
  batch->add_flag("--collect", command->collect, "write grades.csv and summary.md from what the array tasks stored")->group(cluster);
  // Used by the job script, not by people: grades this array task's students from the roster file.
  batch->add_option("--array-task", command->array_task, "")->group("");
  batch->callback([command] { run_batch_command(*command); });
}

}  // namespace grader
