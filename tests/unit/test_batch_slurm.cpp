// test_batch_slurm.cpp: the job array a class becomes on a cluster (grader/src/batch/slurm.h): how students
// are cut into array tasks, the roster the tasks read back, and the sbatch script's text. The real
// scheduler is exercised end to end by tests/batch (label slurm).
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "batch/slurm.h"

using namespace grader;
namespace fs = std::filesystem;

TEST_CASE("students are cut into array tasks of `chunk`") {
  CHECK(array_size(10, 1) == 10);
  CHECK(array_size(10, 3) == 4);
  CHECK(array_size(0, 3) == 0);
  TaskRoster roster{"lab1", 3, {"a", "b", "c", "d", "e", "f", "g"}};
  CHECK(task_students(roster, 0) == std::vector<std::string>{"a", "b", "c"});
  CHECK(task_students(roster, 2) == std::vector<std::string>{"g"});
  CHECK(task_students(roster, 3).empty());
  CHECK(task_of(roster, "e") == 1);
  CHECK(task_of(roster, "zoe") == -1);
}

TEST_CASE("the task roster survives the trip through its file") {
  std::string pattern = (fs::temp_directory_path() / "test-batch-slurm-XXXXXX").string();
  REQUIRE(::mkdtemp(pattern.data()) != nullptr);
  const fs::path file = fs::path(pattern) / "roster.json";
  write_task_roster(file, {"lab1", 2, {"alice", "bob\nwith a newline", "carol"}});
  const TaskRoster back = read_task_roster(file);
  CHECK(back.lab == "lab1");
  CHECK(back.chunk == 2);
  CHECK(back.students == std::vector<std::string>{"alice", "bob\nwith a newline", "carol"});
  CHECK_THROWS(read_task_roster(fs::path(pattern) / "missing.json"));
  fs::remove_all(pattern);
}

TEST_CASE("words are quoted for the shell") {
  CHECK(shell_quote("/opt/grader") == "/opt/grader");
  CHECK(shell_quote("my subs") == "'my subs'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("$HOME") == "'$HOME'");
  CHECK(shell_quote("") == "''");
}

TEST_CASE("the sbatch script: one array task per chunk, the options asked for, the grader's own command") {
  SlurmOptions options;
  options.job_name = "grade-lab1";
  options.partition = "gpu";
  options.time = "30:00";
  options.gpus_per_task = 1;
  options.exclusive = true;
  const std::string script = sbatch_script(options, 12, "/course/out/slurm/logs",
                                           {"/opt/grader", "batch", "lab1", "/course/my subs", "--out", "/course/out"},
                                           "first line\nsecond line");
  CHECK(script.rfind("#!/bin/bash\n# first line\n# second line\n", 0) == 0);
  CHECK(script.find("#SBATCH --job-name=grade-lab1\n") != std::string::npos);
  CHECK(script.find("#SBATCH --array=0-11\n") != std::string::npos);
  CHECK(script.find("#SBATCH --output=/course/out/slurm/logs/task-%a.log\n") != std::string::npos);
  CHECK(script.find("#SBATCH --partition=gpu\n") != std::string::npos);
  CHECK(script.find("#SBATCH --time=30:00\n") != std::string::npos);
  CHECK(script.find("#SBATCH --gpus-per-task=1\n") != std::string::npos);
  CHECK(script.find("#SBATCH --exclusive\n") != std::string::npos);
  CHECK(script.find("--cpus-per-task") == std::string::npos);  // not asked for
  CHECK(script.find("\nexec /opt/grader batch lab1 '/course/my subs' --out /course/out --jobs \"${SLURM_CPUS_ON_NODE:-1}\"\n") !=
        std::string::npos);

  SlurmOptions plain;
  const std::string minimal = sbatch_script(plain, 1, "/out/logs", {"grader"}, "");
  CHECK(minimal.find("--partition") == std::string::npos);
  CHECK(minimal.find("--exclusive") == std::string::npos);
  CHECK(minimal.find("#SBATCH --array=0-0\n") != std::string::npos);
}

TEST_CASE("the sbatch script a cluster admin accepts: no whole node unless asked, the site's options passed through") {
  SlurmOptions options;
  options.job_name = "grade-lab1";
  options.time = "45";
  options.account = "cs101";
  options.qos = "short";
  options.mem = "8G";
  options.constraint = "icelake";
  options.array_limit = 4;
  options.extra = {"--reservation=exam", "--mail-type=END"};
  const std::string script = sbatch_script(options, 3, "/out/logs", {"grader"}, "");
  CHECK(script.find("#SBATCH --array=0-2%4\n") != std::string::npos);
  for (const char* line : {"#SBATCH --time=45\n", "#SBATCH --account=cs101\n", "#SBATCH --qos=short\n", "#SBATCH --mem=8G\n",
                           "#SBATCH --constraint=icelake\n", "#SBATCH --reservation=exam\n", "#SBATCH --mail-type=END\n"}) {
    CAPTURE(line);
    CHECK(script.find(line) != std::string::npos);
  }
  CHECK(script.find("--exclusive") == std::string::npos);
  // The TA's own options come after the grader's, so theirs win where both set one.
  CHECK(script.find("#SBATCH --reservation=exam") > script.find("#SBATCH --constraint=icelake"));
}

TEST_CASE("tasks are sized by work: several students each, and a time limit from the estimate") {
  CHECK(students_per_task(/*quick=*/true) > 1);
  CHECK(students_per_task(/*quick=*/false) > 1);
  CHECK(students_per_task(true) >= students_per_task(false));  // a --quick grading is the shorter
  CHECK(array_size(37, students_per_task(false)) < 37);
  // Three times the estimate, in minutes, never under 10.
  CHECK(task_time(1, true) == "10");
  CHECK(std::stoi(task_time(10, false)) == 3 * 10 * estimated_seconds_per_student(false) / 60);
}

TEST_CASE("an sbatch value with a line break is refused: it would be a script line of its own") {
  CHECK(sbatch_value_problem("--account", "cs101").empty());
  CHECK_FALSE(sbatch_value_problem("--account", "cs101\nrm -rf ~").empty());
  CHECK_FALSE(sbatch_value_problem("--sbatch", "--x\r").empty());
}
