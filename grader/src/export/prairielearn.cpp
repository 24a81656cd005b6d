// prairielearn.cpp: the PrairieLearn folder (export.h): the image's build context, the entrypoint in
// serverFilesCourse, and the question with its info.json, question.html and tests/ (the hidden parts).
#include <nlohmann/json.hpp>

#include "data/sha256.h"
#include "export/course.h"
#include "export/export.h"
#include "report/writers.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

constexpr const char* entrypoint_folder = "course-grader";

// The question's uuid, the same at every export of the lab, so a re-export updates the question instead of
// making PrairieLearn see a new one. Formatted as a version-4 uuid, from a hash of the lab's name.
std::string question_uuid(const LabSpec& spec) {
  const std::string seed = "course-grader/" + spec.name();
  std::string hex = sha256_hex(std::as_bytes(std::span(seed.data(), seed.size())));
  hex[12] = '4';
  hex[16] = "89ab"[std::stoi(hex.substr(16, 1), nullptr, 16) % 4];
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

nlohmann::json info_json(const LabSpec& spec, const ExportOptions& options) {
  return {{"uuid", question_uuid(spec)},
          {"title", spec.title},
          {"topic", spec.name()},
          {"tags", {spec.id, "course-grader"}},
          {"type", "v3"},
          {"gradingMethod", "External"},
          {"singleVariant", true},
          {"externalGradingOptions",
           {{"enabled", true},
            {"image", options.image},
            {"serverFilesCourse", {std::string(entrypoint_folder) + "/"}},
            {"entrypoint", "/grade/serverFilesCourse/" + std::string(entrypoint_folder) + "/grade.sh"},
            {"timeout", options.timeout_seconds}}}};
}

std::string html_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string question_html(const LabSpec& spec) {
  std::string files;
  for (const auto& file : spec.build.student_files) files += (files.empty() ? "" : ",") + file;
  return "<pl-question-panel>\n"
         "  <p>" + html_escaped(spec.title) + ": upload <code>" + html_escaped(files) + "</code> from <code>skeletons/" +
         html_escaped(spec.name()) + "/</code>. It is built, checked and timed as <code>grader " + html_escaped(spec.id) +
         "</code> does on your machine, with the hidden cases too.</p>\n"
         "</pl-question-panel>\n\n"
         "<pl-file-upload file-names=\"" + html_escaped(files) + "\"></pl-file-upload>\n\n"
         "<pl-submission-panel>\n"
         "  <pl-external-grader-results></pl-external-grader-results>\n"
         "  <pl-file-preview></pl-file-preview>\n"
         "</pl-submission-panel>\n";
}

}  // namespace

ExportSummary export_prairielearn(const Environment& env, const LabSpec& spec, const ExportOptions& options, const fs::path& out) {
  refuse_gpu_lab(spec);
  const fs::path stage = staging_folder(env, "export-prairielearn-" + spec.name());
  const RemoveWhenDone remove_stage{stage};
  const fs::path image = stage / "image";
  const fs::path question = stage / "questions" / spec.name();
  write_released_course(env, spec, image / "course");
  write_platform_support(env, spec, options, image / "platform");
  copy_platform_file(env, "prairielearn/Dockerfile", image / "Dockerfile");
  copy_platform_file(env, "prairielearn/build.sh", image / "build.sh");
  copy_platform_file(env, "prairielearn/grade.sh", stage / "serverFilesCourse" / entrypoint_folder / "grade.sh");
  write_text_file(question / "info.json", json_text(info_json(spec, options)));
  write_text_file(question / "question.html", question_html(spec));
  fs::create_directories(question / "tests");
  fs::copy_file(image / "platform" / "export.env", question / "tests" / "export.env");
  write_hidden_parts(env, spec, question / "tests" / "course");
  check_no_reference_leaks(env, stage);

  ExportSummary summary;
  summary.files = count_files(stage);
  fs::create_directories(out);
  fs::copy(stage, out, fs::copy_options::recursive);
  summary.steps = {
      "build and push the grading image: docker build -t " + options.image + " " + (out / "image").string() +
          " && docker push " + options.image + " (it holds no hidden case: a public registry will do)",
      "copy " + (out / "serverFilesCourse" / entrypoint_folder).string() + "/ into your course's serverFilesCourse/, and " +
          (out / "questions" / spec.name()).string() + "/ into its questions/",
      "add the question " + spec.name() + " to an assessment; its tests/ folder holds the hidden cases, which students never see"};
  return summary;
}

}  // namespace grader
