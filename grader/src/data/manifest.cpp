// manifest.cpp: parse, validate, write and verify datasets/<lab>/manifest.toml.
#include "data/manifest.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "data/npy.h"
#include "data/sha256.h"

namespace grader {

ManifestError::ManifestError(std::filesystem::path file, int line, int column, const std::string& message)
    : std::runtime_error(file.string() + (line > 0 ? ":" + std::to_string(line) + ":" + std::to_string(column) : "") +
                         ": " + message),
      file_(std::move(file)),
      line_(line),
      column_(column),
      message_(message) {}

const DatasetEntry* Manifest::find(std::string_view name) const {
  for (const DatasetEntry& entry : entries) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

namespace {

// "lab1" for datasets/lab1 (and for datasets/lab1/).
std::string lab_name(const std::filesystem::path& dir) {
  std::filesystem::path normal = dir.lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();
  return normal.filename().string();
}

// ---- reading ----------------------------------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(std::filesystem::path file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const toml::source_region& where, const std::string& message) const {
    throw ManifestError(file_, static_cast<int>(where.begin.line), static_cast<int>(where.begin.column), message);
  }

  // The table's entries in the order the file lists them: toml::table iterates in key order, but params
  // and arrays read best (and round-trip) in the order they were written.
  static std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(const toml::table& table) {
    std::vector<std::pair<const toml::key*, const toml::node*>> items;
    for (const auto& [key, node] : table) items.emplace_back(&key, &node);
    std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
      const auto& pa = a.first->source().begin;
      const auto& pb = b.first->source().begin;
      return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
    });
    return items;
  }

  std::string string(const toml::node& node, std::string_view key) const {
    const auto* value = node.as_string();
    if (!value) fail(node.source(), "'" + std::string(key) + "' must be a string, not " + type_name(node));
    if (value->get().empty()) fail(node.source(), "'" + std::string(key) + "' must not be empty");
    return value->get();
  }

  const toml::table& table(const toml::node& node, std::string_view key) const {
    const auto* value = node.as_table();
    if (!value) {
      fail(node.source(), "'" + std::string(key) + "' must be a table such as { a = \"name.a.npy\" }, not " +
                              type_name(node));
    }
    return *value;
  }

  // A plain file name beside the manifest: refusing paths keeps a manifest from pointing outside its directory.
  std::string file_name(const toml::node& node, std::string_view key) const {
    std::string name = string(node, key);
    if (name.find('/') != std::string::npos || name.find('\\') != std::string::npos || name.starts_with(".")) {
      fail(node.source(), "'" + name + "' must be a file name beside the manifest, not a path");
    }
    if (!name.ends_with(".npy")) fail(node.source(), "'" + name + "' must be a .npy file");
    return name;
  }

  std::vector<DatasetFile> files(const toml::node& node, std::string_view key) const {
    std::vector<DatasetFile> files;
    for (const auto& [array, value] : in_file_order(table(node, key))) {
      files.push_back({std::string(array->str()), file_name(*value, std::string(key) + "." + std::string(array->str()))});
    }
    return files;
  }

  DatasetEntry entry(const toml::table& table) const {
    DatasetEntry entry;
    bool has_name = false, has_seed = false, has_variant = false, has_expected = false, has_sha256 = false;
    for (const auto& [key_ptr, node_ptr] : in_file_order(table)) {
      const std::string key(key_ptr->str());
      const toml::node& node = *node_ptr;
      if (key == "name") {
        entry.name = string(node, key);
        has_name = true;
      } else if (key == "seed") {
        const auto* value = node.as_integer();
        if (!value || value->get() < 0) {
          fail(node.source(), "'seed' must be a non-negative integer, not " + type_name(node));
        }
        entry.seed = static_cast<std::uint64_t>(value->get());
        has_seed = true;
      } else if (key == "variant") {
        entry.variant = string(node, key);
        has_variant = true;
      } else if (key == "params") {
        for (const auto& [name, value] : in_file_order(this->table(node, key))) {
          const std::optional<double> number = value->value<double>();  // integers convert
          if (!value->is_number() || !number || !std::isfinite(*number)) {
            fail(value->source(), "param '" + std::string(name->str()) + "' must be a finite number, not " +
                                      type_name(*value));
          }
          entry.params.push_back({std::string(name->str()), *number});
        }
      } else if (key == "inputs") {
        entry.inputs = files(node, key);
      } else if (key == "expected") {
        entry.expected = files(node, key);
        if (entry.expected.empty()) fail(node.source(), "'expected' must name at least one output");
        has_expected = true;
      } else if (key == "sha256") {
        for (const auto& [file, value] : in_file_order(this->table(node, key))) {
          const std::string digest = string(*value, "sha256." + std::string(file->str()));
          if (digest.size() != 64 || digest.find_first_not_of("0123456789abcdef") != std::string::npos) {
            fail(value->source(), "the sha256 of '" + std::string(file->str()) +
                                      "' must be 64 lowercase hex digits, not \"" + digest + "\"");
          }
          entry.sha256[std::string(file->str())] = digest;
        }
        has_sha256 = true;
      } else {
        fail(key_ptr->source(), "unknown key '" + key +
                                    "' in [[dataset]]; the keys are name, seed, variant, params, inputs, expected, sha256");
      }
    }
    const auto require = [&](bool present, std::string_view key) {
      if (!present) fail(table.source(), "this [[dataset]] has no '" + std::string(key) + "'");
    };
    require(has_name, "name");
    require(has_seed, "seed");
    require(has_variant, "variant");
    // An entry without checksums is one `grader datasets generate` has still to fill in: an instructor adds one by
    // hand, often copying an entry's inputs and expected, and generate writes every file and its checksum. Its files
    // are forgotten until then, so none is ever read unchecked. Once it has checksums, every file needs its own.
    if (!has_sha256) {
      entry.inputs.clear();
      entry.expected.clear();
      return entry;
    }
    require(has_expected, "expected");

    // Exactly one checksum per file: a file without one could change unnoticed, and a checksum without a
    // file is a leftover that says the manifest was edited by hand.
    std::set<std::string> named;
    for (const auto* list : {&entry.inputs, &entry.expected}) {
      for (const DatasetFile& file : *list) {
        named.insert(file.file);
        if (!entry.sha256.contains(file.file)) {
          fail(table.get("sha256")->source(), "dataset '" + entry.name + "' has no sha256 for '" + file.file + "'");
        }
      }
    }
    for (const auto& [file, digest] : entry.sha256) {
      if (!named.contains(file)) {
        fail(table.get("sha256")->source(),
             "dataset '" + entry.name + "' has a sha256 for '" + file + "', which none of its arrays names");
      }
    }
    return entry;
  }

  static std::string type_name(const toml::node& node) {
    switch (node.type()) {
      case toml::node_type::string: return "a string";
      case toml::node_type::integer: return "an integer";
      case toml::node_type::floating_point: return "a float";
      case toml::node_type::boolean: return "a boolean";
      case toml::node_type::table: return "a table";
      case toml::node_type::array: return "an array";
      default: return "a date or time";
    }
  }

 private:
  std::filesystem::path file_;
};

// ---- writing ----------------------------------------------------------------------------------------------

std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04X", u);
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string toml_key(std::string_view key) {
  const bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
  return bare ? std::string(key) : toml_string(key);
}

// Integral values as TOML integers ("8", as a person writes sizes), others as the shortest float that reads
// back as the same double.
std::string toml_number(const std::string& name, double value) {
  if (!std::isfinite(value)) throw std::invalid_argument("param '" + name + "' is not finite; TOML cannot hold it");
  char buffer[64];
  if (value == std::floor(value) && std::fabs(value) <= 9007199254740992.0) {  // 2^53: every integer exact
    auto result = std::to_chars(buffer, buffer + sizeof buffer, static_cast<std::int64_t>(value));
    return std::string(buffer, result.ptr);
  }
  std::string text(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";  // TOML would read "3" as an integer
  return text;
}

template <class T, class F>
std::string inline_table(const std::vector<T>& items, F&& item_text) {
  if (items.empty()) return "{}";
  std::string text = "{ ";
  for (std::size_t i = 0; i < items.size(); ++i) text += (i > 0 ? ", " : "") + item_text(items[i]);
  return text + " }";
}

// ---- checking files ---------------------------------------------------------------------------------------

std::vector<std::byte> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": missing or unreadable");
  std::vector<std::byte> bytes;
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto* start = reinterpret_cast<const std::byte*>(buffer.data());
    bytes.insert(bytes.end(), start, start + in.gcount());
  }
  if (in.bad()) throw std::runtime_error(path.string() + ": read error");
  return bytes;
}

// The file's bytes once its checksum matches the manifest's; the same bytes are then parsed, so what was
// checked is what is used.
std::vector<std::byte> read_checked(const Manifest& manifest, const DatasetEntry& entry, const std::string& file) {
  const std::filesystem::path path = manifest.dir / file;
  const auto expected = entry.sha256.find(file);
  if (expected == entry.sha256.end()) {
    throw std::runtime_error(path.string() + ": dataset '" + entry.name + "' has no sha256 for it in " +
                             manifest.file().string());
  }
  std::vector<std::byte> bytes = read_file(path);
  const std::string actual = sha256_hex(bytes);
  if (actual != expected->second) {
    const std::string lab = lab_name(manifest.dir);
    throw std::runtime_error(path.string() + ": sha256 is " + actual + ", but the manifest expects " +
                             expected->second + " (the file changed since `grader datasets generate " + lab +
                             "`; `grader datasets verify " + lab + "` lists every such file)");
  }
  return bytes;
}

}  // namespace

Manifest parse_manifest(std::string_view text, const std::filesystem::path& file) {
  toml::table root;
  try {
    root = toml::parse(text, file.string());
  } catch (const toml::parse_error& error) {
    throw ManifestError(file, static_cast<int>(error.source().begin.line), static_cast<int>(error.source().begin.column),
                        std::string(error.description()));
  }

  Reader reader(file);
  Manifest manifest;
  manifest.dir = file.parent_path();
  for (const auto& [key, node] : root) {
    if (key.str() != "dataset") {
      reader.fail(key.source(), "unknown key '" + std::string(key.str()) + "'; a manifest holds [[dataset]] tables");
    }
    const auto* list = node.as_array();
    if (!list || !list->is_array_of_tables()) reader.fail(node.source(), "'dataset' must be written as [[dataset]] tables");
    for (const toml::node& item : *list) {
      DatasetEntry entry = reader.entry(*item.as_table());
      if (const DatasetEntry* earlier = manifest.find(entry.name)) {
        reader.fail(item.as_table()->get("name")->source(), "a second dataset named '" + earlier->name + "'");
      }
      manifest.entries.push_back(std::move(entry));
    }
  }
  return manifest;
}

Manifest load_manifest(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "manifest.toml";
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw ManifestError(file, 0, 0, std::filesystem::exists(file) ? "cannot be read" : "no such file");
  }
  std::stringstream text;
  text << in.rdbuf();
  Manifest manifest = parse_manifest(text.str(), file);
  manifest.dir = dir;
  return manifest;
}

std::string format_manifest(const Manifest& manifest) {
  const std::string lab = lab_name(manifest.dir);
  std::string text = "# Public cases for " + lab + ". Regenerate with `grader datasets generate " + lab +
                     "`; check with `grader datasets verify " + lab + "`.\n" +
                     "# variant: the judge implementation whose outputs are the expected ones.\n";
  for (const DatasetEntry& entry : manifest.entries) {
    if (entry.seed > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      throw std::invalid_argument("dataset '" + entry.name + "': seed " + std::to_string(entry.seed) +
                                  " does not fit a TOML integer (at most 2^63 - 1)");
    }
    const auto file_item = [](const DatasetFile& f) { return toml_key(f.array) + " = " + toml_string(f.file); };
    text += "\n[[dataset]]\n";
    text += "name = " + toml_string(entry.name) + "\n";
    text += "seed = " + std::to_string(entry.seed) + "\n";
    text += "variant = " + toml_string(entry.variant) + "\n";
    text += "params = " + inline_table(entry.params, [&](const DatasetParam& p) {
              return toml_key(p.name) + " = " + toml_number(p.name, p.value);
            }) + "\n";
    // An entry not generated yet has no files: it is written as the instructor wrote it.
    if (entry.expected.empty()) continue;
    text += "inputs = " + inline_table(entry.inputs, file_item) + "\n";
    text += "expected = " + inline_table(entry.expected, file_item) + "\n";
    const std::vector<std::pair<std::string, std::string>> sums(entry.sha256.begin(), entry.sha256.end());
    text += "sha256 = " + inline_table(sums, [](const auto& s) { return toml_string(s.first) + " = " + toml_string(s.second); }) +
            "\n";
  }
  return text;
}

void save_manifest(const Manifest& manifest) {
  const std::string text = format_manifest(manifest);
  const std::filesystem::path file = manifest.file();
  std::filesystem::path temporary = file;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error(temporary.string() + ": cannot write");
  }
  std::error_code error;
  std::filesystem::rename(temporary, file, error);
  if (error) throw std::runtime_error(file.string() + ": cannot replace: " + error.message());
}

std::vector<std::string> verify_manifest(const Manifest& manifest) {
  std::vector<std::string> problems;
  std::set<std::string> named;
  for (const DatasetEntry& entry : manifest.entries) {
    if (entry.expected.empty()) {
      problems.push_back("dataset '" + entry.name + "' has no files yet: run `grader datasets generate`");
      continue;
    }
    for (const auto* list : {&entry.inputs, &entry.expected}) {
      for (const DatasetFile& file : *list) {
        named.insert(file.file);
        try {
          (void)parse_npy(read_checked(manifest, entry, file.file), (manifest.dir / file.file).string());
        } catch (const std::runtime_error& error) {
          problems.push_back(error.what());
        }
      }
    }
  }
  // Files nobody names would still ship with the lab; listed last, sorted, since the directory's order is arbitrary.
  std::vector<std::string> leftovers;
  std::error_code error;
  for (const auto& item : std::filesystem::directory_iterator(manifest.dir, error)) {
    if (item.path().extension() == ".npy" && !named.contains(item.path().filename().string())) {
      leftovers.push_back(item.path().string() + ": no dataset in the manifest names it (a leftover?)");
    }
  }
  if (error) problems.push_back(manifest.dir.string() + ": cannot list: " + error.message());
  std::sort(leftovers.begin(), leftovers.end());
  problems.insert(problems.end(), leftovers.begin(), leftovers.end());
  return problems;
}

DatasetArrays load_dataset_arrays(const Manifest& manifest, const DatasetEntry& entry) {
  // Without expected outputs every output the candidate sends would look unexpected: the lab's fault, not the
  // submission's, so it must not reach the check.
  if (entry.expected.empty()) {
    throw std::runtime_error(manifest.file().string() + ": dataset '" + entry.name +
                             "' has no files yet: run `grader datasets generate " + lab_name(manifest.dir) + "`");
  }
  DatasetArrays arrays;
  for (auto [files, into] : {std::pair{&entry.inputs, &arrays.inputs}, std::pair{&entry.expected, &arrays.expected}}) {
    for (const DatasetFile& file : *files) {
      Array array = parse_npy(read_checked(manifest, entry, file.file), (manifest.dir / file.file).string());
      array.name = file.array;
      into->push_back(std::move(array));
    }
  }
  return arrays;
}

}  // namespace grader
