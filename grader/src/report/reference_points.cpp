#include "report/reference_points.h"

#include <fstream>
#include <sstream>

#include "calibrate/calibration.h"
#include "core/atomic_file.h"
#include "report/writers.h"

namespace grader {

std::filesystem::path reference_points_path(const Environment& env, const std::string& lab_name) {
  return env.cache / "reference" / (machine_id() + "-" + lab_name + ".json");
}

void save_reference_points(const Environment& env, const Report& reference) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& test : reference.tests) {
    if (!test.measurement) continue;
    const Measurement& m = *test.measurement;
    items.push_back({{"name", test.name}, {"gflops", m.candidate.gflops}, {"gbps", m.candidate.gbps},
                     {"speedup", m.speedup}, {"roofline_fraction", m.roofline_fraction}});
  }
  const auto path = reference_points_path(env, reference.lab_name);
  std::filesystem::create_directories(path.parent_path());
  write_file_atomically(path, json_text({{"lab", reference.lab_name}, {"machine_id", machine_id()}, {"items", items}}));
}

nlohmann::json load_reference_points(const Environment& env, const std::string& lab_name) {
  std::ifstream in(reference_points_path(env, lab_name));
  if (!in) return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json record = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!record.is_object() || !record.contains("items") || !record["items"].is_array()) return nullptr;
  return record;
}

}  // namespace grader
