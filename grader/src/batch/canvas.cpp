#include "batch/canvas.h"

#include <algorithm>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>

#include "batch/gradebook.h"
#include "core/atomic_file.h"
#include "core/utf8.h"
#include "report/verdict.h"

namespace grader {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A Canvas download names each student "<lastfirst>_<Canvas user id>" (batch/platform_export.h): the id is the
// roster's ID.
bool is_canvas_download_of(const CanvasStudent& student, const std::string& key) {
  const auto underscore = key.rfind('_');
  if (underscore == std::string::npos || underscore == 0 || student.id.empty()) return false;
  const std::string prefix = key.substr(0, underscore);
  return key.substr(underscore + 1) == student.id &&
         std::all_of(prefix.begin(), prefix.end(), [](unsigned char c) { return std::islower(c); });
}

bool names_student(const CanvasStudent& student, const std::string& key) {
  if (key.empty()) return false;
  const std::string login = ascii_lower(student.sis_login_id), wanted = ascii_lower(key);
  if (!login.empty() && (login == wanted || login.substr(0, login.find('@')) == wanted)) return true;
  return student.sis_user_id == key || student.id == key || is_canvas_download_of(student, key);
}

// A claim on a roster row: the report whose score it would get, and how ("as group Team 1"; empty: its own).
struct Claim {
  const json* report;
  std::string via;
};

}  // namespace

CanvasRoster parse_canvas_roster(std::string_view text, const std::string& file) {
  const std::vector<CsvRow> rows = parse_csv(text, file);
  if (rows.empty()) throw std::runtime_error(file + ": empty; export the roster from Canvas's Grades page (Export)");
  const CsvRow& header = rows.front();
  const int name = column_index(header, "Student"), id = column_index(header, "ID");
  if (name < 0 || id < 0)
    throw std::runtime_error(file + ":1: no \"Student\" and \"ID\" columns; this is not a gradebook Canvas exported "
                             "(Grades > Export)");
  const int sis = column_index(header, "SIS User ID"), login = column_index(header, "SIS Login ID"),
            section = column_index(header, "Section");
  CanvasRoster roster{file, login >= 0, {}};
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    // Canvas's export has a "Points Possible" row under the header, and may have muted-assignment rows.
    const std::string student = cell(row, name);
    if (student == "Points Possible" || cell(row, id).empty()) continue;
    roster.students.push_back({student, cell(row, id), cell(row, sis), cell(row, login), cell(row, section)});
  }
  return roster;
}

CanvasRoster read_canvas_roster(const fs::path& csv) { return parse_canvas_roster(read_whole(csv), csv.string()); }

SubmissionMap parse_submission_map(std::string_view text, const std::string& file) {
  const std::vector<CsvRow> rows = parse_csv(text, file);
  if (rows.empty()) throw std::runtime_error(file + ": empty; it needs a header `submission,student`");
  const int submission = column_index(rows.front(), "submission"), student = column_index(rows.front(), "student");
  if (submission < 0 || student < 0)
    throw std::runtime_error(file + ":1: no \"submission\" and \"student\" columns (the header is `submission,student`)");
  SubmissionMap map;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const std::string from = cell(rows[r], submission), to = cell(rows[r], student);
    if (from.empty() || to.empty())
      throw std::runtime_error(file + ":" + std::to_string(rows[r].line) + ": a submission and a student are both needed");
    if (!map.emplace(from, to).second)
      throw std::runtime_error(file + ":" + std::to_string(rows[r].line) + ": submission '" + from + "' is mapped twice");
  }
  return map;
}

SubmissionMap read_submission_map(const fs::path& csv) { return parse_submission_map(read_whole(csv), csv.string()); }

CanvasGradebook canvas_gradebook(const CanvasRoster& roster, const SubmissionMap& map, const std::vector<json>& reports,
                                 const std::string& assignment, double points_possible, const CanvasGroups* groups) {
  CanvasGradebook book;
  // Each submission's roster rows (its student's, or every member's of their group), once every submission is
  // matched: a row two submissions claim is unmatched.
  std::map<std::size_t, std::vector<Claim>> claims;
  std::set<const CanvasGroup*> submitted;
  for (const auto& report : reports) {
    const std::string id = report["batch"].value("student", "");
    const auto mapped = map.find(id);
    const std::string key = mapped != map.end() ? mapped->second : id;
    const std::string how = mapped != map.end() ? " (mapped to '" + key + "')" : "";
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < roster.students.size(); ++i)
      if (names_student(roster.students[i], key)) rows.push_back(i);
    if (rows.empty()) {
      book.unmatched.push_back(id + how + ": no roster row has SIS Login ID, SIS User ID or ID '" + key + "'");
    } else if (rows.size() > 1) {
      std::string names;
      for (auto i : rows) names += (names.empty() ? "" : ", ") + roster.students[i].name;
      book.unmatched.push_back(id + how + ": '" + key + "' names " + std::to_string(rows.size()) + " roster rows (" + names +
                               "); map it to one ID with --canvas-map");
    } else if (const CanvasGroup* group = groups ? groups->group_of(roster.students[rows.front()]) : nullptr) {
      // A group assignment: the submitter's group's score is every member's.
      submitted.insert(group);
      const std::string via = "as group " + group->name;
      for (const CanvasGroupMember& member : group->members) {
        std::vector<std::size_t> member_rows;
        for (std::size_t i = 0; i < roster.students.size(); ++i)
          if (member.is(roster.students[i])) member_rows.push_back(i);
        if (member_rows.size() == 1) {
          claims[member_rows.front()].push_back({&report, via});
          continue;
        }
        book.unmatched.push_back("group " + group->name + " (submitted by " + id + "): its member " + member.label() +
                                 (member_rows.empty() ? " has no roster row" : " names several roster rows") + " (" +
                                 groups->file + ":" + std::to_string(member.line) + ")");
      }
    } else {
      if (groups)
        book.ungrouped.push_back(id + " (" + roster.students[rows.front()].name + ") is in no group of " + groups->file +
                                 ": scored alone");
      claims[rows.front()].push_back({&report, ""});
    }
  }
  if (groups)
    for (const CanvasGroup& group : groups->groups)
      if (!submitted.count(&group)) book.groups_without_submission.push_back(group.name);

  std::map<std::size_t, std::string> scores;
  for (const auto& [row, claimed] : claims) {
    const std::string& name = roster.students[row].name;
    if (claimed.size() > 1) {
      std::string ids;
      for (const Claim& claim : claimed)
        ids += (ids.empty() ? "" : " and ") + (*claim.report)["batch"].value("student", "") +
               (claim.via.empty() ? "" : " (" + claim.via + ")");
      book.unmatched.push_back(ids + ": all name " + name + " (ID " + roster.students[row].id + "); keep one, or map them apart");
      continue;
    }
    const json& report = *claimed.front().report;
    // student_status: a report that is an internal error, or (from a grader before issue 31) one with an item that is.
    if (student_status(report) == to_string(Verdict::internal_error)) {
      book.unmatched.push_back(report["batch"].value("student", "") + " (" + name + "): an internal error, no score to " +
                               "import; regrade them, then run the batch again");
      continue;
    }
    scores[row] = format_points(report.value("score", 0.0));
  }

  std::string csv = "Student,ID,SIS User ID,";
  if (roster.has_login_column) csv += "SIS Login ID,";
  csv += "Section," + csv_text_field(assignment) + "\r\n";
  csv += std::string("Points Possible,,,") + (roster.has_login_column ? "," : "") + "," + format_points(points_possible) + "\r\n";
  for (std::size_t i = 0; i < roster.students.size(); ++i) {
    const CanvasStudent& s = roster.students[i];
    csv += csv_text_field(s.name) + "," + csv_text_field(s.id) + "," + csv_text_field(s.sis_user_id) + ",";
    if (roster.has_login_column) csv += csv_text_field(s.sis_login_id) + ",";
    csv += csv_text_field(s.section) + ",";
    if (auto score = scores.find(i); score != scores.end()) {
      csv += score->second;
      ++book.written;
    } else if (!claims.count(i)) {
      book.no_submission.push_back(s.name);
    }
    csv += "\r\n";
  }
  book.csv = valid_utf8(csv);
  return book;
}

std::string canvas_summary_section(const CanvasGradebook& book, const std::string& roster_file) {
  std::string md = "\n## Canvas\n\ncanvas.csv, from the roster " + roster_file + ": " + std::to_string(book.written) +
                   " score(s) written; import it on Canvas's Grades page (Import).\n";
  if (!book.unmatched.empty()) {
    md += "\n**Not in canvas.csv** (" + std::to_string(book.unmatched.size()) + "): give these students their score by hand, "
          "or map them with --canvas-map and run the batch again:\n\n";
    for (const auto& line : book.unmatched) md += "- " + line + "\n";
  }
  if (!book.ungrouped.empty()) {
    md += "\nIn no group (" + std::to_string(book.ungrouped.size()) + "; check the group set):\n\n";
    for (const auto& line : book.ungrouped) md += "- " + line + "\n";
  }
  if (!book.groups_without_submission.empty()) {
    md += "\nGroups without a graded submission (" + std::to_string(book.groups_without_submission.size()) + "):";
    for (const auto& name : book.groups_without_submission) md += " " + name + ";";
    md.pop_back();
    md += "\n";
  }
  if (!book.no_submission.empty()) {
    md += "\nIn the roster without a graded submission (" + std::to_string(book.no_submission.size()) + "; their cell is empty, "
          "so the import leaves them as they are):";
    for (const auto& name : book.no_submission) md += " " + name + ";";
    md.pop_back();
    md += "\n";
  }
  return valid_utf8(md);
}

CanvasGradebook write_canvas_outputs(const CanvasRequest& request, double points_possible, const fs::path& folder,
                                     const std::vector<json>& reports, std::ostream& log) {
  const CanvasGradebook book = canvas_gradebook(request.roster, request.map, reports, request.assignment, points_possible,
                                                request.groups ? &*request.groups : nullptr);
  write_file_atomically(folder / "canvas.csv", book.csv);
  std::string summary;
  if (fs::exists(folder / "summary.md")) summary = read_whole(folder / "summary.md");
  write_file_atomically(folder / "summary.md", summary + canvas_summary_section(book, request.roster.file));
  log << "wrote " << (folder / "canvas.csv").string() << " (" << book.written << " of " << request.roster.students.size()
      << " roster students scored)\n";
  if (!book.unmatched.empty()) {
    log << "canvas: " << book.unmatched.size()
        << " submission(s) or group member(s) not in canvas.csv (also listed in summary.md):\n";
    for (const auto& line : book.unmatched) log << "  " << line << "\n";
  }
  for (const auto& line : book.ungrouped) log << "canvas: " << line << "\n";
  return book;
}

}  // namespace grader
