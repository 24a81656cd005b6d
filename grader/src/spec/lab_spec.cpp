// lab_spec.cpp: pipeline stage 1. Reads lab.toml section by section into a LabSpec; the graded items are
// read in spec_items.cpp, the typed access with positions in spec_reader.cpp.
#include "spec/lab_spec.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <toml++/toml.h>

#include "spec/spec_checks.h"
#include "spec/spec_items.h"
#include "spec/spec_reader.h"

namespace grader {

std::string to_string(const SourcePosition& where) {
  // Line 0 is a file that could not be read at all: there is no line to point at.
  if (where.line == 0) return where.file;
  return where.file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
}

SpecError::SpecError(SourcePosition where, const std::string& message)
    : std::runtime_error(to_string(where) + ": " + message), where_(std::move(where)), message_(message) {}

std::string_view to_string(Visibility visibility) {
  switch (visibility) {
    case Visibility::visible: return "visible";
    case Visibility::hidden: return "hidden";
    case Visibility::after_due_date: return "after_due_date";
  }
  return "visible";
}

std::string_view to_string(Metric metric) {
  switch (metric) {
    case Metric::speedup: return "speedup";
    case Metric::roofline: return "roofline";
  }
  return "speedup";
}

double PerformanceItem::max_points() const {
  double best = 0;
  for (const Tier& tier : tiers) best = std::max(best, tier.points);
  return best;
}

double LabSpec::max_score() const {
  double total = 0;
  for (const CorrectnessItem& item : correctness) total += item.points;
  for (const PerformanceItem& item : performance) total += item.max_points();
  return total;
}

namespace {

bool is_lab_id(std::string_view id) {
  return id.size() > 3 && id.substr(0, 3) == "lab" &&
         std::all_of(id.begin() + 3, id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_slug(std::string_view slug) {
  return !slug.empty() && slug.front() != '-' && slug.back() != '-' &&
         std::all_of(slug.begin(), slug.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

// The name of the directory holding lab.toml, also for a bare "lab.toml" given from inside that directory.
std::string directory_name(const std::filesystem::path& lab_toml) {
  return std::filesystem::absolute(lab_toml).lexically_normal().parent_path().filename().string();
}

void read_lab_section(const SpecTable& root, const std::filesystem::path& path, LabSpec& spec) {
  const SpecTable lab = root.required("lab").as_table();

  const SpecField id = lab.required("id");
  spec.id = id.as_string();
  if (!is_lab_id(spec.id)) id.fail("'id' must be \"lab\" followed by digits, like \"lab3\"; got \"" + spec.id + "\"");

  const SpecField slug = lab.required("slug");
  spec.slug = slug.as_string();
  if (!is_slug(spec.slug)) {
    slug.fail("'slug' must be lowercase letters, digits and inner dashes, like \"loop-order\"; got \"" + spec.slug +
              "\"");
  }

  spec.title = lab.required("title").as_nonempty_string();
  if (auto gpu = lab.optional("gpu")) spec.gpu = gpu->as_bool();
  if (auto withheld = lab.optional("withheld")) spec.withheld = withheld->as_int_at_least(0);

  // `grader lab3` and `grader openmp` find labs/lab3-openmp by its name, so the name must agree with the file.
  const std::string directory = directory_name(path);
  if (directory != spec.name()) {
    id.fail_at_key("the lab directory is named '" + directory + "', but [lab] id and slug make '" + spec.name() +
                   "'; rename the directory or change id/slug");
  }
}

// A file the submission provides: a plain name, because the stage step copies exactly these names out of an
// untrusted submission and a path could reach outside it.
std::vector<std::string> read_student_files(const SpecField& field) {
  std::vector<std::string> names;
  for (const SpecField& element : field.as_nonempty_array()) {
    std::string name = element.as_nonempty_string();
    if (name.find('/') != std::string::npos || name.find('\\') != std::string::npos ||
        name.find("..") != std::string::npos) {
      element.fail("student file '" + name + "' must be a plain file name, without '/' or '..'");
    }
    // "." is the submission folder itself; a control character (NUL, a line break) cannot be typed into a report or
    // a command line; a leading '-' would read as a compiler option; a leading '.' is hidden and never unpacked.
    const bool control = std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
    if (name == "." || control || name.front() == '-' || name.front() == '.' || name.size() > 128) {
      element.fail("student file must be a plain file name of letters, digits and punctuation, not starting with '.' or "
                   "'-', at most 128 bytes");
    }
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      element.fail("'" + name + "' is listed twice in 'student_files'");
    }
    names.push_back(std::move(name));
  }
  return names;
}

// Files the lab provides, relative to its directory; each must exist there, so a typo fails here and not
// in the middle of a batch. They stay inside the directory because `grader release` ships only the directory.
std::vector<std::string> read_lab_files(const SpecField& field, bool required, const std::filesystem::path& lab_dir) {
  std::vector<std::string> names;
  const std::vector<SpecField> elements = required ? field.as_nonempty_array() : field.as_array();
  for (const SpecField& element : elements) {
    std::string name = element.as_nonempty_string();
    const std::filesystem::path relative(name);
    const bool escapes = relative.is_absolute() ||
                         std::any_of(relative.begin(), relative.end(), [](const auto& part) { return part == ".."; });
    if (escapes) element.fail("'" + name + "' must be a path inside the lab directory");
    const std::filesystem::path full = lab_dir / relative;
    std::error_code error;
    if (!std::filesystem::is_regular_file(full, error)) {
      element.fail("'" + name + "' (listed in '" + field.key() + "') is not a file in the lab directory " +
                   (lab_dir.empty() ? std::string(".") : lab_dir.string()));
    }
    names.push_back(std::move(name));
  }
  return names;
}

void read_build_section(const SpecTable& root, LabSpec& spec) {
  const SpecTable build = root.required("build").as_table();
  BuildSpec& out = spec.build;

  if (auto language = build.optional("language")) {
    out.language = language->as_choice(known_spec_values("build.language")) == 0 ? "c++" : "cuda";
    if (out.language == "cuda" && !spec.gpu) {
      language->fail("language \"cuda\" needs gpu = true in [lab], so the grader knows the lab needs a GPU to run");
    }
  }

  const SpecField student_files = build.required("student_files");
  out.student_files = read_student_files(student_files);
  if (auto headers = build.optional("headers")) out.headers = read_lab_files(*headers, false, spec.dir);
  out.harness = read_lab_files(build.required("harness"), true, spec.dir);
  out.baseline = read_lab_files(build.required("baseline"), true, spec.dir);

  // A student file named like a lab file would replace the lab's header or harness in the build directory.
  const std::vector<SpecField> student_elements = student_files.as_array();
  for (std::size_t i = 0; i < out.student_files.size(); ++i) {
    for (const auto* lab_files : {&out.headers, &out.harness, &out.baseline}) {
      if (std::find(lab_files->begin(), lab_files->end(), out.student_files[i]) != lab_files->end()) {
        student_elements[i].fail("student file '" + out.student_files[i] +
                                 "' has the name of a file the lab provides; a submission must not replace it");
      }
    }
  }

  if (auto flags = build.optional("flags")) out.flags = flags->as_strings();
  if (auto flags = build.optional("link_flags")) out.link_flags = flags->as_strings();
  if (auto flags = build.optional("judge_link_flags")) out.judge_link_flags = flags->as_strings();
  if (auto kb = build.optional("max_file_kb"))
    out.max_file_bytes = static_cast<std::size_t>(kb->as_integer_in(1, 1 << 20)) * 1024;  // at most 1 GiB a file
}

void read_policy_section(const SpecTable& root, PolicySpec& policy) {
  const std::optional<SpecField> field = root.optional("policy");
  if (!field) return;
  const SpecTable table = field->as_table();
  if (auto forbid = table.optional("forbid")) policy.forbid = forbid->as_unique_strings();
  if (auto allow = table.optional("allow")) policy.allow = allow->as_unique_strings();
  if (auto headers = table.optional("forbid_headers")) policy.forbid_headers = headers->as_unique_strings();
}

void read_limits_section(const SpecTable& root, LimitSpec& limits) {
  const std::optional<SpecField> field = root.optional("limits");
  if (!field) return;
  const SpecTable table = field->as_table();
  // Bounded so that the bytes they become fit 64 bits: memory_mb = 2^44 once wrapped to 0, that is no memory at all.
  constexpr std::int64_t most_mb = std::int64_t{1} << 24;  // 16 TiB
  auto size = [](const SpecField& f, std::int64_t most) { return static_cast<std::size_t>(f.as_integer_in(1, most)); };
  constexpr double most_seconds = 7 * 24 * 3600;  // a week; `inf` is refused by as_number
  auto seconds = [&](const SpecField& f) { return f.as_positive_number() > 0 ? f.as_number_in(0, most_seconds) : 0.0; };
  if (auto f = table.optional("wall_seconds")) limits.wall_seconds = seconds(*f);
  if (auto f = table.optional("cpu_seconds")) limits.cpu_seconds = seconds(*f);
  if (auto f = table.optional("memory_mb")) limits.memory_mb = size(*f, most_mb);
  if (auto f = table.optional("output_kb")) limits.output_kb = size(*f, most_mb * 1024);
  if (auto f = table.optional("processes")) limits.processes = f->as_int_at_least(1);
  if (auto f = table.optional("file_mb")) limits.file_mb = size(*f, most_mb);
  if (auto f = table.optional("open_files")) limits.open_files = f->as_int_at_least(1);
}

void read_timing_section(const SpecTable& root, TimingSpec& timing) {
  const std::optional<SpecField> field = root.optional("timing");
  if (!field) return;
  const SpecTable table = field->as_table();
  if (auto f = table.optional("warmup")) timing.warmup = f->as_int_at_least(0);
  const std::optional<SpecField> min_reps = table.optional("min_reps");
  const std::optional<SpecField> max_reps = table.optional("max_reps");
  if (min_reps) timing.min_reps = min_reps->as_int_at_least(1);
  if (max_reps) timing.max_reps = max_reps->as_int_at_least(1);
  if (timing.max_reps < timing.min_reps) {
    // Point at whichever of the two the author wrote; if only min_reps, the default max_reps is the other side.
    const SpecField& culprit = max_reps ? *max_reps : *min_reps;
    culprit.fail("max_reps (" + std::to_string(timing.max_reps) + (max_reps ? "" : ", the default") +
                 ") must be at least min_reps (" + std::to_string(timing.min_reps) + ")");
  }
  if (auto f = table.optional("max_seconds")) timing.max_seconds = f->as_positive_number();
  if (auto f = table.optional("target_noise")) {
    timing.target_noise = f->as_positive_number();
    if (timing.target_noise >= 1) {
      f->fail("'target_noise' is a fraction of the median and must be below 1, like 0.03");
    }
  }
  if (auto f = table.optional("noise_retry_seconds")) timing.noise_retry_seconds = f->as_number_in(0, 600);
}

LabSpec read_spec(const toml::table& document, std::string_view text, const std::filesystem::path& path) {
  const SpecSource source{path.string(), text};
  const SpecTable root(document, "", source);

  LabSpec spec;
  spec.file = path;
  spec.dir = path.parent_path();
  read_lab_section(root, path, spec);
  read_build_section(root, spec);
  read_policy_section(root, spec.policy);
  read_limits_section(root, spec.limits);
  read_timing_section(root, spec.timing);
  if (auto tolerance = root.optional("tolerance")) spec.tolerance = read_tolerance(tolerance->as_table(), Tolerance{});
  const LabSources sources = LabSources::read(spec.dir, spec.build);
  spec.correctness = read_correctness_items(root, spec.tolerance, sources);
  spec.performance = read_performance_items(root, spec.correctness, spec.tolerance, sources);
  spec.handout_names = read_handout_names(root);
  read_steps_section(root, spec);
  check_spec_values(spec, sources);
  return spec;
}

}  // namespace

LabSpec parse_lab_spec(std::string_view text, const std::filesystem::path& path) {
  toml::table document;
  try {
    document = toml::parse(text, std::string_view(path.string()));
  } catch (const toml::parse_error& error) {
    const toml::source_position at = error.source().begin;
    throw SpecError({path.string(), static_cast<int>(at.line), static_cast<int>(at.column)},
                    std::string(error.description()));
  }
  return read_spec(document, text, path);
}

LabSpec load_lab_spec(const std::filesystem::path& lab_dir) {
  const std::filesystem::path path = lab_dir / "lab.toml";
  // A FIFO would block every command on open; a folder would read as an empty spec ("missing [lab]").
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && status.type() != std::filesystem::file_type::regular)
    throw SpecError({path.string(), 0, 0}, "the lab's spec is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError({path.string(), 0, 0}, std::string("cannot read the lab's spec: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SpecError({path.string(), 0, 0}, "cannot read the lab's spec: read error");
  return parse_lab_spec(text.str(), path);
}

}  // namespace grader
