#include "batch/canvas_groups.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "batch/canvas.h"
#include "batch/csv_reader.h"

namespace grader {

namespace fs = std::filesystem;

bool CanvasGroupMember::is(const CanvasStudent& student) const {
  if (!canvas_user_id.empty() && canvas_user_id == student.id) return true;
  if (!user_id.empty() && user_id == student.sis_user_id) return true;
  return !login_id.empty() && ascii_lower(login_id) == ascii_lower(student.sis_login_id);
}

std::string CanvasGroupMember::label() const {
  std::string known;
  if (!login_id.empty()) known = "login " + login_id;
  else if (!user_id.empty()) known = "SIS User ID " + user_id;
  else known = "ID " + canvas_user_id;
  return (name.empty() ? "" : name + " ") + "(" + known + ")";
}

const CanvasGroup* CanvasGroups::group_of(const CanvasStudent& student) const {
  for (const CanvasGroup& group : groups)
    for (const CanvasGroupMember& member : group.members)
      if (member.is(student)) return &group;
  return nullptr;
}

CanvasGroups parse_canvas_groups(std::string_view text, const std::string& file) {
  const std::vector<CsvRow> rows = parse_csv(text, file);
  const std::string how = "; export the group set from Canvas (People > Groups, the group set's menu, Export)";
  if (rows.empty()) throw std::runtime_error(file + ": empty" + how);
  const CsvRow& header = rows.front();
  // The group-set export's column names, found whatever their case.
  const int name = column_index(header, "name", true), canvas_user = column_index(header, "canvas_user_id", true),
            sis = column_index(header, "user_id", true), login = column_index(header, "login_id", true);
  const int group_name = column_index(header, "group_name", true),
            canvas_group = column_index(header, "canvas_group_id", true),
            sis_group = column_index(header, "group_id", true);
  if (canvas_user < 0 && sis < 0 && login < 0)
    throw std::runtime_error(file + ":1: no canvas_user_id, user_id or login_id column" + how);
  if (group_name < 0 && canvas_group < 0 && sis_group < 0)
    throw std::runtime_error(file + ":1: no group_name, canvas_group_id or group_id column" + how);

  CanvasGroups result{file, {}};
  std::map<std::string, std::size_t> group_index;   // the group's key -> its place in result.groups
  std::map<std::string, int> member_line;           // each member's identifier -> the line that placed them
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    const std::string where = file + ":" + std::to_string(row.line);
    CanvasGroupMember member{cell(row, name), cell(row, canvas_user), cell(row, sis), cell(row, login), row.line};
    if (member.canvas_user_id.empty() && member.user_id.empty() && member.login_id.empty())
      throw std::runtime_error(where + ": no canvas_user_id, user_id or login_id: which student is this?");
    // The group by its most stable name: Canvas's id, then the SIS id, then the name shown.
    std::string key;
    for (int index : {canvas_group, sis_group, group_name})
      if (key.empty() && !cell(row, index).empty()) key = std::to_string(index) + ":" + cell(row, index);
    if (key.empty()) continue;  // a student in no group of this set
    for (const std::string& id : {"c:" + member.canvas_user_id, "s:" + member.user_id, "l:" + ascii_lower(member.login_id)}) {
      if (id.size() == 2) continue;
      auto [seen, fresh] = member_line.emplace(id, row.line);
      if (!fresh)
        throw std::runtime_error(where + ": " + member.label() + " is in a group already, at line " +
                                 std::to_string(seen->second) + "; export one group set");
    }
    auto [found, fresh] = group_index.emplace(key, result.groups.size());
    if (fresh) {
      std::string shown = cell(row, group_name);
      if (shown.empty()) shown = key.substr(key.find(':') + 1);
      result.groups.push_back({shown, {}});
    }
    result.groups[found->second].members.push_back(std::move(member));
  }
  return result;
}

CanvasGroups read_canvas_groups(const fs::path& csv) {
  std::ifstream in(csv, std::ios::binary);
  if (!in) throw std::runtime_error(csv.string() + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_canvas_groups(text.str(), csv.string());
}

}  // namespace grader
