// grade_slurm.cpp: `grader LAB --slurm` (cli/grade_slurm.h). The student's declared files are staged into a job
// folder on the shared file system, a one-job script from the course's settings runs the grader there on a node,
// and this grader waits, saying where the job stands, until the node's report is back.
#include "cli/grade_slurm.h"

#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "build/stage.h"
#include "cli/batch_command.h"
#include "core/atomic_file.h"
#include "core/unique_name.h"
#include "slurm/job_script.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

volatile std::sig_atomic_t interrupted_by = 0;

void remember_signal(int signal) { interrupted_by = signal; }

// Ctrl-C (and a closed terminal, or a kill) while the job waits or runs: the job is cancelled, not left to run
// for nobody. The handlers are this object's only while it lives.
class CancelOnSignal {
 public:
  CancelOnSignal() {
    interrupted_by = 0;
    struct sigaction action {};
    action.sa_handler = remember_signal;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < 3; ++i) ::sigaction(signals_[i], &action, &previous_[i]);
  }
  ~CancelOnSignal() {
    for (int i = 0; i < 3; ++i) ::sigaction(signals_[i], &previous_[i], nullptr);
  }
  CancelOnSignal(const CancelOnSignal&) = delete;
  CancelOnSignal& operator=(const CancelOnSignal&) = delete;

 private:
  const int signals_[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous_[3] {};
};

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The last `lines` lines of the job's log, indented: what the node said when no report came back.
std::string log_tail(const fs::path& log, std::size_t lines) {
  std::vector<std::string> kept;
  std::istringstream text(read_text(log));
  for (std::string line; std::getline(text, line);) {
    kept.push_back(line);
    if (kept.size() > lines) kept.erase(kept.begin());
  }
  std::string tail;
  for (const auto& line : kept) tail += "\n  | " + line;
  return tail;
}

fs::path jobs_folder(const CourseSlurm& course) {
  if (!course.jobs_folder.empty()) return course.jobs_folder;
  const char* home = std::getenv("HOME");
  if (!home || !*home)
    throw CommandFailure(ExitCode::environment, "--slurm: no HOME to keep job folders in; the course's settings can name "
                                                "one (jobs_folder in " + course.file.string() + ")");
  return fs::path(home) / ".cache" / "grader" / "slurm";
}

// <jobs folder>/<lab>-<UTC time>-<unique>, readable by the student alone: it holds a copy of their work.
fs::path new_job_folder(const CourseSlurm& course, const std::string& lab) {
  const fs::path parent = jobs_folder(course);
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw CommandFailure(ExitCode::environment, "--slurm: cannot make the job folder " + parent.string() + ": " + ec.message());
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  const fs::path folder = parent / (lab + "-" + stamp + "-" + unique_suffix());
  if (::mkdir(folder.c_str(), 0700) != 0)
    throw CommandFailure(ExitCode::environment, "--slurm: cannot make the job folder " + folder.string());
  return folder;
}

// The node's command: the same grading the student asked for, of the staged copy, reported under their own
// folder's name, into the job folder. --hidden only when the student's own command had it (staff).
std::vector<std::string> node_command(const Environment& env, const LabSpec& spec, const CourseSlurm& course,
                                      const SlurmGradeRequest& request, const fs::path& job) {
  std::vector<std::string> words = {course.grader.empty() ? this_executable().string() : course.grader,
                                    "--root", course.root.empty() ? full_path(env.root).string() : course.root,
                                    "grade", spec.id, "--submission", (job / "src").string(),
                                    "--submission-label", request.submission.string(),
                                    "--format", request.format, "--output", (job / "report.partial").string()};
  if (request.quick) words.push_back("--quick");
  if (request.hidden) words.push_back("--hidden");
  if (request.seed) words.insert(words.end(), {"--seed", *request.seed});
  if (!request.sanitize.empty()) words.push_back("--sanitize=" + request.sanitize);
  if (request.only) words.insert(words.end(), {"--only", *request.only});
  return words;
}

std::string job_script_for(const Environment& env, const LabSpec& spec, const CourseSlurm& course,
                           const SlurmGradeRequest& request, const fs::path& job) {
  SlurmOptions options;
  apply_course_settings(options, course, spec.gpu);
  options.time = course.time;
  options.job_name = "grader-" + spec.id;
  const std::string report = shell_quote((job / "report").string());
  const std::string partial = shell_quote((job / "report.partial").string());
  const std::string comment =
      "Written by `grader " + spec.id + " --slurm`: grades the student files staged in " + (job / "src").string() + "\n"
      "on the node SLURM gives this job, with the course's settings (" + course.file.string() + "), and leaves the\n"
      "report and its exit code beside them for the grader that submitted it.";
  return job_script({options, comment, std::nullopt, job / "job.log",
                     {// The log's first line: where it ran, and which GPUs SLURM made visible (CUDA_VISIBLE_DEVICES).
                      "echo \"grader job on $(hostname)${CUDA_VISIBLE_DEVICES:+, GPU(s) $CUDA_VISIBLE_DEVICES}\" >&2",
                      shell_line(node_command(env, spec, course, request, job)),
                      "code=$?",
                      "if [ -f " + partial + " ]; then mv " + partial + " " + report + "; fi",
                      // Last: its presence says the grading ended by itself, however the report went.
                      "echo \"$code\" > " + shell_quote((job / "exit-code").string()),
                      "exit \"$code\""}});
}

// One line of progress per change: queued (and why), running (where), ended.
class JobProgress {
 public:
  explicit JobProgress(std::string job) : job_(std::move(job)) {}
  void show(const JobStatus& status) {
    std::string line;
    if (status.state == "PENDING")
      line = "job " + job_ + " is waiting in the queue" + (status.reason.empty() || status.reason == "None" ? "" : " (" + status.reason + ")");
    else if (status.state == "RUNNING" || status.state == "CONFIGURING")
      line = "job " + job_ + " is running on " + (status.nodes.empty() ? "a node" : status.nodes);
    else if (status.state == "COMPLETING")
      line = "job " + job_ + " is finishing on " + (status.nodes.empty() ? "its node" : status.nodes);
    else if (!status.state.empty())
      line = "job " + job_ + ": " + status.state;
    if (line.empty() || line == last_) return;
    std::cerr << line << std::endl;
    last_ = line;
  }

 private:
  std::string job_;
  std::string last_;
};

void sleep_a_little(double seconds) {
  // nanosleep ends early on a signal, so Ctrl-C is answered at once.
  timespec wait{static_cast<time_t>(seconds), static_cast<long>((seconds - static_cast<long>(seconds)) * 1e9)};
  ::nanosleep(&wait, nullptr);
}

[[noreturn]] void cancel_and_stop(const std::string& job, const fs::path& folder) {
  const int signal = interrupted_by;
  std::cerr << "cancelling job " << job << " ..." << std::endl;
  std::string why;
  if (!cancel_job(job, why))
    throw CommandFailure(ExitCode::interrupted, "could not cancel job " + job + " (" + why + "): cancel it with `scancel " + job + "`");
  // Until SLURM says it is over, so the student is not told "cancelled" of a job that still runs.
  JobStatus status;
  for (int i = 0; i < 60 && !(status = job_status(job)).ended() && status.known; ++i) sleep_a_little(0.5);
  std::error_code ec;
  fs::remove_all(folder, ec);
  throw CommandFailure(ExitCode::interrupted, "job " + job + " cancelled (" + std::string(signal == SIGINT ? "Ctrl-C" : strsignal(signal)) +
                                                  "): nothing was graded; your files are untouched");
}

}  // namespace

fs::path this_executable() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw CommandFailure(ExitCode::internal, "cannot tell where this grader is (/proc/self/exe): " + ec.message());
  return self;
}

std::optional<CourseSlurm> course_slurm_or_fail(const Environment& env) {
  try {
    return load_course_slurm(env);
  } catch (const CourseSettingsError& error) {
    throw CommandFailure(ExitCode::usage, std::string("the course's cluster settings: ") + error.what());
  }
}

std::optional<ExitCode> grade_on_slurm(const Environment& env, const LabSpec& spec, const SlurmGradeRequest& request) {
  const std::optional<CourseSlurm> course = course_slurm_or_fail(env);
  if (!course)
    throw CommandFailure(ExitCode::environment, "--slurm: this course has no cluster set up for the grader (no [slurm] in " +
                                                    course_settings_path(env).string() + "): ask the course staff");
  if (!course->shared_filesystem)
    throw CommandFailure(ExitCode::environment, "--slurm: the course's cluster has no shared file system (shared_filesystem = "
                                                "false in " + course->file.string() + "), which this grader cannot use yet");
  for (const char* tool : {"sbatch", "scontrol", "scancel"})
    if (!find_on_path(tool))
      throw CommandFailure(ExitCode::environment, std::string("--slurm: no ") + tool + " on PATH: submit from the course "
                                                  "cluster's login node");

  const fs::path job_folder = new_job_folder(*course, spec.id);
  const auto forget_job_folder = [&] {
    std::error_code ec;
    fs::remove_all(job_folder, ec);
  };
  fs::create_directory(job_folder / "src");
  // Only the declared files, as a grading stages them: nothing else of the submission is read or sent.
  const StageResult staged = stage_submission(spec, request.submission, job_folder / "src");
  if (staged.verdict != Verdict::passed) {
    forget_job_folder();
    std::cerr << "--slurm: not submitted (" << staged.details << "); graded here, where it stops at the same point\n";
    return std::nullopt;
  }
  const fs::path script = job_folder / ("grade-" + spec.id + ".sbatch");
  write_file_atomically(script, job_script_for(env, spec, *course, request, job_folder));

  const CancelOnSignal cancel_on_signal;  // from before sbatch: a job submitted as Ctrl-C comes is cancelled too
  std::string job;
  try {
    job = submit_job(script);
  } catch (const std::exception& error) {
    throw CommandFailure(ExitCode::job_refused, std::string(error.what()) + "\nnothing was graded; the job script is " +
                                                    script.string() + " (tell the course staff what sbatch said)");
  }
  std::cerr << "submitted job " << job << (course->partition.empty() ? "" : " to partition " + course->partition)
            << " (time limit " << course->time << "); Ctrl-C cancels it" << std::endl;

  JobProgress progress(job);
  JobStatus status;
  int unknown_in_a_row = 0;
  const fs::path exit_code_file = job_folder / "exit-code";
  for (double wait = 0.25;; wait = std::min(wait * 1.5, 2.0)) {
    if (interrupted_by) cancel_and_stop(job, job_folder);
    if (fs::exists(exit_code_file)) break;
    status = job_status(job);
    if (interrupted_by) cancel_and_stop(job, job_folder);
    if (status.known) {
      unknown_in_a_row = 0;
      progress.show(status);
      if (status.ended()) break;
      if (status.state == "RUNNING") wait = std::min(wait, 0.5);  // the report is close: look often
    } else if (++unknown_in_a_row >= 30) {
      break;  // forgotten by the controller (or it stopped answering) and no report came
    }
    sleep_a_little(wait);
  }
  // The job's own last line is written just before it ends; a file system shared over the network may show it late.
  for (int i = 0; i < 20 && !fs::exists(exit_code_file); ++i) sleep_a_little(0.25);

  if (!fs::exists(exit_code_file)) {
    std::string why = ended_by_cluster(status, course->time);
    if (why.empty()) why = status.known ? "it ended (" + status.state + ") before the grader on the node finished"
                                        : "SLURM no longer knows it, and it left no report";
    throw CommandFailure(ExitCode::job_ended, "job " + job + " did not finish: " + why +
                                                  ". Nothing was graded; your files are untouched. The job's log: " +
                                                  (job_folder / "job.log").string() + log_tail(job_folder / "job.log", 5));
  }
  int code = as_int(ExitCode::internal);
  try {
    code = std::stoi(read_text(exit_code_file));
  } catch (const std::exception&) {
  }
  const fs::path report = job_folder / "report";
  if (!fs::exists(report))
    throw CommandFailure(code == 0 ? ExitCode::internal : static_cast<ExitCode>(code),
                         "job " + job + ": the grader on the node wrote no report (exit " + std::to_string(code) +
                             "); the end of its log, " + (job_folder / "job.log").string() + ":" + log_tail(job_folder / "job.log", 8));
  const std::string rendered = read_text(report);
  if (request.output) {
    try {
      write_file_atomically(*request.output, rendered);
    } catch (const std::exception& error) {
      throw CommandFailure(ExitCode::internal, "cannot write the report: " + std::string(error.what()) +
                                                   " (it is in " + report.string() + ")");
    }
  } else {
    std::cout << rendered << std::flush;
    if (!std::cout) throw CommandFailure(ExitCode::internal, "cannot write the report to standard output");
  }
  forget_job_folder();
  return static_cast<ExitCode>(code);
}

}  // namespace grader
