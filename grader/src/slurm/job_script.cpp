#include "slurm/job_script.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/tool.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

std::string without_trailing_space(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

// The value of `key` in scontrol's "Key=value Key=value" line, up to the next space; empty when absent.
std::string scontrol_field(const std::string& line, const std::string& key) {
  const std::string marker = key + "=";
  std::size_t at = line.rfind(marker, 0) == 0 ? 0 : line.find(" " + marker);
  if (at == std::string::npos) return {};
  at += (at == 0 ? 0 : 1) + marker.size();
  return line.substr(at, line.find_first_of(" \n", at) - at);
}

}  // namespace

void apply_course_settings(SlurmOptions& options, const CourseSlurm& course, bool gpu) {
  for (auto [mine, theirs] : {std::pair{&options.partition, &course.partition}, {&options.account, &course.account},
                              {&options.qos, &course.qos}, {&options.constraint, &course.constraint}, {&options.mem, &course.mem}})
    if (mine->empty()) *mine = *theirs;
  if (options.cpus_per_task == 0) options.cpus_per_task = course.cpus_per_job;
  if (gpu && options.gpus_per_task == 0) options.gpus_per_task = course.gpus_per_job;
}

std::string sbatch_value_problem(const std::string& option, const std::string& value) {
  if (value.find_first_of(std::string("\n\r\0", 3)) != std::string::npos)
    return option + " holds a line break: each sbatch option is one line of the job script";
  return {};
}

std::string shell_quote(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_-+=/.,:@%") == std::string::npos;
  if (plain) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string shell_line(const std::vector<std::string>& words) {
  std::string line;
  for (const auto& word : words) line += (line.empty() ? "" : " ") + shell_quote(word);
  return line;
}

std::vector<std::string> job_options(const JobScript& job) {
  const SlurmOptions& options = job.options;
  std::vector<std::string> words;
  auto option = [&](const std::string& name, const std::string& value) { words.push_back("--" + name + "=" + value); };
  option("job-name", options.job_name.empty() ? "grade" : options.job_name);
  if (job.array_tasks)
    option("array", "0-" + std::to_string(*job.array_tasks == 0 ? 0 : *job.array_tasks - 1) +
                        (options.array_limit > 0 ? "%" + std::to_string(options.array_limit) : ""));
  option("ntasks", "1");
  if (!job.output.empty()) option("output", job.output.string());
  for (const auto& [name, value] : {std::pair{"partition", options.partition}, {"time", options.time},
                                    {"account", options.account}, {"qos", options.qos}, {"mem", options.mem},
                                    {"constraint", options.constraint}})
    if (!value.empty()) option(name, value);
  // The GPU request (a generic resource): SLURM then sets CUDA_VISIBLE_DEVICES in the job to the GPUs it gave.
  if (options.gpus_per_task > 0) option("gpus-per-task", std::to_string(options.gpus_per_task));
  if (options.cpus_per_task > 0) option("cpus-per-task", std::to_string(options.cpus_per_task));
  if (options.exclusive) words.push_back("--exclusive");
  if (options.no_requeue) words.push_back("--no-requeue");
  // The TA's own options last: sbatch lets a later line override an earlier one.
  for (const auto& extra : options.extra) words.push_back(extra);
  return words;
}

std::string job_script(const JobScript& job) {
  std::string script = "#!/bin/bash\n";
  std::istringstream lines(job.comment);
  for (std::string line; std::getline(lines, line);) script += "# " + line + "\n";
  // #SBATCH lines are read by sbatch, not by a shell: values are double-quoted when they hold spaces.
  const std::vector<std::string>& extra = job.options.extra;
  for (const auto& option : job_options(job)) {
    const std::size_t equals = option.find('=');
    const bool ours = std::find(extra.begin(), extra.end(), option) == extra.end();  // the TA's go as typed
    const bool spaced = ours && equals != std::string::npos && option.find_first_of(" \t", equals) != std::string::npos;
    script += "#SBATCH " + (spaced ? option.substr(0, equals + 1) + "\"" + option.substr(equals + 1) + "\"" : option) + "\n";
  }
  script += "\n";
  for (const auto& line : job.body) script += line + "\n";
  return script;
}

std::vector<std::string> embedded_file(const std::string& relative, const std::string& bytes) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string encoded;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    unsigned value = 0;
    for (std::size_t k = 0; k < 3; ++k) value = value << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) encoded += k <= n ? alphabet[(value >> (18 - 6 * k)) & 63] : '=';
  }
  // The end marker cannot occur in base64 text (it holds an underscore).
  std::vector<std::string> lines = {"base64 -d > " + shell_quote(relative) + " << 'GRADER_END_OF_FILE'"};
  for (std::size_t i = 0; i < encoded.size(); i += 76) lines.push_back(encoded.substr(i, 76));
  lines.push_back("GRADER_END_OF_FILE");
  return lines;
}

std::string submit_job(const fs::path& script) {
  const ToolResult result = run_tool({"sbatch", "--parsable", script.string()}, script.parent_path(), 120);
  if (!result.ok())
    throw std::runtime_error("sbatch refused the job" + (result.output.empty() ? std::string() : ": " + without_trailing_space(result.output)));
  // --parsable prints "<job id>" or "<job id>;<cluster>", possibly after warnings on their own lines.
  std::string last;
  std::istringstream lines(result.output);
  for (std::string line; std::getline(lines, line);)
    if (!without_trailing_space(line).empty()) last = without_trailing_space(line);
  const std::string id = last.substr(0, last.find(';'));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error("sbatch did not print a job id: " + without_trailing_space(result.output));
  return id;
}

bool job_active(const std::string& job_id) {
  const ToolResult result = run_tool({"squeue", "--noheader", "--jobs", job_id, "--format", "%i %T"}, fs::current_path(), 60);
  // squeue forgets a finished job after a while and then calls its id invalid: the job is not active.
  if (!result.ok()) return result.output.find("Invalid job id") == std::string::npos;  // else: ask again later
  return !without_trailing_space(result.output).empty();
}

bool JobStatus::ended() const {
  return known && state != "PENDING" && state != "RUNNING" && state != "COMPLETING" && state != "CONFIGURING" &&
         state != "SUSPENDED" && state != "REQUEUED" && state != "RESIZING" && state != "SIGNALING" && state != "STAGE_OUT";
}

JobStatus parse_job_status(const std::string& output) {
  JobStatus status;
  const std::size_t start = output.find("JobId=");
  if (start == std::string::npos) return status;
  const std::string line = output.substr(start, output.find('\n', start) - start);
  status.state = scontrol_field(line, "JobState");
  if (status.state.empty()) return status;
  status.known = true;
  status.reason = scontrol_field(line, "Reason");
  status.nodes = scontrol_field(line, "NodeList");
  if (status.nodes == "(null)") status.nodes.clear();
  if (status.ended()) {
    const std::string code = scontrol_field(line, "ExitCode");  // "<status>:<signal>"
    try {
      status.exit_code = std::stoi(code.substr(0, code.find(':')));
      if (code.find(':') != std::string::npos) status.exit_signal = std::stoi(code.substr(code.find(':') + 1));
    } catch (const std::exception&) {
      status.exit_code = -1;
    }
  }
  return status;
}

JobStatus job_status(const std::string& job_id) {
  const ToolResult result = run_tool({"scontrol", "--oneliner", "show", "job", job_id}, fs::current_path(), 60);
  if (!result.ok()) return {};  // forgotten already, or the controller did not answer this time
  return parse_job_status(result.output);
}

bool cancel_job(const std::string& job_id, std::string& why) {
  const ToolResult result = run_tool({"scancel", job_id}, fs::current_path(), 60);
  if (!result.ok()) why = result.output.empty() ? "scancel exited " + std::to_string(result.exit_code) : without_trailing_space(result.output);
  return result.ok();
}

std::string ended_by_cluster(const JobStatus& status, const std::string& time_limit) {
  const std::string& s = status.state;
  if (s == "TIMEOUT" || s == "DEADLINE")
    return "the cluster ended it at its time limit" + (time_limit.empty() ? std::string() : " (" + time_limit + ")");
  if (s == "NODE_FAIL") return "its node failed" + (status.nodes.empty() ? std::string() : " (" + status.nodes + ")");
  if (s == "BOOT_FAIL") return "its node failed to start";
  if (s == "PREEMPTED") return "it was preempted by a job of higher priority";
  if (s == "OUT_OF_MEMORY") return "it ran out of the memory the job asked for";
  if (s == "CANCELLED") return "it was cancelled (scancel, by you from another terminal or by the course staff)";
  return {};
}

}  // namespace grader
