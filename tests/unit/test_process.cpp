// test_process.cpp: the process runner (grader/src/run/process.h) against real children: shell one-liners,
// and a small C++ helper compiled at test time for what a shell cannot do (a real segfault, large allocations).
// When run as root, each child runs as a user id of its own (run/worker_uid.h), so the work directories and the
// helper must be reachable by any user.
#include <doctest/doctest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "run/memory_cgroup.h"
#include "run/process.h"
#include "run/worker_uid.h"

namespace fs = std::filesystem;
using grader::ChildProcess;
using grader::Ending;
using grader::LaunchOptions;
using grader::ReadStatus;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kMiB = 1u << 20;

// A fresh directory under /tmp that uid 65534 can enter, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/test_process.XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path_ = name;
    chmod(name, 0755);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

LaunchOptions command(std::vector<std::string> argv, const fs::path& workdir) {
  LaunchOptions options;
  options.argv = std::move(argv);
  options.workdir = workdir;
  options.environment = {{"PATH", "/usr/bin:/bin"}};
  options.limits.wall_seconds = 10;
  options.limits.cpu_seconds = 10;
  return options;
}

LaunchOptions shell(const std::string& script, const fs::path& workdir) {
  return command({"/bin/sh", "-c", script}, workdir);
}

// The helper: `helper segv` dereferences null; `helper alloc MIB` allocates and touches MIB mebibytes in 16 MiB
// blocks, says "allocated" on fd 4, then sleeps.
const char* kHelperSource = R"(
#include <cstdlib>
#include <cstring>
#include <new>
#include <unistd.h>
int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "segv") == 0) {
    volatile int* nowhere = nullptr;
    return *nowhere;
  }
  if (argc > 2 && std::strcmp(argv[1], "alloc") == 0) {
    const long blocks = std::atol(argv[2]) / 16;
    for (long i = 0; i < blocks; ++i) std::memset(new char[16 << 20], 1, 16 << 20);
    write(4, "allocated\n", 10);
    sleep(30);
  }
  return 0;
}
)";

// Compiled once for the whole run, in a directory that outlives every test.
const std::string& helper_program() {
  static const TempDir dir;  // removed at exit
  static const std::string program = [] {
    const fs::path source = dir.path() / "helper.cpp";
    std::ofstream(source) << kHelperSource;
    const std::string binary = (dir.path() / "helper").string();
    const std::string compile = "/usr/bin/g++ -O0 -o " + binary + " " + source.string();
    REQUIRE_MESSAGE(std::system(compile.c_str()) == 0, "cannot compile the helper: " << compile);
    return binary;
  }();
  return program;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Whether any process of group `pgid` still exists (zombies included).
bool group_exists(pid_t pgid) {
  const int result = kill(-pgid, 0);
  const int error = errno;
  return !(result == -1 && error == ESRCH);
}

}  // namespace

TEST_CASE("a child answers a command over fds 3 and 4") {
  TempDir workdir;
  ChildProcess child = ChildProcess::launch(
      shell(R"(read line <&3; echo "got $line" >&4; printf xyz >&4)", workdir.path()));
  CHECK(child.send("hello\n"));
  std::string line;
  REQUIRE(child.read_line(line, 5s) == ReadStatus::ok);
  CHECK(line == "got hello");
  char raw[3];
  REQUIRE(child.read_exact(raw, sizeof raw, 5s) == ReadStatus::ok);
  CHECK(std::string(raw, sizeof raw) == "xyz");
  CHECK(child.read_line(line, 5s) == ReadStatus::closed);

  const Ending& ending = child.finish();
  CHECK(ending.kind == Ending::Kind::exited);
  CHECK(ending.exit_code == 0);
  CHECK(&child.finish() == &ending);  // idempotent
}

TEST_CASE("a silent child gives a read deadline, and kill() ends it") {
  TempDir workdir;
  ChildProcess child = ChildProcess::launch(shell("sleep 5", workdir.path()));
  const auto start = std::chrono::steady_clock::now();
  std::string line;
  CHECK(child.read_line(line, 200ms) == ReadStatus::deadline);
  CHECK(seconds_since(start) >= 0.19);
  CHECK(seconds_since(start) < 2);

  const Ending& ending = child.kill();
  CHECK(ending.kind == Ending::Kind::signaled);
  CHECK(ending.signal_name == "SIGKILL");
}

TEST_CASE("past the wall-clock limit the child is killed while we wait") {
  TempDir workdir;
  LaunchOptions options = shell("sleep 100", workdir.path());
  options.limits.wall_seconds = 1;
  const auto start = std::chrono::steady_clock::now();
  ChildProcess child = ChildProcess::launch(options);
  std::string line;
  CHECK(child.read_line(line, 100s) == ReadStatus::killed);
  CHECK(seconds_since(start) >= 1);
  CHECK(seconds_since(start) < 3);
  CHECK(child.ending().kind == Ending::Kind::wall_timeout);
  CHECK(child.finish().kind == Ending::Kind::wall_timeout);
  CHECK_FALSE(child.send("too late\n"));
}

TEST_CASE("a crash is named by its signal") {
  TempDir workdir;
  ChildProcess child = ChildProcess::launch(command({helper_program(), "segv"}, workdir.path()));
  const Ending& ending = child.finish();
  CHECK(ending.kind == Ending::Kind::signaled);
  CHECK(ending.signal == SIGSEGV);
  CHECK(ending.signal_name == "SIGSEGV");
}

TEST_CASE("output past the cap is cut there and ends the child") {
  TempDir workdir;
  LaunchOptions options = shell("yes | head -c 10M", workdir.path());
  options.limits.output_bytes = 64 * 1024;
  ChildProcess child = ChildProcess::launch(options);
  std::string line;
  CHECK(child.read_line(line, 10s) == ReadStatus::killed);
  CHECK(child.finish().kind == Ending::Kind::output_limit);
  CHECK(child.output_truncated());
  CHECK(child.stdout_text().size() == 64 * 1024);
  CHECK(child.stdout_text().substr(0, 4) == "y\ny\n");
}

TEST_CASE("a reply line without end is cut off as an output limit") {
  TempDir workdir;
  ChildProcess child = ChildProcess::launch(shell("yes | tr -d '\\n' >&4", workdir.path()));
  std::string line;
  CHECK(child.read_line(line, 10s) == ReadStatus::killed);  // not a grader holding gigabytes of one line
  CHECK(child.finish().kind == Ending::Kind::output_limit);
}

TEST_CASE("a child that exits before replying: the reply pipe closes, the ending says how") {
  TempDir workdir;
  ChildProcess child = ChildProcess::launch(shell("echo to-stdout; echo to-stderr >&2; exit 0", workdir.path()));
  std::string line;
  CHECK(child.read_line(line, 5s) == ReadStatus::closed);
  const Ending& ending = child.finish();
  CHECK(ending.kind == Ending::Kind::exited);
  CHECK(ending.exit_code == 0);
  CHECK(child.stdout_text() == "to-stdout\n");
  CHECK(child.stderr_text() == "to-stderr\n");
  CHECK_FALSE(child.output_truncated());
}

TEST_CASE("a busy loop runs into the CPU limit") {
  TempDir workdir;
  LaunchOptions options = shell("while :; do :; done", workdir.path());
  options.limits.cpu_seconds = 1;
  ChildProcess child = ChildProcess::launch(options);
  std::string line;
  CHECK(child.read_line(line, 8s) == ReadStatus::closed);
  const Ending& ending = child.finish();
  CHECK(ending.kind == Ending::Kind::cpu_timeout);
  CHECK(ending.cpu_seconds >= 0.8);  // the kernel accounts CPU time in ticks
}

TEST_CASE("memory: the address-space limit fails the allocation") {
  TempDir workdir;
  LaunchOptions options = command({helper_program(), "alloc", "2048"}, workdir.path());
  options.limits.memory_bytes = 256 * kMiB;
  options.limits.limit_address_space = true;
  ChildProcess child = ChildProcess::launch(options);
  std::string line;
  CHECK(child.read_line(line, 8s) == ReadStatus::closed);  // never says "allocated"
  const Ending& ending = child.finish();
  const bool failed = (ending.kind == Ending::Kind::signaled && ending.signal == SIGABRT) ||
                      (ending.kind == Ending::Kind::exited && ending.exit_code != 0);
  CHECK_MESSAGE(failed, "ended as kind " << static_cast<int>(ending.kind) << ", stderr: " << child.stderr_text());
  CHECK(ending.max_rss_bytes < 256 * kMiB);
}

// The kernel's OOM killer in the child's memory cgroup, where there is one (the read sees the pipe close), else the
// resident-memory poll (the read sees the kill).
TEST_CASE("memory: without an address-space limit, the child is still ended at its memory limit") {
  TempDir workdir;
  LaunchOptions options = command({helper_program(), "alloc", "2048"}, workdir.path());
  options.limits.memory_bytes = 256 * kMiB;
  options.limits.limit_address_space = false;  // as for CUDA processes
  ChildProcess child = ChildProcess::launch(options);
  std::string line;
  const ReadStatus status = child.read_line(line, 8s);
  CHECK((status == ReadStatus::killed || (status == ReadStatus::closed && grader::MemoryCgroup::available())));
  CHECK(child.finish().kind == Ending::Kind::memory_limit);
}

TEST_CASE("the child sees only the environment it was given") {
  TempDir workdir;
  LaunchOptions options = command({"env"}, workdir.path());  // a bare name: found through the child's PATH
  options.environment["GREETING"] = "hello world";
  ChildProcess child = ChildProcess::launch(options);
  CHECK(child.finish().kind == Ending::Kind::exited);
  CHECK(child.stdout_text() == "GREETING=hello world\nPATH=/usr/bin:/bin\n");
}

TEST_CASE("the child starts in its workdir with fds 0-4 only, as a leased worker user when the grader is root") {
  TempDir workdir;
  ChildProcess child = ChildProcess::launch(shell("pwd; id -u; read nothing; echo \"[$nothing]\"", workdir.path()));
  CHECK(child.finish().kind == Ending::Kind::exited);
  const std::string prefix = workdir.path().string() + "\n";
  REQUIRE(child.stdout_text().rfind(prefix, 0) == 0);
  const unsigned long uid = std::stoul(child.stdout_text().substr(prefix.size()));
  if (geteuid() == 0) {
    CHECK(uid >= grader::kFirstWorkerUid);
    CHECK(uid < grader::kFirstWorkerUid + grader::kWorkerUidCount);
  } else {
    CHECK(uid == geteuid());
  }
  CHECK(child.stdout_text().substr(child.stdout_text().find('\n', prefix.size())) == "\n[]\n");  // stdin: /dev/null

  // The open fds are listed by ls of its own: a shell listing itself (`ls /proc/$$/fd | tr ...`) also shows
  // the pipes and saved fds it holds while it starts the commands, when a loaded machine lets ls run early
  // (fds 5 and 10 were seen). ls holds one fd besides those it was given: the directory it reads, numbered 5
  // when 0-4 are the only others.
  ChildProcess lister = ChildProcess::launch(command({"ls", "/proc/self/fd"}, workdir.path()));
  CHECK(lister.finish().kind == Ending::Kind::exited);
  CHECK(lister.stdout_text() == "0\n1\n2\n3\n4\n5\n");
}

TEST_CASE("own_network: the child's network holds only its loopback, which is up (root only)") {
  TempDir workdir;
  // /proc/net is the reader's own namespace's (sysfs is not); a connection to itself on 127.0.0.1 needs lo up.
  const std::string talk_to_itself =
      "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1); "
      "c = socket.create_connection(s.getsockname(), timeout=5); print('loopback up')";
  LaunchOptions options = shell("cat /proc/net/dev; python3 -c \"" + talk_to_itself + "\"", workdir.path());
  options.own_network = true;
  if (geteuid() != 0) {
    // Without root no namespace can be made: start_child says which step failed, rather than run it unisolated.
    CHECK_THROWS_WITH_AS(ChildProcess::launch(options), doctest::Contains("network namespace"), std::system_error);
    return;
  }
  ChildProcess child = ChildProcess::launch(options);
  CHECK(child.finish().kind == Ending::Kind::exited);
  const std::string out = child.stdout_text();
  INFO(out);
  // /proc/net/dev: two header lines, then one line per interface; lo alone.
  int interfaces = 0;
  for (std::size_t at = out.find(':'); at != std::string::npos; at = out.find(':', at + 1)) ++interfaces;
  CHECK(interfaces == 1);
  CHECK(out.find("lo:") != std::string::npos);
  CHECK(out.find("loopback up") != std::string::npos);
}

TEST_CASE("the child starts with default signal handling, whatever the grader ignores or blocks") {
  TempDir workdir;
  // The grader ignores SIGPIPE, and a grader thread may block signals; neither may reach the child.
  sigset_t usr1, previous;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, &previous);
  ChildProcess child = ChildProcess::launch(shell("yes | head -c 2; kill -USR1 $$; echo survived", workdir.path()));
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  const Ending& ending = child.finish();
  CHECK(ending.signal_name == "SIGUSR1");
  CHECK(child.stdout_text() == "y\n");
  CHECK(child.stderr_text() == "");  // an ignored SIGPIPE would make yes complain of a broken pipe
}

TEST_CASE("finish() kills what the child left running in its process group") {
  TempDir workdir;
  // The background sleep also holds stdout, stderr and the reply pipe open, as a stray helper would.
  ChildProcess child = ChildProcess::launch(shell("sleep 1000 & echo started >&4", workdir.path()));
  const pid_t group = child.pid();
  std::string line;
  REQUIRE(child.read_line(line, 5s) == ReadStatus::ok);
  CHECK(line == "started");
  const auto start = std::chrono::steady_clock::now();
  const Ending& ending = child.finish();
  CHECK(seconds_since(start) < 1.5);  // the leader exited at once: no waiting out the grace period
  CHECK(ending.kind == Ending::Kind::exited);
  CHECK_FALSE(group_exists(group));
}

// Whether process `pid` exists and is not a zombie (a zombie of ours is also gone for this purpose once reaped).
bool process_alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

TEST_CASE("no process outlives its grading: one that left the group with setsid is killed and reaped") {
  // Without the syscall filter (a worker run without it, or a tool): setsid(1) puts sleep in a new session,
  // out of the process group the grader kills; the shell exits at once, orphaning it.
  TempDir workdir;
  ChildProcess child = ChildProcess::launch(shell("setsid sleep 1000 & echo $! >&4", workdir.path()));
  const pid_t group = child.pid();
  std::string line;
  REQUIRE(child.read_line(line, 5s) == ReadStatus::ok);
  const pid_t escaped = static_cast<pid_t>(std::stol(line));
  // The attack worked: the process runs in a session and group of its own.
  for (int tries = 0; tries < 100 && getpgid(escaped) == group; ++tries) std::this_thread::sleep_for(10ms);
  REQUIRE(process_alive(escaped));
  CHECK(getpgid(escaped) != group);
  CHECK(getsid(escaped) == escaped);
  child.finish();
  CHECK_FALSE(group_exists(group));
  CHECK_FALSE(process_alive(escaped));
  CHECK((kill(escaped, 0) == -1 && errno == ESRCH));  // reaped too, not left a zombie
}

TEST_CASE("ending one child leaves the others, and the grader's own tools, alone") {
  TempDir first_dir, second_dir;
  ChildProcess first = ChildProcess::launch(shell("echo up >&4; sleep 1000", first_dir.path()));
  ChildProcess second = ChildProcess::launch(shell("read line <&3; echo \"$line\" >&4", second_dir.path()));
  std::string line;
  REQUIRE(first.read_line(line, 5s) == ReadStatus::ok);
  first.kill();  // sweeps orphans: `second` is a child of ours too, but one we started
  REQUIRE(second.send("still here\n"));
  REQUIRE(second.read_line(line, 5s) == ReadStatus::ok);
  CHECK(line == "still here");
  CHECK(second.finish().kind == Ending::Kind::exited);
}

TEST_CASE("a program that cannot be executed is an exception naming it") {
  TempDir workdir;
  try {
    ChildProcess::launch(command({"/nonexistent/program"}, workdir.path()));
    FAIL("launch() returned");
  } catch (const std::system_error& error) {
    CHECK(std::string(error.what()).find("/nonexistent/program") != std::string::npos);
    CHECK(error.code().value() == ENOENT);
  }
}

TEST_CASE("a fork bomb stops at the process limit and the grader is unharmed") {
  TempDir workdir;
  // At most 200 sleeps; the limit of 16 stops it long before, and finish() kills the ones that started.
  LaunchOptions options = shell(R"(i=0; while [ $i -lt 200 ]; do sleep 1000 & i=$((i+1)); done; echo "spawned $i" >&4)",
                                workdir.path());
  options.limits.processes = 16;
  ChildProcess bomb = ChildProcess::launch(options);
  const pid_t group = bomb.pid();
  const Ending& ending = bomb.finish(5s);
  CHECK(ending.kind == Ending::Kind::exited);
  CHECK(ending.exit_code != 0);
  CHECK(bomb.stderr_text().find("fork") != std::string::npos);
  std::string line;
  CHECK(bomb.read_line(line, 1s) == ReadStatus::closed);  // it never got to say "spawned 200"
  CHECK_FALSE(group_exists(group));

  ChildProcess after = ChildProcess::launch(shell("echo fine >&4", workdir.path()));
  REQUIRE(after.read_line(line, 5s) == ReadStatus::ok);
  CHECK(line == "fine");
}

// Issue 38: one user for every worker made each process limit count every other grading's processes too.
TEST_CASE("each child's process limit counts its own tasks: a neighbour at its limit takes none of them") {
  if (geteuid() != 0) {
    MESSAGE("skipped: only a root grader gives each worker a user of its own; this one shares its user's count");
    return;
  }
  TempDir workdir;
  // Started first, with room for itself, its subshell and three sleeps: under one shared user, its limit was the
  // user's tasks at its launch plus 8, which the neighbour's 30 sleeps below then used up.
  LaunchOptions patient_options = shell(R"(read go <&3; (sleep 0.2 & sleep 0.2 & sleep 0.2 & wait) && echo "forked" >&4)",
                                        workdir.path());
  patient_options.limits.processes = 8;
  ChildProcess patient = ChildProcess::launch(patient_options);
  LaunchOptions neighbour_options = shell(R"(i=0; while [ $i -lt 30 ]; do sleep 30 & i=$((i+1)); done; echo "full" >&4; wait)",
                                          workdir.path());
  neighbour_options.limits.processes = 32;
  ChildProcess neighbour = ChildProcess::launch(neighbour_options);
  std::string line;
  REQUIRE(neighbour.read_line(line, 10s) == ReadStatus::ok);
  CHECK(line == "full");
  REQUIRE(patient.send("go\n"));
  REQUIRE_MESSAGE(patient.read_line(line, 10s) == ReadStatus::ok, "stderr: " << patient.stderr_text());
  CHECK(line == "forked");
  CHECK(patient.finish().kind == Ending::Kind::exited);
}

TEST_CASE("files written past the write budget end the child with their own verdict") {
  TempDir workdir;
  // Each file is under the file-size limit; together they are past the budget.
  LaunchOptions options = shell("for f in a b c d; do head -c 20971520 /dev/zero > $f; done; echo wrote >&4; sleep 10",
                                workdir.path());
  options.limits.written_bytes = 48 * kMiB;
  ChildProcess child = ChildProcess::launch(options);
  std::string line;
  const ReadStatus status = child.read_line(line, 10s);
  const Ending& ending = child.finish();
  CHECK_MESSAGE(ending.kind == Ending::Kind::written_limit, "read " << static_cast<int>(status) << " [" << line << "]");
}

// The files are measured as often as a wait measures them and once more as each answer ends, not with every read of
// the pipe (64 KiB each): an array's answer ends in read_exact, which must still refuse one whose files are past the
// budget. And an answer within the budget comes whole, however many reads it takes.
TEST_CASE("a large answer is read whole, and refused when the files written before it are past the write budget") {
  TempDir workdir;
  LaunchOptions within = shell("head -c 1000 /dev/zero > a; head -c 20971520 /dev/zero >&4; sleep 10", workdir.path());
  within.limits.written_bytes = 48 * kMiB;
  ChildProcess fine = ChildProcess::launch(within);
  std::vector<char> answer(20 * kMiB, 'x');
  CHECK(fine.read_exact(answer.data(), answer.size(), 10s) == ReadStatus::ok);
  CHECK(std::count(answer.begin(), answer.end(), '\0') == static_cast<long>(answer.size()));
  fine.kill();

  TempDir other;
  LaunchOptions past = shell("for f in a b c; do head -c 20971520 /dev/zero > $f; done; head -c 20971520 /dev/zero >&4; "
                             "sleep 10", other.path());
  past.limits.written_bytes = 48 * kMiB;
  ChildProcess child = ChildProcess::launch(past);
  const ReadStatus status = child.read_exact(answer.data(), answer.size(), 10s);
  CHECK(status == ReadStatus::killed);
  CHECK(child.finish().kind == Ending::Kind::written_limit);
}

TEST_CASE("memory is limited over all the child's processes where a memory cgroup can be made") {
  std::string why;
  if (!grader::MemoryCgroup::available(&why)) {
    MESSAGE("skipped: " << why);
    return;
  }
  TempDir workdir;
  // Four processes of 96 MiB: each under the address-space limit of 256 MiB, 384 MiB together.
  const std::string alloc = helper_program() + " alloc 96";
  LaunchOptions options = shell(alloc + " & " + alloc + " & " + alloc + " & " + alloc + " & wait", workdir.path());
  options.limits.memory_bytes = 256 * kMiB;
  ChildProcess child = ChildProcess::launch(options);
  std::string line;
  int allocated = 0;
  while (child.read_line(line, 5s) == ReadStatus::ok) ++allocated;
  // How many report is not the check: once the cgroup's OOM killer ends one of them, its memory is free for the
  // last to allocate (seen under load in the whole suite). Under a per-process limit alone all four would allocate
  // and exit by themselves; the cgroup ends the child for memory.
  MESSAGE(allocated << " of 4 allocated before the limit ended the child");
  CHECK(child.finish().kind == Ending::Kind::memory_limit);
}

TEST_CASE("sending to a child that closed its command pipe fails without hurting the grader") {
  TempDir workdir;
  ChildProcess child = ChildProcess::launch(shell("exec 3<&-; echo closed >&4; sleep 5", workdir.path()));
  std::string line;
  REQUIRE(child.read_line(line, 5s) == ReadStatus::ok);
  CHECK_FALSE(child.send("anyone there?\n"));  // EPIPE, not a SIGPIPE that would kill this test
  CHECK(child.kill().kind == Ending::Kind::signaled);
}

TEST_CASE("signal names") {
  CHECK(grader::signal_name(SIGSEGV) == "SIGSEGV");
  CHECK(grader::signal_name(SIGXCPU) == "SIGXCPU");
  CHECK(grader::signal_name(64) == "signal 64");
}
