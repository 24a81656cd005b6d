// slurm.h: a class spread over a cluster as one SLURM job array. The submitting grader writes the list of
// students (<out>/slurm/<UTC time>/roster.json) and an sbatch script beside it; array task i grades students
// [i*chunk, (i+1)*chunk) of that list with `grader batch ... --array-task <roster.json> --no-summary`, storing
// each one into the shared output folder as it finishes; `grader batch ... --collect` then writes grades.csv
// and summary.md from the stored reports, exactly as a local batch does.
//
//   #SBATCH --job-name=grade-lab1
//   #SBATCH --array=0-33
//   #SBATCH --output=/course/out/slurm/20250131-120000/logs/task-%a.log
//   exec /opt/grader --root /course batch lab1 /course/subs --out /course/out --array-task ... --jobs ...
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "slurm/job_script.h"

namespace grader {

// What one student costs an array task, roughly: a --quick grading builds and runs the cases, a timed one adds
// the timings. Used only to size tasks and their time limit; --chunk and --time override both.
int estimated_seconds_per_student(bool quick);
// Students per array task when --chunk is not given: enough for about ten minutes of work, so the scheduler and
// the task's start-up (the lab's build, read from the cache) are small against the grading itself.
int students_per_task(bool quick);
// The --time of a task of `chunk` students when none is given: three times the estimate, at least 10 minutes,
// in SLURM's minutes syntax ("30").
std::string task_time(int chunk, bool quick);

// What a task needs to know, read back by `--array-task`.
struct TaskRoster {
  std::string lab;
  int chunk = 1;
  std::vector<std::string> students;  // in array order
};

void write_task_roster(const std::filesystem::path& path, const TaskRoster& roster);
TaskRoster read_task_roster(const std::filesystem::path& path);  // throws std::runtime_error

std::size_t array_size(std::size_t students, int chunk);
// The students of array task `task` (empty past the end).
std::vector<std::string> task_students(const TaskRoster& roster, std::size_t task);
// The array task that grades `id`, or -1.
long task_of(const TaskRoster& roster, const std::string& id);

// The job array's script (slurm/job_script.h writes it). `command` is each task's command line, without its
// --jobs (the script adds the CPUs the task was given). Every word is quoted for the shell.
std::string sbatch_script(const SlurmOptions& options, std::size_t tasks, const std::filesystem::path& log_folder,
                          const std::vector<std::string>& command, const std::string& comment);

}  // namespace grader
