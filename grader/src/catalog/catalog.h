// catalog.h: the labs that exist, found by reading labs/*/lab.toml. Nothing here names a lab: a new
// directory under labs/ is a new lab.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "spec/lab_spec.h"

namespace grader {

struct CatalogEntry {
  std::filesystem::path dir;  // labs/lab1-matvec
  std::string id;             // "lab1", from the directory name
  std::string slug;           // "matvec"
};

class Catalog {
 public:
  explicit Catalog(const std::filesystem::path& labs_dir);

  // Directories under labs/ named "<id>-<slug>" that hold a lab.toml, in lab-number order.
  const std::vector<CatalogEntry>& entries() const { return entries_; }

  // "lab1", "matvec", "lab1-matvec" and "1" all name labs/lab1-matvec. Nullptr if nothing matches.
  const CatalogEntry* find(const std::string& name) const;

  // The names a user may type, for error messages ("lab1 (matvec), lab2 (loop-order), ...").
  std::string known_names() const;

 private:
  std::vector<CatalogEntry> entries_;
};

}  // namespace grader
