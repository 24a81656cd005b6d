// test_batch_canvas.cpp: canvas.csv (grader/src/batch/canvas.h) and the CSV reader under it
// (batch/csv_reader.h): the roster Canvas exports read as Canvas writes it, submissions matched to students,
// every submission that cannot be placed listed, and the file quoted as Canvas's import reads it.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "batch/canvas.h"
#include "batch/csv_reader.h"
#include "core/scratch.h"

using namespace grader;
using json = nlohmann::json;

namespace {

// Canvas's export: a byte-order mark, CRLF, quoted "Last, First" names, the Points Possible row, an assignment
// column the grader ignores.
const std::string roster_text =
    "\xEF\xBB\xBFStudent,ID,SIS User ID,SIS Login ID,Section,Lab 0 (11),Current Score\r\n"
    "    Points Possible,,,,,10,\r\n"
    "\"Doe, Jane\",4242,s1001,jdoe@uni.edu,Section A,10,100\r\n"
    "\"Roe, Richard\",4343,s1002,rroe,Section B,,\r\n"
    "\"=Evil, Eve\",4444,s1003,eve,\"Section A, Section B\",5,50\r\n"
    "\"Poe, Edgar\",4545,s1004,epoe,Section B,,\r\n";

json report(const std::string& id, double score, const std::string& status = "passed") {
  return {{"status", status}, {"score", score}, {"max_score", 80}, {"batch", {{"student", id}}}};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("the CSV reader reads quotes, doubled quotes, line breaks in fields, CRLF and a BOM") {
  const auto rows = parse_csv("\xEF\xBB\xBF" "a,\"b, c\",\"say \"\"hi\"\"\"\r\n\r\n\"two\nlines\",x\n", "t.csv");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].fields == std::vector<std::string>{"a", "b, c", "say \"hi\""});
  CHECK(rows[1].fields == std::vector<std::string>{"two\nlines", "x"});
  CHECK(rows[1].line == 3);
  CHECK_THROWS_WITH_AS(parse_csv("a,b\n\"never closed,\n", "t.csv"), "t.csv:2: a quoted field never closes", std::runtime_error);
}

TEST_CASE("Canvas's roster: the Points Possible row skipped, columns found by name") {
  const CanvasRoster roster = parse_canvas_roster(roster_text, "roster.csv");
  REQUIRE(roster.students.size() == 4);
  CHECK(roster.has_login_column);
  CHECK(roster.students[0].name == "Doe, Jane");
  CHECK(roster.students[0].id == "4242");
  CHECK(roster.students[2].section == "Section A, Section B");
  CHECK_THROWS_WITH_AS(parse_canvas_roster("Name,Email\nx,y\n", "r.csv"),
                       doctest::Contains("r.csv:1: no \"Student\" and \"ID\" columns"), std::runtime_error);
}

TEST_CASE("canvas.csv: matched by login (or its part before @), SIS id or ID; quoted; neutralised; Points Possible") {
  const CanvasRoster roster = parse_canvas_roster(roster_text, "roster.csv");
  const std::vector<json> reports = {report("jdoe", 73.5), report("s1002", 40), report("eve", 80)};
  const CanvasGradebook book = canvas_gradebook(roster, {}, reports, "Lab 1 (12)", 80);
  CHECK(book.unmatched.empty());
  CHECK(book.written == 3);
  CHECK(book.no_submission == std::vector<std::string>{"Poe, Edgar"});
  const auto lines = lines_of(book.csv);
  REQUIRE(lines.size() == 6);
  CHECK(lines[0] == "Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (12)\r");
  CHECK(lines[1] == "Points Possible,,,,,80\r");
  CHECK(lines[2] == "\"Doe, Jane\",4242,s1001,jdoe@uni.edu,Section A,73.5\r");
  CHECK(lines[3] == "\"Roe, Richard\",4343,s1002,rroe,Section B,40\r");
  // A name a spreadsheet would run as a formula is neutralised; a section with a comma is quoted.
  CHECK(lines[4] == "\"'=Evil, Eve\",4444,s1003,eve,\"Section A, Section B\",80\r");
  // No submission: an empty cell, which Canvas's import leaves as it was.
  CHECK(lines[5] == "\"Poe, Edgar\",4545,s1004,epoe,Section B,\r");
}

TEST_CASE("canvas.csv: unmatched, ambiguous, doubly claimed and internal-error submissions are listed, never scored") {
  const CanvasRoster roster = parse_canvas_roster(roster_text + "\"Twin, Tom\",4646,4242,ttwin,Section C,,\r\n", "roster.csv");
  const std::vector<json> reports = {report("mallory", 80), report("4242", 10), report("rroe", 40), report("RRoe-late", 20),
                                     report("epoe", 0, "internal_error")};
  const CanvasGradebook book = canvas_gradebook(roster, {{"RRoe-late", "s1002"}}, reports, "lab1-matvec", 80);
  REQUIRE(book.unmatched.size() == 4);
  CHECK(book.unmatched[0] == "mallory: no roster row has SIS Login ID, SIS User ID or ID 'mallory'");
  CHECK(book.unmatched[1].starts_with("4242: '4242' names 2 roster rows (Doe, Jane, Twin, Tom)"));
  CHECK(book.unmatched[2] == "rroe and RRoe-late: all name Roe, Richard (ID 4343); keep one, or map them apart");
  CHECK(book.unmatched[3].starts_with("epoe (Poe, Edgar): an internal error"));
  CHECK(book.written == 0);
  // Nobody was scored: every student row ends with an empty cell.
  const auto lines = lines_of(book.csv);
  for (std::size_t i = 2; i < lines.size(); ++i) CHECK(lines[i].ends_with(",\r"));
  const std::string section = canvas_summary_section(book, "roster.csv");
  CHECK(section.find("**Not in canvas.csv** (4)") != std::string::npos);
  CHECK(section.find("- mallory: no roster row") != std::string::npos);
}

TEST_CASE("a roster without SIS Login ID gets no such column; the mapping file is read strictly") {
  const CanvasRoster roster = parse_canvas_roster("Student,ID,SIS User ID,Section\nAda,1,a1,S\n", "r.csv");
  CHECK_FALSE(roster.has_login_column);
  const CanvasGradebook book = canvas_gradebook(roster, {}, {report("a1", 5)}, "lab1", 80);
  CHECK(lines_of(book.csv)[0] == "Student,ID,SIS User ID,Section,lab1\r");
  CHECK(lines_of(book.csv)[2] == "Ada,1,a1,S,5\r");
  CHECK(parse_submission_map("submission,student\nbob.zip,s1\n", "m.csv").at("bob.zip") == "s1");
  CHECK_THROWS_WITH_AS(parse_submission_map("submission,student\na,1\na,2\n", "m.csv"),
                       "m.csv:3: submission 'a' is mapped twice", std::runtime_error);
  CHECK_THROWS_WITH_AS(parse_submission_map("from,to\n", "m.csv"), doctest::Contains("m.csv:1:"), std::runtime_error);
}

namespace {

// Canvas's export of a group set (People > Groups): one row per student, a student in no group with empty group
// columns, a byte-order mark and CRLF as Canvas writes them.
const std::string groups_text =
    "\xEF\xBB\xBFname,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id\r\n"
    "\"Doe, Jane\",4242,s1001,jdoe@uni.edu,Section A,Team 1,501,\r\n"
    "\"Roe, Richard\",4343,s1002,rroe,Section B,Team 1,501,\r\n"
    "\"Ghost, Zed\",9999,s9999,zghost,Section B,Team 1,501,\r\n"
    "\"=Evil, Eve\",4444,s1003,eve,Section A,Team 2,502,\r\n"
    "\"Poe, Edgar\",4545,s1004,epoe,Section B,,,\r\n";

}  // namespace

TEST_CASE("Canvas's group set export: members by any id, groups by Canvas id, students in no group skipped") {
  const CanvasGroups groups = parse_canvas_groups(groups_text, "groups.csv");
  REQUIRE(groups.groups.size() == 2);
  CHECK(groups.groups[0].name == "Team 1");
  CHECK(groups.groups[0].members.size() == 3);
  CHECK(groups.groups[1].members.size() == 1);
  const CanvasRoster roster = parse_canvas_roster(roster_text, "roster.csv");
  CHECK(groups.group_of(roster.students[1]) == &groups.groups[0]);
  CHECK(groups.group_of(roster.students[3]) == nullptr);  // Poe: in no group
  // A login alone identifies a member; letter case ignored.
  const CanvasGroups by_login = parse_canvas_groups("login_id,group_name\nJDOE@uni.edu,Red\n", "g.csv");
  CHECK(by_login.group_of(roster.students[0]) == &by_login.groups[0]);
  CHECK_THROWS_WITH_AS(parse_canvas_groups("Student,ID\nx,1\n", "g.csv"),
                       doctest::Contains("g.csv:1: no canvas_user_id, user_id or login_id column"), std::runtime_error);
  CHECK_THROWS_WITH_AS(parse_canvas_groups("canvas_user_id,name\n1,x\n", "g.csv"),
                       doctest::Contains("g.csv:1: no group_name, canvas_group_id or group_id column"), std::runtime_error);
  CHECK_THROWS_WITH_AS(parse_canvas_groups("name,canvas_user_id,group_name\nx,,A\n", "g.csv"),
                       doctest::Contains("g.csv:2: no canvas_user_id, user_id or login_id"), std::runtime_error);
  // Two group sets in one file would give a student two scores: refused, with both lines.
  CHECK_THROWS_WITH_AS(parse_canvas_groups("canvas_user_id,group_name\n1,A\n2,A\n1,B\n", "g.csv"),
                       doctest::Contains("g.csv:4: (ID 1) is in a group already, at line 2"), std::runtime_error);
}

TEST_CASE("canvas.csv for a group assignment: every member gets the group's score; the unmatched are listed") {
  const CanvasRoster roster = parse_canvas_roster(roster_text, "roster.csv");
  const CanvasGroups groups = parse_canvas_groups(groups_text, "groups.csv");
  // Richard submitted for Team 1 in Canvas's download (named by the submitter: roerichard_4343); nobody for Team 2;
  // Poe, in no group, submitted alone.
  const std::vector<json> reports = {report("roerichard_4343", 61.5), report("epoe", 30)};
  const CanvasGradebook book = canvas_gradebook(roster, {}, reports, "Lab 1 (12)", 80, &groups);
  const auto lines = lines_of(book.csv);
  REQUIRE(lines.size() == 6);
  CHECK(lines[2] == "\"Doe, Jane\",4242,s1001,jdoe@uni.edu,Section A,61.5\r");
  CHECK(lines[3] == "\"Roe, Richard\",4343,s1002,rroe,Section B,61.5\r");
  CHECK(lines[4].ends_with("Section B\",\r"));  // Eve: Team 2 submitted nothing
  CHECK(lines[5] == "\"Poe, Edgar\",4545,s1004,epoe,Section B,30\r");
  CHECK(book.written == 3);
  // Zed is in Team 1 but not in the roster: listed, with the group's file and line.
  REQUIRE(book.unmatched.size() == 1);
  CHECK(book.unmatched[0] ==
        "group Team 1 (submitted by roerichard_4343): its member Ghost, Zed (login zghost) has no roster row (groups.csv:4)");
  CHECK(book.ungrouped == std::vector<std::string>{"epoe (Poe, Edgar) is in no group of groups.csv: scored alone"});
  CHECK(book.groups_without_submission == std::vector<std::string>{"Team 2"});
  CHECK(book.no_submission == std::vector<std::string>{"=Evil, Eve"});
  const std::string section = canvas_summary_section(book, "roster.csv");
  CHECK(section.find("Groups without a graded submission (1): Team 2") != std::string::npos);
  CHECK(section.find("- group Team 1 (submitted by roerichard_4343): its member Ghost, Zed") != std::string::npos);

  // Jane submitted too: with groups, every member's submission is the group's, so Team 1 has two and its members
  // get no cell, each listed; Poe, alone, is not touched.
  const CanvasGradebook twice = canvas_gradebook(
      roster, {}, {report("roerichard_4343", 61.5), report("jdoe", 70), report("epoe", 30)}, "Lab 1 (12)", 80, &groups);
  CHECK(lines_of(twice.csv)[2].ends_with("Section A,\r"));
  CHECK(lines_of(twice.csv)[3].ends_with("Section B,\r"));
  CHECK(lines_of(twice.csv)[5].ends_with(",30\r"));
  CHECK(std::find(twice.unmatched.begin(), twice.unmatched.end(),
                  "roerichard_4343 (as group Team 1) and jdoe (as group Team 1): all name Doe, Jane (ID 4242); keep one, "
                  "or map them apart") != twice.unmatched.end());
  CHECK(twice.written == 1);
}

TEST_CASE("canvas.csv: a student with an internal error in one item gets no cell, whatever points the others earned") {
  // Issue 31: zoe's judge failed in one timed item; her other items earned 60 and Canvas got 60.
  json zoe = report("epoe", 60, "internal_error");
  zoe["tests"] = json::array({{{"name", "unrolled"}, {"status", "passed"}, {"score", 60}},
                              {{"name", "bandwidth"}, {"status", "internal_error"}, {"score", 0}}});
  // The same from a grader before issue 31, whose report said `graded` with the item's internal error inside.
  json older = zoe;
  older["status"] = "graded";
  older["batch"]["student"] = "rroe";
  const CanvasRoster roster = parse_canvas_roster(roster_text, "roster.csv");
  const CanvasGradebook book = canvas_gradebook(roster, {}, {zoe, older, report("jdoe", 80)}, "lab1-matvec", 80);
  REQUIRE(book.unmatched.size() == 2);
  CHECK(book.unmatched[0].starts_with("rroe (Roe, Richard): an internal error"));
  CHECK(book.unmatched[1].starts_with("epoe (Poe, Edgar): an internal error"));
  CHECK(book.written == 1);
  CHECK(book.csv.find(",60") == std::string::npos);
}
