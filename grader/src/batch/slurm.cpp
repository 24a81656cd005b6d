#include "batch/slurm.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "batch/store.h"
#include "report/writers.h"

namespace grader {

namespace fs = std::filesystem;
using json = nlohmann::json;


void write_task_roster(const fs::path& path, const TaskRoster& roster) {
  const json value = {{"schema", "grader-batch-roster/1"}, {"lab", roster.lab}, {"chunk", roster.chunk}, {"students", roster.students}};
  write_file_atomically(path, json_text(value));
}

TaskRoster read_task_roster(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the task roster " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  const json value = json::parse(text.str(), nullptr, false);
  if (value.is_discarded() || !value.is_object() || value.value("schema", "") != "grader-batch-roster/1")
    throw std::runtime_error(path.string() + " is not a task roster written by `grader batch --slurm`");
  TaskRoster roster;
  roster.lab = value.value("lab", "");
  roster.chunk = std::max(1, value.value("chunk", 1));
  roster.students = value.value("students", std::vector<std::string>{});
  return roster;
}

std::size_t array_size(std::size_t students, int chunk) {
  const std::size_t per = static_cast<std::size_t>(std::max(1, chunk));
  return (students + per - 1) / per;
}

std::vector<std::string> task_students(const TaskRoster& roster, std::size_t task) {
  const std::size_t per = static_cast<std::size_t>(std::max(1, roster.chunk));
  std::vector<std::string> mine;
  for (std::size_t i = task * per; i < roster.students.size() && i < (task + 1) * per; ++i) mine.push_back(roster.students[i]);
  return mine;
}

long task_of(const TaskRoster& roster, const std::string& id) {
  for (std::size_t i = 0; i < roster.students.size(); ++i)
    if (roster.students[i] == id) return static_cast<long>(i / static_cast<std::size_t>(std::max(1, roster.chunk)));
  return -1;
}

int estimated_seconds_per_student(bool quick) { return quick ? 10 : 60; }

int students_per_task(bool quick) { return std::max(1, 600 / estimated_seconds_per_student(quick)); }

std::string task_time(int chunk, bool quick) {
  const long seconds = 3L * std::max(1, chunk) * estimated_seconds_per_student(quick);
  return std::to_string(std::max(10L, (seconds + 59) / 60));
}

std::string sbatch_script(const SlurmOptions& options, std::size_t tasks, const fs::path& log_folder,
                          const std::vector<std::string>& command, const std::string& comment) {
  // As many students at once as the task has CPUs: builds overlap, timings still take turns.
  return job_script({options, comment, tasks, log_folder / "task-%a.log",
                     {"exec " + shell_line(command) + " --jobs \"${SLURM_CPUS_ON_NODE:-1}\""}});
}

}  // namespace grader
