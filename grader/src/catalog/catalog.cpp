#include "catalog/catalog.h"

#include <algorithm>
#include <cctype>

namespace grader {

namespace {

// "lab12" -> "12", so lab10 sorts after lab9. Compared as digit strings (shorter first, then by digits), never
// converted: a folder named lab99999999999999999999-big once made std::stol throw and every command fail.
std::string lab_number(const std::string& id) {
  std::string digits;
  for (char c : id)
    if (std::isdigit(static_cast<unsigned char>(c))) digits.push_back(c);
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  return digits;
}

bool number_before(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

}  // namespace

Catalog::Catalog(const std::filesystem::path& labs_dir) {
  std::error_code ec;
  for (const auto& item : std::filesystem::directory_iterator(labs_dir, ec)) {
    if (!item.is_directory() || !std::filesystem::exists(item.path() / "lab.toml")) continue;
    const std::string name = item.path().filename().string();
    const auto dash = name.find('-');
    if (dash == std::string::npos || name.rfind("lab", 0) != 0) continue;
    entries_.push_back({item.path(), name.substr(0, dash), name.substr(dash + 1)});
  }
  std::sort(entries_.begin(), entries_.end(),
            [](const CatalogEntry& a, const CatalogEntry& b) { return number_before(lab_number(a.id), lab_number(b.id)); });
}

const CatalogEntry* Catalog::find(const std::string& name) const {
  for (const auto& entry : entries_) {
    if (name == entry.id || name == entry.slug || name == entry.id + "-" + entry.slug || "lab" + name == entry.id)
      return &entry;
  }
  return nullptr;
}

std::string Catalog::known_names() const {
  std::string names;
  for (const auto& entry : entries_) {
    if (!names.empty()) names += ", ";
    names += entry.id + " (" + entry.slug + ")";
  }
  return names.empty() ? "none" : names;
}

}  // namespace grader
