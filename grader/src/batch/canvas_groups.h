// canvas_groups.h: `grader batch ... --canvas ROSTER.csv --canvas-groups GROUPS.csv`, for a Canvas group assignment.
// Canvas's download of a group assignment holds one submission per group, named by the member who submitted;
// the group's score belongs to every member. Canvas exports a group set's membership as a CSV (People > Groups,
// the group set's menu, Export), one row per student:
//
//   name,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id
//   "Smith, John",12345,s1001,jsmith,Section A,Team 1,501,
//   "Lee, Ann",12346,s1002,alee,Section A,Team 1,501,
//   "Park, Pat",12347,s1003,ppark,Section A,,,
//
// Columns are found by name: a member is known by canvas_user_id (the roster's ID), user_id (SIS User ID) or
// login_id (SIS Login ID), a group by canvas_group_id, group_id or group_name (the first of them the file has).
// A row with no group (Park above) is a student in none. A student in two groups is an error (a file mixing two
// group sets), with its lines.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

struct CanvasStudent;

struct CanvasGroupMember {
  std::string name, canvas_user_id, user_id, login_id;
  int line = 0;

  // Whether this member is the roster's `student`: the same Canvas id, SIS id or login (letter case ignored).
  bool is(const CanvasStudent& student) const;
  std::string label() const;  // "Ghost, Zed (login zghost)"
};

struct CanvasGroup {
  std::string name;  // group_name, else the id it is known by
  std::vector<CanvasGroupMember> members;
};

struct CanvasGroups {
  std::string file;
  std::vector<CanvasGroup> groups;  // in the file's order of first appearance

  // The group `student` is in, or nullptr.
  const CanvasGroup* group_of(const CanvasStudent& student) const;
};

// Throws std::runtime_error naming the file (and line) when it cannot be read, has no member or no group column,
// has a row that names no member, or puts one member in two groups.
CanvasGroups read_canvas_groups(const std::filesystem::path& csv);
CanvasGroups parse_canvas_groups(std::string_view text, const std::string& file);

}  // namespace grader
