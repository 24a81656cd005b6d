#include "batch/slurm.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "batch/store.h"
#include "core/tool.h"
#include "report/writers.h"

namespace grader {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

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

std::string shell_quote(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_-+=/.,:@%") == std::string::npos;
  if (plain) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

int estimated_seconds_per_student(bool quick) { return quick ? 10 : 60; }

int students_per_task(bool quick) { return std::max(1, 600 / estimated_seconds_per_student(quick)); }

std::string task_time(int chunk, bool quick) {
  const long seconds = 3L * std::max(1, chunk) * estimated_seconds_per_student(quick);
  return std::to_string(std::max(10L, (seconds + 59) / 60));
}

std::string sbatch_value_problem(const std::string& option, const std::string& value) {
  if (value.find_first_of(std::string("\n\r\0", 3)) != std::string::npos)
    return option + " holds a line break: each sbatch option is one line of the job script";
  return {};
}

std::string sbatch_script(const SlurmOptions& options, std::size_t tasks, const fs::path& log_folder,
                          const std::vector<std::string>& command, const std::string& comment) {
  std::string script = "#!/bin/bash\n";
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) script += "# " + line + "\n";
  // #SBATCH lines are read by sbatch, not by a shell: values are double-quoted when they hold spaces.
  auto directive = [&](const std::string& option, const std::string& value) {
    const bool spaced = value.find_first_of(" \t") != std::string::npos;
    script += "#SBATCH --" + option + "=" + (spaced ? "\"" + value + "\"" : value) + "\n";
  };
  directive("job-name", options.job_name.empty() ? "grade" : options.job_name);
  directive("array", "0-" + std::to_string(tasks == 0 ? 0 : tasks - 1) +
                        (options.array_limit > 0 ? "%" + std::to_string(options.array_limit) : ""));
  directive("ntasks", "1");
  directive("output", (log_folder / "task-%a.log").string());
  for (const auto& [option, value] : {std::pair{"partition", options.partition}, {"time", options.time},
                                      {"account", options.account}, {"qos", options.qos}, {"mem", options.mem},
                                      {"constraint", options.constraint}})
    if (!value.empty()) directive(option, value);
  if (options.gpus_per_task > 0) directive("gpus-per-task", std::to_string(options.gpus_per_task));
  if (options.cpus_per_task > 0) directive("cpus-per-task", std::to_string(options.cpus_per_task));
  if (options.exclusive) script += "#SBATCH --exclusive\n";
  // The TA's own options last: sbatch lets a later line override an earlier one.
  for (const auto& option : options.extra) script += "#SBATCH " + option + "\n";
  script += "\n";
  std::string line = "exec";
  for (const auto& word : command) line += " " + shell_quote(word);
  // As many students at once as the task has CPUs: builds overlap, timings still take turns.
  line += " --jobs \"${SLURM_CPUS_ON_NODE:-1}\"";
  script += line + "\n";
  return script;
}

std::string submit_job(const fs::path& script) {
  const ToolResult result = run_tool({"sbatch", "--parsable", script.string()}, script.parent_path(), 120);
  if (!result.ok())
    throw std::runtime_error("sbatch refused the job" + (result.output.empty() ? std::string() : ": " + trim(result.output)));
  // --parsable prints "<job id>" or "<job id>;<cluster>", possibly after warnings on their own lines.
  std::string last;
  std::istringstream lines(result.output);
  for (std::string line; std::getline(lines, line);)
    if (!trim(line).empty()) last = trim(line);
  const std::string id = last.substr(0, last.find(';'));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error("sbatch did not print a job id: " + trim(result.output));
  return id;
}

bool job_active(const std::string& job_id) {
  const ToolResult result = run_tool({"squeue", "--noheader", "--jobs", job_id, "--format", "%i %T"}, fs::current_path(), 60);
  // squeue forgets a finished job after a while and then calls its id invalid: the job is not active.
  if (!result.ok()) return result.output.find("Invalid job id") == std::string::npos;  // else: ask again later
  return !trim(result.output).empty();
}

}  // namespace grader
