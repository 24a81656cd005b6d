// batch_slurm.cpp: `grader batch --slurm` (a job array whose tasks grade chunks of the class) and `--collect`.
// docs/ta-guide.md is the user's guide; batch/slurm.* writes the script and talks to sbatch and squeue.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <thread>

#include "batch/progress.h"
#include "build/build.h"
#include "cli/batch_command.h"
#include "cli/common.h"
#include "cli/grade_slurm.h"
#include "core/tool.h"
#include "report/reference_points.h"
#include "slurm/course_settings.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

// The folder of the latest --slurm submission into `out` (slurm/<UTC time>/), or nothing.
std::optional<fs::path> latest_submission(const fs::path& out) {
  std::optional<fs::path> latest;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(out / "slurm", ec))
    if (fs::exists(entry.path() / "roster.json") && (!latest || entry.path().filename() > latest->filename())) latest = entry.path();
  return latest;
}

// A new folder for one --slurm submission, named by the time, so a second submission never rewrites the roster
// a running job's tasks are still to read.
fs::path new_submission_folder(const fs::path& out) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  fs::path folder = out / "slurm" / stamp;
  for (int n = 2; fs::exists(folder); ++n) folder = out / "slurm" / (std::string(stamp) + "-" + std::to_string(n));
  return folder;
}

}  // namespace

void collect_gradebook(const LabSpec& spec, const ResultStore& store, const std::vector<Submission>& roster,
                       const std::optional<CanvasRequest>& canvas) {
  const ClassOutputs outputs = write_class_outputs(spec, store, roster, load_reference_points(current_environment(), spec.name()));
  if (canvas) write_canvas_outputs(*canvas, spec.max_score(), store.folder(), store.all_results(), std::cerr);
  ExitCode code = report_outputs(store, outputs);
  const auto submission = latest_submission(store.folder());
  if (!outputs.not_graded.empty() && submission) {
    const TaskRoster tasks = read_task_roster(*submission / "roster.json");
    for (const auto& id : outputs.not_graded) {
      const long task = task_of(tasks, id);
      if (task >= 0)
        std::cout << "  " << id << ": see " << (*submission / "logs" / ("task-" + std::to_string(task) + ".log")).string() << "\n";
    }
    std::cout << "grade them with the same command without --collect (here), or submit again with --slurm\n";
  }
  for (const auto& r : store.all_results())
    if (r.value("status", "") == "internal_error") code = ExitCode::internal;
  command_result() = code;
}

void submit_to_slurm(const BatchCommand& command, const Environment& env, const LabSpec& spec, const ResultStore* store,
                     const BatchSettings& settings, const std::vector<Submission>& students) {
  const fs::path out = full_path(command.out);
  const fs::path slurm_folder = new_submission_folder(out);
  // The course's cluster settings (course.toml [slurm], the ones a student's `grader LAB --slurm` uses) fill in
  // what the command line leaves out.
  SlurmOptions options = command.slurm_options;
  const std::optional<CourseSlurm> course = course_slurm_or_fail(env);
  if (course) apply_course_settings(options, *course, spec.gpu);
  // A GPU lab's task with G GPUs grades G students at a time (--gpus all): G times the students in the same time.
  const int gpus_per_task = spec.gpu ? std::max(1, options.gpus_per_task) : 1;
  const int chunk = options.chunk > 0 ? options.chunk : students_per_task(command.quick) * gpus_per_task;
  TaskRoster tasks{spec.id, chunk, {}};
  for (const auto& s : students)
    if (command.force || !store || !store->finished(s.id)) tasks.students.push_back(s.id);

  const std::string grader = course && !course->grader.empty() ? course->grader : this_executable().string();
  const std::string root = course && !course->root.empty() ? course->root : full_path(env.root).string();
  std::vector<std::string> task_command = {grader, "--root", root, "batch", spec.id,
                                           full_path(command.submissions).string(), "--out", out.string(),
                                           "--array-task", (slurm_folder / "roster.json").string(),
                                           "--seed", std::to_string(settings.seed), "--no-summary",
                                           "--max-archive-mb", std::to_string(command.max_archive_mb),
                                           "--max-archive-files", std::to_string(command.max_archive_files)};
  if (command.quick) task_command.push_back("--quick");
  if (command.counters) task_command.push_back("--counters");  // a task's own default is off, as the batch's
  // Each task grades on every GPU it was given, one student per GPU, as a local --gpus batch does.
  if (spec.gpu && options.gpus_per_task > 0) task_command.insert(task_command.end(), {"--gpus", "all"});
  if (command.force || !command.regrade.empty()) task_command.push_back("--force");
  if (!command.reason.empty()) task_command.insert(task_command.end(), {"--reason", command.reason});
  if (settings.writes(gradescope_format)) task_command.push_back("--gradescope");
  if (command.no_bundles) task_command.push_back("--no-bundles");

  options.chunk = tasks.chunk;
  options.job_name = "grade-" + spec.id;
  // A task's time limit from its work when the TA gives none: a job without one gets the partition's maximum,
  // which holds back the scheduler's backfill for everyone.
  if (options.time.empty()) options.time = task_time((tasks.chunk + gpus_per_task - 1) / gpus_per_task, command.quick);
  // A task gets the CPUs it asks for (one by default), and a lab sizes its threads to them: a lab that times threaded
  // code needs the TA to ask for the cores it is to be timed on.
  const bool times_threads = !command.quick && std::any_of(spec.performance.begin(), spec.performance.end(), [](const PerformanceItem& p) {
    return !p.cpu_threads.is_constant() || p.cpu_threads.evaluate({}) > 1;
  });
  std::string cpu_note;
  if (times_threads && options.cpus_per_task == 0 && !options.exclusive)
    cpu_note = spec.name() + " times threaded code, and each task has the CPUs it asks for (one by default): give "
               "--cpus-per-task N (a node type's cores, with --constraint) or --exclusive, or its scaling is timed on one core";
  const std::size_t array = array_size(tasks.students.size(), tasks.chunk);
  const std::string collect_line = quote_command({this_executable().string(), "--root", full_path(env.root).string(), "batch",
                                                  spec.id, full_path(command.submissions).string(), "--out", out.string(), "--collect"});
  const std::string comment = "Written by `grader batch --slurm`: grades " + spec.id + " for " + std::to_string(tasks.students.size()) +
                              " student(s), " + std::to_string(tasks.chunk) + " per array task.\n"
                              "Each task stores each student's report into " + out.string() + " as soon as it is known;\n"
                              "a task run again skips the students it already finished. When the job is over:\n  " + collect_line +
                              (cpu_note.empty() ? "" : "\nwarning: " + cpu_note);
  const std::string script = sbatch_script(options, array, slurm_folder / "logs", task_command, comment);

  if (!cpu_note.empty()) std::cerr << "warning: " << cpu_note << "\n";
  if (command.dry_run) {
    std::cout << script;
    return;
  }
  if (tasks.students.empty()) {
    std::cout << "every student is already graded in " << out.string() << " (--force regrades)\n";
    return;
  }
  if (!store) throw CommandFailure(ExitCode::internal, "no output folder");
  for (const char* tool : {"sbatch", "squeue"})
    if (!find_on_path(tool))
      throw CommandFailure(ExitCode::environment, std::string("no ") + tool + " on PATH: --slurm submits from a SLURM login node "
                                                  "(Debian package slurm-client); --dry-run prints the script anywhere");
  store->save_settings(settings);
  fs::create_directories(slurm_folder / "logs");
  // Built once here, so the tasks find the lab's own code in the cache instead of all building it at once.
  build_lab(env, spec);
  write_task_roster(slurm_folder / "roster.json", tasks);
  const fs::path script_path = slurm_folder / ("grade-" + spec.id + ".sbatch");  // beside its roster and logs
  write_file_atomically(script_path, script);
  std::string job;
  try {
    job = submit_job(script_path);
  } catch (const std::exception& error) {
    // sbatch is there and said no (an account, a partition, a limit): not a missing environment.
    throw CommandFailure(ExitCode::job_refused, std::string(error.what()) + "\nnothing was graded; the script is " +
                                                    script_path.string() + " (fix the option it names and run again)");
  }
  std::cout << "submitted job " << job << ": " << array << " array task(s) for " << tasks.students.size() << " student(s); script "
            << script_path.string() << "\n";
  if (!command.wait) {
    std::cout << "when it is over (squeue -j " << job << " lists nothing): " << collect_line << "\n";
    return;
  }
  std::size_t last = static_cast<std::size_t>(-1);
  while (job_active(job)) {
    std::size_t done = 0;
    for (const auto& id : tasks.students)
      if (store->finished(id)) ++done;
    if (done != last) std::cerr << "job " << job << ": " << done << "/" << tasks.students.size() << " students stored\n";
    last = done;
    std::this_thread::sleep_for(std::chrono::seconds(3));
  }
  std::cout << "job " << job << " is over; collecting\n";
  collect_gradebook(spec, *store, read_roster(full_path(command.submissions), out), command.canvas_request);
}

}  // namespace grader
