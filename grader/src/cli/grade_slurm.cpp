// grade_slurm.cpp: `grader LAB --slurm` (cli/grade_slurm.h). The student's declared files are staged into a job
// folder, a one-job script from the course's settings runs the grader on a node, and this grader waits, saying
// where the job stands, until the node's report is back. With a shared file system the script is sbatch'ed and the
// node reads the folder and leaves the report there; without one the files travel inside the script, which srun
// runs, and the report comes back on srun's standard output.
#include "cli/grade_slurm.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "build/stage.h"
#include "cli/batch_command.h"
#include "core/atomic_file.h"
#include "core/tool.h"
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

std::string job_file_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The last `lines` lines of the job's log, indented: what the node said when no report came back.
std::string log_tail(const fs::path& log, std::size_t lines) {
  std::vector<std::string> kept;
  std::istringstream text(job_file_text(log));
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

// The node's command: the same grading the student asked for, of the staged copy in `job`, reported under their
// own folder's name, into `job`. --hidden only when the student's own command had it (staff).
std::vector<std::string> node_command(const Environment& env, const LabSpec& spec, const CourseSlurm& course,
                                      const SlurmGradeRequest& request, const fs::path& job) {
  std::vector<std::string> words = {course.grader.empty() ? this_executable().string() : course.grader,
                                    "--root", course.root.empty() ? full_path(env.root).string() : course.root,
                                    "grade", spec.id, "--submission", (job / "src").string(),
                                    "--submission-label", request.submission.string(),
                                    "--format", request.format, "--output", (job / "report.partial").string()};
  if (request.quick) words.push_back("--quick");
  if (request.no_counters) words.push_back("--no-counters");
  if (request.hidden) words.push_back("--hidden");
  if (request.seed) words.insert(words.end(), {"--seed", *request.seed});
  if (!request.sanitize.empty()) words.push_back("--sanitize=" + request.sanitize);
  if (request.only) words.insert(words.end(), {"--only", *request.only});
  return words;
}

// The last line of a job that ended by itself, whatever its grading did: "grader exit code 1".
constexpr const char* exit_code_marker = "grader exit code ";

JobScript job_for(const Environment& env, const LabSpec& spec, const CourseSlurm& course, const SlurmGradeRequest& request,
                  const fs::path& job_folder, const std::vector<fs::path>& staged) {
  SlurmOptions options;
  apply_course_settings(options, course, spec.gpu);
  options.time = course.time;
  // A node that fails under the job: the student is told and grades again, rather than waiting in the queue anew
  // with no word of why (a batch job is otherwise requeued; srun's never is).
  options.no_requeue = course.shared_filesystem;
  // Unique where the job must be found by its name (srun prints no id).
  options.job_name = course.shared_filesystem ? "grader-" + spec.id : "grader-" + job_folder.filename().string();
  JobScript job{options, "", std::nullopt, {}, {}};
  std::vector<std::string>& body = job.body;
  if (course.shared_filesystem) {
    job.comment = "Written by `grader " + spec.id + " --slurm`: grades the student files staged in " + (job_folder / "src").string() +
                  "\non the node SLURM gives this job, with the course's settings (" + course.file.string() + "), and leaves\n"
                  "the report and its exit code beside them for the grader that submitted it.";
    job.output = job_folder / "job.log";
    body.push_back("cd " + shell_quote(job_folder.string()) + " || exit 3");
  } else {
    // The nodes do not see this folder: the files travel inside the script (srun hands it to bash on the node),
    // the report comes back on the job's standard output.
    job.comment = "Written by `grader " + spec.id + " --slurm` and run with srun: the student files travel inside it,\n"
                  "the report comes back on its standard output. Course settings: " + course.file.string() + ".";
    body.insert(body.end(), {"job=$(mktemp -d \"${TMPDIR:-/tmp}/grader-job.XXXXXX\") || exit 3",
                             "trap 'rm -rf \"$job\"' EXIT", "cd \"$job\" && mkdir src || exit 3"});
    for (const auto& file : staged) {
      const std::vector<std::string> lines = embedded_file("src/" + file.filename().string(), job_file_text(file));
      body.insert(body.end(), lines.begin(), lines.end());
    }
  }
  // The log's first line: where it ran, and which GPUs SLURM made visible (CUDA_VISIBLE_DEVICES).
  body.push_back("echo \"grader job on $(hostname)${CUDA_VISIBLE_DEVICES:+, GPU(s) $CUDA_VISIBLE_DEVICES}\" >&2");
  body.push_back(shell_line(node_command(env, spec, course, request, ".")));
  body.push_back("code=$?");
  body.push_back(course.shared_filesystem ? "if [ -f ./report.partial ]; then mv ./report.partial ./report; fi"
                                          : "if [ -f ./report.partial ]; then cat ./report.partial; fi");
  // Last: it says the grading ended by itself, however the report went.
  body.push_back("echo \"" + std::string(exit_code_marker) + "$code\" >&2");
  if (course.shared_filesystem) body.push_back("echo \"$code\" > ./exit-code");
  body.push_back("exit \"$code\"");
  return job;
}

// srun in its own process group (the terminal's Ctrl-C is this grader's to answer, with scancel), reading the
// script on stdin and writing the node's stdout and stderr into files here.
pid_t start_srun(const std::vector<std::string>& argv, const fs::path& script, const fs::path& out, const fs::path& log) {
  std::vector<char*> args;
  for (const auto& word : argv) args.push_back(const_cast<char*>(word.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int in = ::open(script.c_str(), O_RDONLY | O_CLOEXEC);
    const int stdout_file = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const int stderr_file = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (in < 0 || stdout_file < 0 || stderr_file < 0) ::_exit(127);
    ::dup2(in, 0);
    ::dup2(stdout_file, 1);
    ::dup2(stderr_file, 2);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  if (pid < 0) throw CommandFailure(ExitCode::internal, "--slurm: cannot start srun");
  return pid;
}

// The job srun submitted, by its unique name; empty until the controller lists it.
std::string job_named(const std::string& name) {
  const ToolResult result = run_tool({"squeue", "--noheader", "--name", name, "--format", "%i"}, fs::current_path(), 60);
  std::string id = result.ok() ? result.output.substr(0, result.output.find_first_of("\n ")) : "";
  if (id.empty()) {
    // Left the queue already (a short job): the controller still shows it for a while (MinJobAge).
    const ToolResult jobs = run_tool({"scontrol", "--oneliner", "show", "jobs"}, fs::current_path(), 60);
    std::istringstream lines(jobs.ok() ? jobs.output : "");
    for (std::string line; std::getline(lines, line);) {
      if (line.find(" JobName=" + name + " ") == std::string::npos || line.rfind("JobId=", 0) != 0) continue;
      id = line.substr(6, line.find(' ') - 6);
      break;
    }
  }
  return !id.empty() && id.find_first_not_of("0123456789") == std::string::npos ? id : "";
}

// The number after the last `marker` in `file` ("grader exit code 1"; an empty marker: the file is the number), or
// nothing when the job never got there.
std::optional<int> logged_exit_code(const fs::path& file, const std::string& marker) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  const std::string text = job_file_text(file);
  const std::size_t at = marker.empty() ? 0 : text.rfind(marker);
  if (at == std::string::npos) return std::nullopt;
  try {
    return std::stoi(text.substr(at + marker.size()));
  } catch (const std::exception&) {
    return std::nullopt;
  }
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
    // A short job can start and end between two looks: the student still learns where it ran.
    if (status.state != "PENDING" && !status.state.empty() && !said_where_ && !status.nodes.empty() &&
        line.find(status.nodes) == std::string::npos)
      line = "job " + job_ + " ran on " + status.nodes + (line.empty() ? "" : "\n" + line);
    if (line.find(" on ") != std::string::npos) said_where_ = true;
    if (line.empty() || line == last_) return;
    std::cerr << line << std::endl;
    last_ = line;
  }

 private:
  std::string job_;
  std::string last_;
  bool said_where_ = false;  // a line has named the node
};

void sleep_a_little(double seconds) {
  // nanosleep ends early on a signal, so Ctrl-C is answered at once.
  timespec wait{static_cast<time_t>(seconds), static_cast<long>((seconds - static_cast<long>(seconds)) * 1e9)};
  ::nanosleep(&wait, nullptr);
}

[[noreturn]] void cancel_and_stop(const std::string& job, const fs::path& folder, pid_t srun) {
  const int signal = interrupted_by;
  const std::string what = signal == SIGINT ? "Ctrl-C" : strsignal(signal);
  std::error_code ec;
  if (job.empty()) {  // not listed yet: srun, told to stop, withdraws its request
    if (srun > 0) {
      ::kill(srun, SIGTERM);
      ::waitpid(srun, nullptr, 0);
    }
    fs::remove_all(folder, ec);
    throw CommandFailure(ExitCode::interrupted, "stopped (" + what + ") before the job started: nothing was graded; "
                                                "your files are untouched");
  }
  std::cerr << "cancelling job " << job << " ..." << std::endl;
  std::string why;
  if (!cancel_job(job, why))
    throw CommandFailure(ExitCode::interrupted, "could not cancel job " + job + " (" + why + "): cancel it with `scancel " + job + "`");
  // Until SLURM says it is over, so the student is not told "cancelled" of a job that still runs.
  JobStatus status;
  for (int i = 0; i < 60 && !(status = job_status(job)).ended() && status.known; ++i) sleep_a_little(0.5);
  fs::remove_all(folder, ec);
  throw CommandFailure(ExitCode::interrupted, "job " + job + " cancelled (" + what + "): nothing was graded; your files are untouched");
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
  for (const char* tool : {course->shared_filesystem ? "sbatch" : "srun", "squeue", "scontrol", "scancel"})
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
  const JobScript job = job_for(env, spec, *course, request, job_folder, staged.sources);
  const fs::path script = job_folder / ("grade-" + spec.id + ".sbatch");
  write_file_atomically(script, job_script(job));
  const fs::path log = job_folder / "job.log";
  const fs::path streamed_report = job_folder / "report";  // srun's stdout, or the job's own copy

  const CancelOnSignal cancel_on_signal;  // from before the submission: a job submitted as Ctrl-C comes is cancelled too
  std::string id;
  pid_t srun = -1;
  if (course->shared_filesystem) {
    try {
      id = submit_job(script);
    } catch (const std::exception& error) {
      throw CommandFailure(ExitCode::job_refused, std::string(error.what()) + "\nnothing was graded; the job script is " +
                                                      script.string() + " (tell the course staff what sbatch said)");
    }
    std::cerr << "submitted job " << id;
  } else {
    std::vector<std::string> argv = {"srun"};
    for (const auto& option : job_options(job)) argv.push_back(option);
    argv.insert(argv.end(), {"bash", "-s"});
    srun = start_srun(argv, script, streamed_report, log);
    std::cerr << "submitted job " << job.options.job_name << " with srun";
  }
  std::cerr << (course->partition.empty() ? "" : " to partition " + course->partition) << " (time limit " << course->time
            << "); Ctrl-C cancels it" << std::endl;

  JobStatus status;
  int unknown_in_a_row = 0;
  int srun_status = 0;
  std::optional<JobProgress> progress;
  if (!id.empty()) progress.emplace(id);
  bool srun_ended = false;
  const auto finished = [&] {
    if (srun > 0) return srun_ended || (srun_ended = ::waitpid(srun, &srun_status, WNOHANG) == srun);
    return fs::exists(job_folder / "exit-code");
  };
  for (double wait = 0.25;; wait = std::min(wait * 1.5, 2.0)) {
    if (interrupted_by) cancel_and_stop(id, job_folder, srun);
    if (finished()) break;
    if (id.empty() && !(id = job_named(job.options.job_name)).empty()) progress.emplace(id);
    if (!id.empty()) {
      status = job_status(id);
      if (interrupted_by) cancel_and_stop(id, job_folder, srun);
      if (status.known) {
        unknown_in_a_row = 0;
        progress->show(status);
        if (status.ended() && srun < 0) break;
        if (status.state == "RUNNING") wait = std::min(wait, 0.5);  // the report is close: look often
      } else if (++unknown_in_a_row >= 30 && srun < 0) {
        break;  // forgotten by the controller (or it stopped answering) and no report came
      }
    }
    // In slices: the end is seen a tenth of a second after it comes, while SLURM is asked only every `wait`.
    for (double slept = 0; slept < wait && !finished() && !interrupted_by; slept += 0.1) sleep_a_little(0.1);
  }
  // The job's last line is written just before it ends; a file system shared over the network may show it late
  // (5 s at most). A job the cluster ended (its time limit, its node) was killed, and wrote it, if at all, just before.
  const int looks = ended_by_cluster(status, course->time).empty() ? 20 : 4;
  for (int i = 0; i < looks && srun < 0 && !fs::exists(job_folder / "exit-code"); ++i) sleep_a_little(0.25);
  if (id.empty() && !(id = job_named(job.options.job_name)).empty()) progress.emplace(id);  // srun's, ended unseen
  if (!id.empty()) {
    const JobStatus last = job_status(id);
    if (last.known) status = last;
    if (status.known && progress) progress->show(status);  // a job that ended between two looks: where it ran
  }

  // Shared: the job's own exit-code file, which nothing the node's grader prints can forge. Streamed: the last line
  // of the job's stderr, after everything its grader printed.
  const std::optional<int> code = srun < 0 ? logged_exit_code(job_folder / "exit-code", "") : logged_exit_code(log, exit_code_marker);
  if (!code) {
    std::string why = ended_by_cluster(status, course->time);
    if (why.empty()) why = status.known ? "it ended (" + status.state + ") before the grader on the node finished"
                                        : "SLURM no longer knows it, and it left no report";
    throw CommandFailure(ExitCode::job_ended, "job " + (id.empty() ? job.options.job_name : id) + " did not finish: " + why +
                                                  ". Nothing was graded; your files are untouched. The job's log: " +
                                                  log.string() + log_tail(log, 5));
  }
  const std::string rendered = fs::exists(streamed_report) ? job_file_text(streamed_report) : "";
  if (rendered.empty())
    throw CommandFailure(*code == 0 ? ExitCode::internal : static_cast<ExitCode>(*code),
                         "job " + id + ": the grader on the node wrote no report (exit " + std::to_string(*code) +
                             "); the end of its log, " + log.string() + ":" + log_tail(log, 8));
  if (request.output) {
    try {
      write_file_atomically(*request.output, rendered);
    } catch (const std::exception& error) {
      throw CommandFailure(ExitCode::internal, "cannot write the report: " + std::string(error.what()) +
                                                   " (it is in " + streamed_report.string() + ")");
    }
  } else {
    std::cout << rendered << std::flush;
    if (!std::cout) throw CommandFailure(ExitCode::internal, "cannot write the report to standard output");
  }
  forget_job_folder();
  return static_cast<ExitCode>(*code);
}

}  // namespace grader
