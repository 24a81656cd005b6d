// canvas.h: `grader batch ... --canvas ROSTER.csv`: canvas.csv, the class's totals laid out as Canvas's gradebook
// imports them (Grades > Import), from the roster Canvas exports (Grades > Export: its Student, ID, SIS User ID,
// SIS Login ID and Section columns; every other column is ignored).
//
//   Student,ID,SIS User ID,SIS Login ID,Section,lab1-matvec
//   Points Possible,,,,,80
//   "Doe, Jane",4242,s1001,jdoe,Section A,73.5
//
// Which student a submission is: its id (the folder or archive name), or the student a mapping file gives it
// (--canvas-map MAP.csv, columns `submission,student`), compared with each roster row's SIS Login ID (whole, or the
// part before '@' of an email login; letter case ignored), SIS User ID and ID; a Canvas download's student
// ("smithjohn_12345", batch/platform_export.h) is the row whose ID is 12345. A submission that matches no row,
// or several, or a row another submission matched too, is unmatched: it gets no cell, and is listed on stderr and
// in summary.md, never dropped silently. So is a student whose grading was an internal error (no score to trust).
// Roster students without a submission get an empty cell, which Canvas's import leaves as it was.
//
// A group assignment (--canvas-groups GROUPS.csv, batch/canvas_groups.h): a submission's score goes to every member
// of its student's group. A member without a roster row is listed; a student scored twice (their own submission and
// their group's, or two of a group's) gets no cell and is listed; a submitter in no group is scored alone, and said.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "batch/canvas_groups.h"
#include "batch/csv_reader.h"

namespace grader {

struct CanvasStudent {
  std::string name, id, sis_user_id, sis_login_id, section;
};

struct CanvasRoster {
  std::string file;
  bool has_login_column = false;  // Canvas exports it; an older or trimmed roster may not have it
  std::vector<CanvasStudent> students;
};

// Throws std::runtime_error naming the file (and line) when it cannot be read or has no Student and ID columns.
CanvasRoster read_canvas_roster(const std::filesystem::path& csv);
CanvasRoster parse_canvas_roster(std::string_view text, const std::string& file);

// submission id -> the student's SIS Login ID, SIS User ID or ID. Throws std::runtime_error as above.
using SubmissionMap = std::map<std::string, std::string>;
SubmissionMap read_submission_map(const std::filesystem::path& csv);
SubmissionMap parse_submission_map(std::string_view text, const std::string& file);

struct CanvasGradebook {
  std::string csv;
  std::size_t written = 0;                // roster rows given a score
  std::vector<std::string> unmatched;     // "bob: no roster row has SIS Login ID, SIS User ID or ID 'bob'"
  std::vector<std::string> no_submission; // roster students without a graded submission, by name
  std::vector<std::string> ungrouped;     // with groups: submitters in no group, scored alone
  std::vector<std::string> groups_without_submission;  // with groups: by name
};

// `reports` are the batch's stored reports (batch/store.h), `points_possible` the lab's maximum.
// `groups`: a group assignment's membership, or nullptr.
CanvasGradebook canvas_gradebook(const CanvasRoster& roster, const SubmissionMap& map, const std::vector<nlohmann::json>& reports,
                                 const std::string& assignment, double points_possible, const CanvasGroups* groups = nullptr);

// The "## Canvas" section of summary.md.
std::string canvas_summary_section(const CanvasGradebook& gradebook, const std::string& roster_file);

// What `grader batch --canvas` was asked for, read (and so checked) before any student is graded.
struct CanvasRequest {
  CanvasRoster roster;
  SubmissionMap map;
  std::string assignment;
  std::optional<CanvasGroups> groups;  // --canvas-groups: a group assignment's membership  // the column's name: an existing assignment's "Name (id)" from the export, or a new one
};

// Writes <folder>/canvas.csv from the batch's reports and adds the Canvas section to <folder>/summary.md (written
// just before by the batch); lists every unmatched submission on `log`.
CanvasGradebook write_canvas_outputs(const CanvasRequest& request, double points_possible, const std::filesystem::path& folder,
                                     const std::vector<nlohmann::json>& reports, std::ostream& log);

}  // namespace grader
