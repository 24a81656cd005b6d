// test_slurm_job.cpp: the course's cluster settings (slurm/course_settings.h) and the one job script generator with
// what SLURM says of a job (slurm/job_script.h). Real daemons: tests/batch/grade_slurm_e2e.py (label slurm).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "slurm/course_settings.h"
#include "slurm/job_script.h"

using namespace grader;

namespace {

// The message a wrong course.toml gets, which must name the line and column.
std::string settings_error(const std::string& text) {
  try {
    parse_course_slurm(text, "course.toml");
  } catch (const CourseSettingsError& error) {
    return error.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("course.toml: the [slurm] table, its defaults, and no table at all") {
  CHECK_FALSE(parse_course_slurm("[other]\nx = 1\n", "course.toml").has_value());
  const auto slurm = parse_course_slurm(
      "[slurm]\npartition = \"gpu\"\naccount = \"cs101\"\nqos = \"class\"\ngpus_per_job = 2\ntime = \"20:00\"\n"
      "grader = \"/opt/grader\"\nroot = \"/opt/course\"\nshared_filesystem = false\n", "course.toml");
  REQUIRE(slurm.has_value());
  CHECK(slurm->partition == "gpu");
  CHECK(slurm->account == "cs101");
  CHECK(slurm->qos == "class");
  CHECK(slurm->gpus_per_job == 2);
  CHECK(slurm->time == "20:00");
  CHECK(slurm->grader == "/opt/grader");
  CHECK(slurm->root == "/opt/course");
  CHECK_FALSE(slurm->shared_filesystem);
  const auto defaults = parse_course_slurm("[slurm]\n", "course.toml");
  REQUIRE(defaults.has_value());
  CHECK(defaults->gpus_per_job == 1);
  CHECK(defaults->time == "30:00");
  CHECK(defaults->shared_filesystem);
}

TEST_CASE("course.toml: each mistake named at its line and column") {
  CHECK(settings_error("[slurm]\ngpus_per_job = -1\n") == "course.toml:2:16: gpus_per_job must be a whole number from 0 to 16, got -1");
  CHECK(settings_error("[slurm]\npartition = 3\n") == "course.toml:2:13: partition must be a string (in double quotes)");
  CHECK(settings_error("[slurm]\npartiton = \"gpu\"\n").rfind("course.toml:2:1: unknown key 'partiton' in [slurm]", 0) == 0);
  CHECK(settings_error("[slurm]\naccount = \"a\\nb\"\n") == "course.toml:2:11: account holds a line break: each value is one line of the job script");
  CHECK(settings_error("[slurm]\ngrader = \"bin/grader\"\n") == "course.toml:2:10: grader must be an absolute path: the nodes start jobs elsewhere");
  CHECK(settings_error("[slurm]\nshared_filesystem = \"yes\"\n") == "course.toml:2:21: shared_filesystem must be true or false");
  CHECK(settings_error("[slurm]\ntime = \"\"\n").rfind("course.toml:2:8: time must not be empty", 0) == 0);
  CHECK(settings_error("slurm = 1\n") == "course.toml:1:9: slurm must be a table: [slurm] and its keys below it");
  CHECK(settings_error("[slurm\n").rfind("course.toml:1:", 0) == 0);  // toml++'s own words, placed
}

TEST_CASE("the course's settings fill in what the command line left out; a CPU lab asks for no GPU") {
  CourseSlurm course;
  course.partition = "gpu";
  course.account = "cs101";
  course.gpus_per_job = 2;
  course.cpus_per_job = 8;
  SlurmOptions ta;
  ta.partition = "debug";  // the TA's own --partition wins
  apply_course_settings(ta, course, true);
  CHECK(ta.partition == "debug");
  CHECK(ta.account == "cs101");
  CHECK(ta.gpus_per_task == 2);
  CHECK(ta.cpus_per_task == 8);
  SlurmOptions cpu_lab;
  apply_course_settings(cpu_lab, course, false);
  CHECK(cpu_lab.gpus_per_task == 0);
}

TEST_CASE("one job (not an array): its log, its GPU request, its body as written") {
  SlurmOptions options;
  options.job_name = "grader-lab5";
  options.partition = "gpu";
  options.time = "20:00";
  options.gpus_per_task = 1;
  const std::string script = job_script({options, "a comment", std::nullopt, "/home/ana/jobs/j1/job.log",
                                         {"echo start", shell_line({"/opt/grader", "grade", "lab5", "--submission-label", "my lab\n5"})}});
  CHECK(script.rfind("#!/bin/bash\n# a comment\n#SBATCH --job-name=grader-lab5\n", 0) == 0);
  CHECK(script.find("--array") == std::string::npos);
  CHECK(script.find("#SBATCH --output=/home/ana/jobs/j1/job.log\n") != std::string::npos);
  CHECK(script.find("#SBATCH --gpus-per-task=1\n") != std::string::npos);
  CHECK(script.find("requeue") == std::string::npos);  // SLURM's own default unless asked
  options.no_requeue = true;  // a student's grading: a failed node ends it, named, rather than queueing it anew
  CHECK(job_script({options, "", std::nullopt, {}, {"true"}}).find("#SBATCH --no-requeue\n") != std::string::npos);
  CHECK(script.find("\n\necho start\n/opt/grader grade lab5 --submission-label 'my lab\n5'\n") != std::string::npos);
}

TEST_CASE("what scontrol says of a job, and which ends are the cluster's") {
  const JobStatus pending = parse_job_status(
      "JobId=12 JobName=grader-lab5 UserId=ana(1000) JobState=PENDING Reason=Resources Dependency=(null) "
      "ExitCode=0:0 NodeList=(null) BatchHost=\n");
  CHECK(pending.known);
  CHECK(pending.state == "PENDING");
  CHECK(pending.reason == "Resources");
  CHECK(pending.nodes.empty());
  CHECK_FALSE(pending.ended());
  const JobStatus timeout = parse_job_status(
      "JobId=13 JobName=grader-lab1 JobState=TIMEOUT Reason=TimeLimit ExitCode=0:15 NodeList=node07 ReqNodeList=(null)\n");
  CHECK(timeout.ended());
  CHECK(timeout.nodes == "node07");
  CHECK(timeout.exit_signal == 15);
  CHECK(ended_by_cluster(timeout, "1") == "the cluster ended it at its time limit (1)");
  CHECK(ended_by_cluster(parse_job_status("JobId=1 JobState=NODE_FAIL NodeList=n3"), "") == "its node failed (n3)");
  CHECK(ended_by_cluster(parse_job_status("JobId=1 JobState=COMPLETED ExitCode=1:0"), "").empty());
  CHECK_FALSE(parse_job_status("slurm_load_jobs error: Invalid job id specified").known);
}

TEST_CASE("a file that travels inside the script: base64 in a quoted here-document, every byte kept") {
  CHECK(embedded_file("src/a.cpp", "Man") == std::vector<std::string>{"base64 -d > src/a.cpp << 'GRADER_END_OF_FILE'", "TWFu", "GRADER_END_OF_FILE"});
  CHECK(embedded_file("src/a.cpp", "Ma")[1] == "TWE=");
  CHECK(embedded_file("src/a.cpp", "M")[1] == "TQ==");
  CHECK(embedded_file("src/a.cpp", "").size() == 2);
  const std::string long_file(100, '\xff');
  const auto lines = embedded_file("src/my file.cu", long_file);
  CHECK(lines[0] == "base64 -d > 'src/my file.cu' << 'GRADER_END_OF_FILE'");
  CHECK(lines[1].size() == 76);  // base64's own line length
  CHECK(lines[1].rfind("////", 0) == 0);
}

TEST_CASE("the job's options are the script's #SBATCH lines and srun's arguments alike") {
  SlurmOptions options;
  options.job_name = "grader-lab1-x";
  options.partition = "cpu nodes";
  options.cpus_per_task = 4;
  const JobScript job{options, "", std::nullopt, {}, {"true"}};
  CHECK(job_options(job) == std::vector<std::string>{"--job-name=grader-lab1-x", "--ntasks=1", "--partition=cpu nodes", "--cpus-per-task=4"});
  CHECK(job_script(job).find("#SBATCH --partition=\"cpu nodes\"\n") != std::string::npos);
}
