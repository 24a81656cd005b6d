// mutants.cpp: reads labs/<lab>/mutants/*/mutant.toml; see mutants.h.
#include "spec/mutants.h"

#include <algorithm>
#include <toml++/toml.h>

namespace grader {

namespace fs = std::filesystem;

const std::vector<std::string>& known_mutant_keys() {
  static const std::vector<std::string> keys{"mistake", "must_fail"};
  return keys;
}

namespace {

SourcePosition position(const fs::path& file, const toml::source_position& at) {
  return {file.string(), static_cast<int>(at.line), static_cast<int>(at.column)};
}

std::vector<std::string> item_names(const LabSpec& spec) {
  std::vector<std::string> names;
  for (const auto& item : spec.correctness) names.push_back(item.name);
  for (const auto& item : spec.performance) names.push_back(item.name);
  return names;
}

Mutant read_mutant(const LabSpec& spec, const fs::path& folder) {
  const fs::path file = folder / "mutant.toml";
  if (!fs::is_regular_file(file))
    throw SpecError({file.string(), 0, 0}, "missing: every mutant says which items its mistake must fail");
  toml::table table;
  try {
    table = toml::parse_file(file.string());
  } catch (const toml::parse_error& error) {
    throw SpecError(position(file, error.source().begin), std::string(error.description()));
  }
  Mutant mutant;
  mutant.name = folder.filename().string();
  mutant.submission = folder;
  const auto& known = known_mutant_keys();
  for (const auto& [key, node] : table)
    if (std::find(known.begin(), known.end(), std::string(key.str())) == known.end())
      throw SpecError(position(file, key.source().begin),
                      "unknown key '" + std::string(key.str()) + "' (a mutant.toml holds 'mistake' and 'must_fail')");

  const toml::node* mistake = table.get("mistake");
  if (mistake == nullptr || !mistake->is_string() || mistake->value_or(std::string()).empty())
    throw SpecError(position(file, mistake ? mistake->source().begin : table.source().begin),
                    "'mistake' must be a non-empty string saying what the mutant gets wrong");
  mutant.mistake = mistake->value_or(std::string());

  const toml::node* must_fail = table.get("must_fail");
  const toml::array* items = must_fail ? must_fail->as_array() : nullptr;
  if (items == nullptr || items->empty())
    throw SpecError(position(file, must_fail ? must_fail->source().begin : table.source().begin),
                    "'must_fail' must be a non-empty array of the lab's item names");
  const auto names = item_names(spec);
  for (const auto& element : *items) {
    const auto name = element.value<std::string>();
    if (!name) throw SpecError(position(file, element.source().begin), "an element of 'must_fail' must be a string");
    if (std::find(names.begin(), names.end(), *name) == names.end())
      throw SpecError(position(file, element.source().begin), "'" + *name + "' is not an item of " + spec.name());
    mutant.must_fail.push_back(*name);
  }
  return mutant;
}

}  // namespace

std::vector<Mutant> load_mutants(const LabSpec& spec) {
  std::vector<Mutant> mutants;
  const fs::path dir = spec.dir / kMutantsFolder;
  if (!fs::is_directory(dir)) return mutants;
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_directory()) folders.push_back(entry.path());
  std::sort(folders.begin(), folders.end());
  for (const auto& folder : folders) mutants.push_back(read_mutant(spec, folder));
  return mutants;
}

}  // namespace grader
