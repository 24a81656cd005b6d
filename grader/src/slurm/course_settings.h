// course_settings.h: the course's cluster, set up once by the staff in the course repository's `course.toml`
// (docs/instructor-guide.md), so that a student types only `grader lab5 --slurm` and a TA's `grader batch --slurm`
// asks for the same partition, account and GPUs.
//
//   [slurm]
//   partition = "gpu"
//   account = "cs101"
//   gpus_per_job = 1
//   time = "20:00"
//   grader = "/opt/course/build/grader/grader"
//   shared_filesystem = true
//
// A mistake is "course.toml:4:16: gpus_per_job must be a whole number from 0 to 16, got -1": the file, the line
// and the column, as lab.toml's are.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/environment.h"

namespace grader {

struct CourseSlurm {
  std::string partition, account, qos, constraint, mem;  // empty: SLURM's default, not asked for
  int gpus_per_job = 1;     // asked for by a GPU lab's job; a CPU lab asks for none
  int cpus_per_job = 0;     // 0: SLURM's default (one); a lab that times threads wants the node type's cores
  std::string time = "30:00";  // a student's grading job, SLURM's syntax; the scheduler ends it there
  std::string grader;       // the grader on the nodes; empty: this grader's own path (a shared file system)
  std::string root;         // the course repository on the nodes (--root); empty: the grader's own
  bool shared_filesystem = true;  // the nodes see the login node's files: the submission is staged, not sent
  std::string jobs_folder;  // where job folders go on the shared file system; empty: ~/.cache/grader/slurm
  std::filesystem::path file;  // the course.toml these came from
};

// A course.toml that cannot be read or holds a wrong value; what() reads "file:line:column: message".
class CourseSettingsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// $GRADER_COURSE_SETTINGS when set, else <root>/course.toml.
std::filesystem::path course_settings_path(const Environment& env);

// The [slurm] table of the course settings, or nothing when the file or the table is absent.
// Throws CourseSettingsError for a file that is there but wrong.
std::optional<CourseSlurm> load_course_slurm(const Environment& env);
std::optional<CourseSlurm> parse_course_slurm(std::string_view text, const std::filesystem::path& file);

// The line a report adds under "not run: no CUDA GPU": the exact command that grades `submission` on one of the
// course's GPU nodes ("to grade it on a GPU node of the course's cluster: grader lab5 --slurm"), or, where the
// course has no cluster settings, to ask the staff. Inside a SLURM job (a node given no GPU) it says the job asked
// for none. `--submission` is in the command only when it is not the lab's skeleton folder, the default.
std::string how_to_get_a_gpu(const Environment& env, const std::string& lab, const std::filesystem::path& submission,
                             const std::filesystem::path& default_submission);

}  // namespace grader
