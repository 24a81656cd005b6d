#include "build/build_inputs.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <system_error>

#include "run/sandbox.h"
#include "run/unprivileged.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

constexpr auto readable_file = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;
constexpr auto readable_folder = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec;

fs::path inputs_folder(const fs::path& workdir) { return workdir / "build-inputs"; }

// `from` copied to `to`, readable by everyone whatever its own mode (a course kept private keeps 0600 files).
void copy_readable(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  fs::permissions(to, readable_file);
}

// Every folder from `top` down to each file `copy_readable` made: readable and enterable by everyone.
void open_folders(const fs::path& top) {
  fs::permissions(top, readable_folder);
  for (const auto& entry : fs::recursive_directory_iterator(top))
    if (entry.is_directory()) fs::permissions(entry.path(), readable_folder);
}

// Once per grader: the build user can read the lab's lab.toml, so the hidden cases are one `#include` away. Only
// a root grader without bubblewrap can tell (the others run the compiler as themselves, or in a box that shows no
// lab folder); it warns the person who runs it, on stderr, not the students who read the report.
void warn_if_lab_is_exposed(const LabSpec& spec) {
  if (!drops_privileges() || Sandbox::get().available()) return;
  static std::once_flag once;
  const fs::path toml = spec.dir / "lab.toml";
  std::call_once(once, [&] {
    if (!can_read_as(build_user, toml)) return;
    std::cerr << "grader: warning: " << toml.string() << " is readable by every user, so a student's #include of it "
              << "would quote the lab's hidden cases in a compile error; keep the course folder from other users "
              << "(chmod -R o-rwx) or grade where bubblewrap works (docs/threat-model.md)\n";
  });
}

}  // namespace

BuildInputs prepare_build_inputs(const Environment& env, const LabSpec& spec, const LabBuild& lab, const fs::path& workdir,
                                 const std::vector<fs::path>& sources) {
  warn_if_lab_is_exposed(spec);
  const fs::path top = inputs_folder(workdir);
  BuildInputs inputs;
  inputs.lab_headers = top / "lab";
  inputs.labkit_include = top / "labkit";
  fs::create_directories(inputs.lab_headers);
  fs::create_directories(inputs.labkit_include);

  const fs::path link = top / "link";
  for (const auto& object : lab.harness_objects) inputs.harness_objects.push_back(link / object.filename());
  const fs::path& library = Sandbox::get().filter_library();
  std::error_code ec;
  const fs::path seccomp = library.empty() ? fs::path() : library.parent_path() / "libseccomp.a";
  if (!library.empty()) inputs.filter_library = link / library.filename();
  if (!seccomp.empty() && fs::is_regular_file(seccomp, ec)) inputs.seccomp_archive = link / seccomp.filename();

  // Copied once per work directory: every build of it (compile and link, the main one and each item's) reads the
  // same files, and neither the build user nor the workers' user can change the grader's copies.
  const fs::path copied = top / "copied";
  if (!fs::exists(copied, ec)) {
    for (const auto& name : spec.build.headers) copy_readable(spec.dir / name, inputs.lab_headers / name);
    for (const auto& entry : fs::recursive_directory_iterator(env.labkit_include()))
      if (entry.is_regular_file())
        copy_readable(entry.path(), inputs.labkit_include / entry.path().lexically_relative(env.labkit_include()));
    fs::create_directories(link);
    for (std::size_t i = 0; i < lab.harness_objects.size(); ++i)
      copy_readable(lab.harness_objects[i], inputs.harness_objects[i]);
    if (!inputs.filter_library.empty()) copy_readable(library, inputs.filter_library);
    if (!inputs.seccomp_archive.empty()) copy_readable(seccomp, inputs.seccomp_archive);
    open_folders(top);
    std::ofstream(copied) << "ok\n";
  }

  // The staged files: copied with the submission's modes, which may keep others out.
  for (const auto& source : sources) {
    fs::permissions(source, readable_file);
    fs::permissions(source.parent_path(), readable_folder);
  }
  return inputs;
}

void make_build_output_folder(const fs::path& folder) {
  fs::create_directories(folder);
  fs::permissions(folder, readable_folder);
  if (drops_privileges() && ::chown(folder.c_str(), build_user.uid, build_user.gid) != 0)
    throw std::system_error(errno, std::generic_category(), "cannot give " + folder.string() + " to " + build_user.name);
}

ToolOptions student_build_tool(double timeout_seconds, const fs::path& output_folder) {
  ToolOptions options;
  options.timeout_seconds = timeout_seconds;
  options.output_cap = 256 * 1024;
  options.as_build_user = true;
  // Nothing else of the grader's environment: a compiler could quote it from /proc/self/environ.
  const char* path = std::getenv("PATH");
  options.environment = {std::string("PATH=") + (path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin"),
                         "HOME=" + output_folder.string(), "TMPDIR=" + output_folder.string()};
  for (const char* name : {"LANG", "LC_ALL", "LC_MESSAGES"})
    if (const char* value = std::getenv(name)) options.environment.push_back(std::string(name) + "=" + value);
  return options;
}

std::vector<fs::path> build_input_folders(const fs::path& workdir) {
  return {inputs_folder(workdir) / "lab", inputs_folder(workdir) / "labkit", inputs_folder(workdir) / "link"};
}

}  // namespace grader
