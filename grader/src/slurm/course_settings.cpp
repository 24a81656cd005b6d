#include "slurm/course_settings.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>

#include "slurm/job_script.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail_at(const fs::path& file, const toml::source_position& at, const std::string& message) {
  throw CourseSettingsError(file.string() + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " + message);
}

// The keys of [slurm], each read by one line below; an unknown key is refused, so a typo is not a silent default.
constexpr const char* slurm_keys[] = {"partition", "account", "qos", "constraint", "mem", "gpus_per_job", "cpus_per_job",
                                      "time", "grader", "root", "shared_filesystem", "jobs_folder"};

std::string slurm_key_list() {
  std::string list;
  for (const char* key : slurm_keys) list += (list.empty() ? "" : ", ") + std::string(key);
  return list;
}

class SlurmTableReader {
 public:
  SlurmTableReader(const toml::table& table, const fs::path& file) : table_(table), file_(file) {
    for (const auto& [key, node] : table) {
      bool known = false;
      for (const char* name : slurm_keys) known = known || key.str() == name;
      if (!known) fail_at(file_, key.source().begin, "unknown key '" + std::string(key.str()) + "' in [slurm]; its keys are " + slurm_key_list());
    }
  }

  void text(const char* key, std::string& into) const {
    const toml::node* node = table_.get(key);
    if (!node) return;
    const auto* value = node->as_string();
    if (!value) fail_at(file_, node->source().begin, std::string(key) + " must be a string (in double quotes)");
    const std::string& s = value->get();
    // Each value becomes one #SBATCH line or one word of the job's command: a line break would start another.
    if (s.find_first_of(std::string("\n\r\0", 3)) != std::string::npos)
      fail_at(file_, node->source().begin, std::string(key) + " holds a line break: each value is one line of the job script");
    into = s;
  }

  void whole(const char* key, int& into, int least, int most) const {
    const toml::node* node = table_.get(key);
    if (!node) return;
    const auto* value = node->as_integer();
    if (!value || value->get() < least || value->get() > most)
      fail_at(file_, node->source().begin, std::string(key) + " must be a whole number from " + std::to_string(least) + " to " +
                                            std::to_string(most) + (value ? ", got " + std::to_string(value->get()) : ""));
    into = static_cast<int>(value->get());
  }

  void flag(const char* key, bool& into) const {
    const toml::node* node = table_.get(key);
    if (!node) return;
    const auto* value = node->as_boolean();
    if (!value) fail_at(file_, node->source().begin, std::string(key) + " must be true or false");
    into = value->get();
  }

 private:
  const toml::table& table_;
  const fs::path& file_;
};

}  // namespace

fs::path course_settings_path(const Environment& env) {
  if (const char* file = std::getenv("GRADER_COURSE_SETTINGS"); file && *file) return file;
  return env.root / "course.toml";
}

std::optional<CourseSlurm> parse_course_slurm(std::string_view text, const fs::path& file) {
  toml::table root;
  try {
    root = toml::parse(text, file.string());
  } catch (const toml::parse_error& error) {
    fail_at(file, error.source().begin, std::string(error.description()));
  }
  const toml::node* node = root.get("slurm");
  if (!node) return std::nullopt;
  const toml::table* table = node->as_table();
  if (!table) fail_at(file, node->source().begin, "slurm must be a table: [slurm] and its keys below it");
  const SlurmTableReader read(*table, file);
  CourseSlurm slurm;
  slurm.file = file;
  read.text("partition", slurm.partition);
  read.text("account", slurm.account);
  read.text("qos", slurm.qos);
  read.text("constraint", slurm.constraint);
  read.text("mem", slurm.mem);
  read.whole("gpus_per_job", slurm.gpus_per_job, 0, 16);
  read.whole("cpus_per_job", slurm.cpus_per_job, 0, 4096);
  read.text("time", slurm.time);
  read.text("grader", slurm.grader);
  read.text("root", slurm.root);
  read.flag("shared_filesystem", slurm.shared_filesystem);
  read.text("jobs_folder", slurm.jobs_folder);
  if (const toml::node* time = table->get("time"); time && slurm.time.empty())
    fail_at(file, time->source().begin, "time must not be empty: a job without a limit gets the partition's longest");
  for (const char* path_key : {"grader", "root", "jobs_folder"})
    if (const toml::node* path = table->get(path_key); path && !path->as_string()->get().empty() &&
                                                       !fs::path(path->as_string()->get()).is_absolute())
      fail_at(file, path->source().begin, std::string(path_key) + " must be an absolute path: the nodes start jobs elsewhere");
  return slurm;
}

std::optional<CourseSlurm> load_course_slurm(const Environment& env) {
  const fs::path file = course_settings_path(env);
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  std::ifstream in(file);
  if (!in) throw CourseSettingsError(file.string() + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return parse_course_slurm(text.str(), file);
}

std::string how_to_get_a_gpu(const Environment& env, const std::string& lab, const fs::path& submission,
                             const fs::path& default_submission) {
  if (const char* job = std::getenv("SLURM_JOB_ID"); job && *job)
    return "this SLURM job (" + std::string(job) + ") was given no GPU: the course's settings must ask for one "
           "(gpus_per_job in " + course_settings_path(env).string() + "); tell the course staff";
  std::optional<CourseSlurm> course;
  try {
    course = load_course_slurm(env);
  } catch (const CourseSettingsError& error) {
    return "the course's cluster settings are wrong (" + std::string(error.what()) + "): ask the course staff for a GPU";
  }
  if (!course) return "this course has no GPU cluster set up for the grader (no [slurm] in " + course_settings_path(env).string() +
                      "): ask the course staff where to run it";
  std::error_code ec;
  std::string command = "grader " + lab + " --slurm";
  if (!fs::equivalent(submission, default_submission, ec)) command += " --submission " + shell_quote(submission.string());
  return "to grade it on a GPU node of the course's cluster: " + command;
}

}  // namespace grader
