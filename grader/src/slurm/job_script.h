// job_script.h: the one sbatch script generator and the few words the grader says to SLURM (sbatch, scontrol,
// squeue, scancel). A TA's class (`grader batch --slurm`, batch/slurm.h: a job array) and a student's own grading
// (`grader lab5 --slurm`, cli/grade_slurm.cpp: one job) are both written here from the same options, most of them
// the course's settings (slurm/course_settings.h).
//
//   #!/bin/bash
//   # Written by `grader lab5 --slurm`: ...
//   #SBATCH --job-name=grader-lab5
//   #SBATCH --ntasks=1
//   #SBATCH --output=/home/ana/.cache/grader/slurm/lab5-20260101-120000-1a2b/job.log
//   #SBATCH --partition=gpu
//   #SBATCH --time=20:00
//   #SBATCH --gpus-per-task=1
//
//   /opt/grader --root /opt/course grade lab5 --submission ... --output .../report.txt
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "slurm/course_settings.h"

namespace grader {

struct SlurmOptions {
  int chunk = 0;               // students per array task; 0: sized by work (students_per_task)
  std::string partition;       // empty: the cluster's default
  std::string time;            // per task, SLURM's syntax ("30:00"); empty: estimated from the task's work (task_time)
  std::string account, qos, mem, constraint;  // passed through as given; empty: not asked for
  int gpus_per_task = 0;       // 0: none asked for
  int cpus_per_task = 0;       // 0: SLURM's default (one)
  int array_limit = 0;         // at most this many tasks at once (--array=0-N%limit); 0: no limit
  bool exclusive = false;      // a whole node per task: only when the TA asks (--exclusive)
  // A job whose node fails ends there (NODE_FAIL) rather than going back to the queue to start over: a student's
  // own grading says so and stops. sbatch only: srun's jobs are never requeued.
  bool no_requeue = false;
  std::vector<std::string> extra;  // more sbatch options, each one "#SBATCH" line ("--reservation=exam")
  std::string job_name;        // "grade-lab1"
};

// The course's settings as the defaults of a job's options: what the command line leaves empty (0, "") is taken
// from `course`. A CPU lab (`gpu` false) takes no GPU from the course's settings.
void apply_course_settings(SlurmOptions& options, const CourseSlurm& course, bool gpu);

// Why `value` cannot go into the script as the sbatch option `option` ("--account"), or empty when it can: a line
// break or a NUL would start a line of its own in the script.
std::string sbatch_value_problem(const std::string& option, const std::string& value);

// `text` quoted for a POSIX shell: abc -> abc, a b -> 'a b', it's -> 'it'\''s'.
std::string shell_quote(const std::string& text);
// The words quoted and joined by spaces: one line of the script.
std::string shell_line(const std::vector<std::string>& words);

struct JobScript {
  SlurmOptions options;
  std::string comment;                      // "# " lines under the shebang, one per line of it
  std::optional<std::size_t> array_tasks;   // a job array of this many tasks; none: a single job
  std::filesystem::path output;             // the job's log (--output); an array's holds %a
  std::vector<std::string> body;            // the shell lines after the #SBATCH lines, as written
};

// The job's options as sbatch and srun both take them ("--partition=gpu", ...; the TA's `extra` last, so they
// override): the script's #SBATCH lines, and srun's arguments where the script runs under srun.
std::vector<std::string> job_options(const JobScript& job);

// The whole script: shebang, comment, one #SBATCH line per job option, a blank line, the body.
std::string job_script(const JobScript& job);

// The shell lines that write `bytes` into the file `relative` where the job runs: a file that travels inside the
// script, for a cluster whose nodes do not see the login node's files. Base64 in a quoted here-document, so no byte
// of the file is read by the shell.
std::vector<std::string> embedded_file(const std::string& relative, const std::string& bytes);

// Submits the script with `sbatch --parsable`; returns the job id. Throws std::runtime_error with sbatch's
// own words when it refuses.
std::string submit_job(const std::filesystem::path& script);

// True while SLURM still knows a pending or running task of the job (squeue).
bool job_active(const std::string& job_id);

// One job as `scontrol show job` tells it. Known only while the controller keeps it (MinJobAge, five minutes by
// default, after it ends): after that, `known` is false.
struct JobStatus {
  bool known = false;
  std::string state;      // PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, TIMEOUT, CANCELLED, NODE_FAIL, ...
  std::string reason;     // why it waits or ended: Resources, Priority, TimeLimit, None
  std::string nodes;      // where it runs or ran; "(null)" or empty while pending
  int exit_code = -1;     // the script's exit status once ended; -1 before
  int exit_signal = 0;    // the signal that ended it, 0 if none
  bool ended() const;     // a state the job cannot leave
};
JobStatus job_status(const std::string& job_id);
JobStatus parse_job_status(const std::string& scontrol_output);  // one job's `scontrol show job --oneliner`

// `scancel JOB`; false, with `why` set, when scancel failed.
bool cancel_job(const std::string& job_id, std::string& why);

// What a student is told about a job the cluster ended before its grading reported: "the cluster ended it at its
// time limit (20:00)" for TIMEOUT; empty for a state that is not such an end (COMPLETED, FAILED).
std::string ended_by_cluster(const JobStatus& status, const std::string& time_limit);

}  // namespace grader
