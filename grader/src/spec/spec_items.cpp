// spec_items.cpp: reads and validates [[correctness]] and [[performance]], the parts of lab.toml that give points.
//
// What is checked here is what would otherwise surface only when a submission is graded: an expression that
// names a variable nobody provides, parameters that depend on each other in a circle, tiers that do not
// ascend, a benchmark whose points no correctness item guards.
#include "spec/spec_items.h"

#include <algorithm>
#include <array>
#include <map>

namespace grader {

namespace {

// More points than any course gives: a typo (1e30) would swamp every other item of the gradebook.
constexpr double max_points = 1e6;

// Variables the grader provides to every expression at run time, besides the expression's own parameters.
// `cpu_scaling` and `memory_scaling`: all threads against one, by the machine's calibration (see grade.cpp).
constexpr std::array<std::string_view, 3> machine_variables{"threads", "cpu_scaling", "memory_scaling"};

bool is_machine_variable(std::string_view name) {
  return std::find(machine_variables.begin(), machine_variables.end(), name) != machine_variables.end();
}

std::string join(const std::vector<std::string>& words, std::string_view separator = ", ") {
  std::string joined;
  for (const std::string& word : words) joined += (joined.empty() ? "" : std::string(separator)) + word;
  return joined;
}

std::string machine_variable_list() {
  return join(std::vector<std::string>(machine_variables.begin(), machine_variables.end()));
}

bool is_expression_name(std::string_view name) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.empty() || !letter(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return letter(c) || digit(c); });
}

// A parameter with the field it was read from, so later checks can point at it.
struct ParamField {
  Param param;
  SpecField field;
};

std::vector<std::string> names_of(const std::vector<ParamField>& params) {
  std::vector<std::string> names;
  for (const ParamField& p : params) names.push_back(p.param.name);
  return names;
}

std::vector<Param> params_of(const std::vector<ParamField>& params) {
  std::vector<Param> result;
  for (const ParamField& p : params) result.push_back(p.param);
  return result;
}


// Parameters may read each other, so they must be evaluable in some order: refuse a cycle, at the first
// parameter (in file order) that depends on itself.
void refuse_cycles(const std::vector<ParamField>& params) {
  std::map<std::string, const ParamField*> by_name;
  for (const ParamField& p : params) by_name[p.param.name] = &p;

  enum class State { unvisited, on_path, done };
  std::map<std::string, State> state;
  std::vector<std::string> path;  // the names being visited, outermost first

  // The cycle reachable from `name`, as {"m", "n", "m"}; empty when there is none.
  auto find_cycle = [&](auto&& self, const std::string& name) -> std::vector<std::string> {
    state[name] = State::on_path;
    path.push_back(name);
    for (const std::string& next : by_name.at(name)->param.value.names()) {
      if (by_name.count(next) == 0) continue;  // a machine variable: nothing to follow
      if (state[next] == State::on_path) {
        std::vector<std::string> cycle(std::find(path.begin(), path.end(), next), path.end());
        cycle.push_back(next);
        return cycle;
      }
      if (state[next] == State::unvisited) {
        std::vector<std::string> cycle = self(self, next);
        if (!cycle.empty()) return cycle;
      }
    }
    path.pop_back();
    state[name] = State::done;
    return {};
  };

  for (const ParamField& p : params) {
    if (state[p.param.name] != State::unvisited) continue;
    const std::vector<std::string> cycle = find_cycle(find_cycle, p.param.name);
    if (!cycle.empty()) {
      by_name.at(cycle.front())
          ->field.fail("parameter '" + cycle.front() + "' depends on itself: " + join(cycle, " -> "));
    }
  }
}

// A table of parameters: free names, each a number or an expression over `threads` and the other parameters.
std::vector<ParamField> read_params(const SpecField& table, std::string_view owner) {
  std::vector<ParamField> params;
  for (const SpecField& entry : table.as_entries()) {
    const std::string name = entry.key();
    if (!is_expression_name(name)) {
      entry.fail_at_key("parameter name '" + name +
                        "' cannot be used in expressions; use letters, digits and '_', starting with a letter");
    }
    if (is_machine_variable(name)) {
      entry.fail_at_key("'" + name + "' is a machine variable and cannot be a parameter; name the parameter " +
                        "otherwise, for example n" + name + " = \"" + name + "\"");
    }
    params.push_back({Param{name, entry.as_expr(), entry.is_float()}, entry});
  }
  const std::vector<std::string> names = names_of(params);
  for (const ParamField& p : params) check_expr(p.field, p.param.value, names, owner);
  refuse_cycles(params);
  return params;
}

// Remembers the names used in one scope and refuses a second use, pointing at both.
class UniqueNames {
 public:
  explicit UniqueNames(std::string what) : what_(std::move(what)) {}
  void add(const SpecField& field, const std::string& name) {
    auto [first, inserted] = lines_.emplace(name, field.where().line);
    if (!inserted) {
      field.fail("another " + what_ + " is already named '" + name + "' (line " + std::to_string(first->second) + ")");
    }
  }

 private:
  std::string what_;
  std::map<std::string, int> lines_;
};

Visibility read_visibility(const SpecField& field) {
  constexpr std::array<Visibility, 3> values{Visibility::visible, Visibility::hidden, Visibility::after_due_date};
  return values[field.as_choice(known_spec_values("visibility"))];
}

std::optional<Tolerance> read_optional_tolerance(const SpecTable& table, const Tolerance& inherited) {
  if (auto field = table.optional("tolerance")) return read_tolerance(field->as_table(), inherited);
  return std::nullopt;
}

// ---- [[correctness]] -----------------------------------------------------------------------------------

CaseSpec read_case(const SpecTable& table, const Tolerance& item_tolerance) {
  CaseSpec spec;
  spec.where = table.where();
  spec.name = table.required("name").as_nonempty_string();

  // A dataset's manifest gives its parameters; two sources for the same sizes could disagree.
  const std::optional<SpecField> params = table.optional("params");
  const std::optional<SpecField> dataset = table.optional("dataset");
  if (params && dataset) {
    dataset->fail_at_key(
        "a case takes its input from 'params' or from 'dataset', not both; a dataset's "
        "parameters come from its manifest");
  }
  if (!params && !dataset) {
    table.fail("a case needs 'params' (an input generated from a seed) or 'dataset' (a fixed input from datasets/)");
  }
  if (params) spec.params = params_of(read_params(*params, "case"));
  if (dataset) spec.dataset = dataset->as_nonempty_string();

  if (auto visibility = table.optional("visibility")) spec.visibility = read_visibility(*visibility);
  spec.tolerance = read_optional_tolerance(table, item_tolerance);
  return spec;
}

CorrectnessItem read_correctness_item(const SpecTable& table, const Tolerance& lab_tolerance,
                                      const LabSources& sources) {
  CorrectnessItem item;
  item.where = table.where();
  item.name = table.required("name").as_nonempty_string();
  item.points = table.required("points").as_number_in(0, max_points);

  const SpecField variants = table.required("variants");
  item.variants = variants.as_unique_strings();
  if (item.variants.empty()) variants.fail("'variants' must list at least one implementation of the harness");
  const std::vector<SpecField> variant_fields = variants.as_array();
  for (std::size_t i = 0; i < item.variants.size(); ++i)
    check_variant(variant_fields[i], item.variants[i], sources, VariantRunner::candidate);

  item.tolerance = read_optional_tolerance(table, lab_tolerance);
  const Tolerance& case_default = item.tolerance ? *item.tolerance : lab_tolerance;
  if (auto flags = table.optional("build_flags")) item.build_flags = flags->as_strings();

  UniqueNames case_names("case of '" + item.name + "'");
  const SpecField cases = table.required("cases");
  for (const SpecTable& case_table : cases.as_array_of_tables()) {
    item.cases.push_back(read_case(case_table, case_default));
    case_names.add(case_table.required("name"), item.cases.back().name);
  }
  if (item.cases.empty()) cases.fail("'cases' must list at least one case");
  return item;
}

// ---- [[performance]] -----------------------------------------------------------------------------------

BaselineSpec read_baseline(const SpecTable& table, const std::vector<ParamField>& item_params,
                           const std::string& item_variant, const LabSources& sources) {
  BaselineSpec baseline;
  if (auto process = table.optional("process")) {
    baseline.process = process->as_choice(known_spec_values("performance[].baseline.process")) == 0 ? BaselineSpec::Process::judge
                                                                       : BaselineSpec::Process::candidate;
  }
  const VariantRunner runs = baseline.process == BaselineSpec::Process::candidate ? VariantRunner::candidate : VariantRunner::judge;
  if (auto variant = table.optional("variant")) {
    baseline.variant = variant->as_string();
    if (!baseline.variant.empty()) check_variant(*variant, baseline.variant, sources, runs);
  }
  if (auto cap = table.optional("cap")) {
    baseline.cap = cap->as_nonempty_string();
    check_variant(*cap, baseline.cap, sources, VariantRunner::judge);
  }

  if (auto params = table.optional("params")) {
    const std::vector<std::string> item_names = names_of(item_params);
    std::vector<ParamField> merged = item_params;
    for (const SpecField& entry : params->as_entries()) {
      const std::string name = entry.key();
      auto overridden =
          std::find_if(merged.begin(), merged.end(), [&](const ParamField& p) { return p.param.name == name; });
      if (overridden == merged.end()) {
        entry.fail_at_key("baseline parameter '" + name + "' overrides no parameter of this benchmark" +
                          (item_names.empty() ? std::string(" (it has none)") : " (" + join(item_names) + ")"));
      }
      ParamField override_field{Param{name, entry.as_expr(), entry.is_float()}, entry};
      check_expr(entry, override_field.param.value, item_names, "benchmark");
      baseline.params.push_back(override_field.param);
      *overridden = override_field;
    }
    refuse_cycles(merged);
  }

  if (auto oracle = table.optional("oracle")) {
    baseline.oracle = oracle->as_bool();
    // Its outputs stand for the judge's on the candidate's own inputs: only the judge's code, on the item's inputs.
    if (baseline.oracle && (baseline.process == BaselineSpec::Process::candidate || !baseline.params.empty()))
      oracle->fail("'oracle' needs the judge's baseline on the item's own params: its outputs stand for the judge's "
                   "on exactly the inputs the candidate's call saw");
  }

  const bool same_variant = baseline.variant.empty() || baseline.variant == item_variant;
  if (baseline.process == BaselineSpec::Process::candidate && same_variant && baseline.params.empty()) {
    table.fail(
        "a candidate baseline must change 'variant' or some 'params'; as written it times the candidate "
        "against itself");
  }
  return baseline;
}

std::vector<Tier> read_tiers(const SpecField& field, const std::vector<std::string>& param_names) {
  std::vector<Tier> tiers;
  std::optional<double> previous_constant_at;
  for (const SpecTable& table : field.as_array_of_tables()) {
    Tier tier;
    tier.where = table.where();

    const SpecField at = table.required("at");
    tier.at = at.as_expr();
    check_expr(at, tier.at, param_names, "benchmark");
    // Only constant thresholds can be compared before the machine is known; "0.9*threads" is checked when graded.
    if (tier.at.is_constant()) {
      const double value = tier.at.evaluate({});
      if (previous_constant_at && value <= *previous_constant_at) {
        at.fail("tiers must ascend: 'at' = " + number_text(value) + " does not exceed the earlier tier's " +
                number_text(*previous_constant_at));
      }
      previous_constant_at = value;
    }

    const SpecField points = table.required("points");
    tier.points = points.as_number_in(0, max_points);
    if (!tiers.empty() && tier.points < tiers.back().points) {
      points.fail("tier points must not decrease: " + number_text(tier.points) + " follows " +
                  number_text(tiers.back().points));
    }
    tiers.push_back(std::move(tier));
  }
  if (tiers.empty()) field.fail("'tiers' must list at least one tier");
  return tiers;
}

std::vector<std::string> read_requires(const SpecField& field, const std::vector<CorrectnessItem>& correctness) {
  std::vector<std::string> names;
  for (const SpecField& element : field.as_array()) {
    std::string name = element.as_nonempty_string();
    const bool exists = std::any_of(correctness.begin(), correctness.end(),
                                    [&](const CorrectnessItem& item) { return item.name == name; });
    if (!exists) element.fail("'requires' names '" + name + "', but no [[correctness]] item has that name");
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      element.fail("'" + name + "' is listed twice in 'requires'");
    }
    names.push_back(std::move(name));
  }
  return names;
}

PerformanceItem read_performance_item(const SpecTable& table, const std::vector<CorrectnessItem>& correctness,
                                      const Tolerance& lab_tolerance, const LabSources& sources) {
  PerformanceItem item;
  item.where = table.where();
  item.name = table.required("name").as_nonempty_string();
  const SpecField variant = table.required("variant");
  item.variant = variant.as_nonempty_string();
  check_variant(variant, item.variant, sources, VariantRunner::candidate);

  std::vector<ParamField> params;
  if (auto field = table.optional("params")) params = read_params(*field, "benchmark");
  item.params = params_of(params);
  const std::vector<std::string> param_names = names_of(params);

  if (auto field = table.optional("baseline"))
    item.baseline = read_baseline(field->as_table(), params, item.variant, sources);
  if (auto field = table.optional("compare")) {
    item.compare = field->as_unique_strings();
    const std::vector<SpecField> elements = field->as_array();
    for (std::size_t i = 0; i < item.compare.size(); ++i) {
      const std::string& name = item.compare[i];
      const bool own = name.rfind(candidate_compare_prefix, 0) == 0;
      check_variant(elements[i], own ? name.substr(candidate_compare_prefix.size()) : name, sources,
                    own ? VariantRunner::candidate : VariantRunner::judge);
    }
  }
  if (auto field = table.optional("bound")) {
    item.bound = field->as_nonempty_string();
    check_variant(*field, item.bound, sources, VariantRunner::judge);
  }

  for (auto [key, target] : {std::pair{"flops", &item.flops}, std::pair{"bytes", &item.bytes}}) {
    if (auto field = table.optional(key)) {
      *target = field->as_expr();
      check_expr(*field, **target, param_names, "benchmark");
    }
  }
  if (auto field = table.optional("cpu_threads")) {
    item.cpu_threads = field->as_expr();
    check_expr(*field, item.cpu_threads, param_names, "benchmark");
  }

  if (auto precision = table.optional("precision"))
    item.precision = precision->as_choice(known_spec_values("performance[].precision")) == 0 ? "fp32" : "fp64";
  if (auto memory = table.optional("memory")) item.read_only_memory = memory->as_choice(known_spec_values("performance[].memory")) == 1;
  if (auto needs = table.optional("requires_machine")) {
    for (const SpecField& entry : needs->as_entries()) {
      if (!is_machine_variable(entry.key()))
        entry.fail_at_key("'" + entry.key() + "' is not a machine variable; these are: " + machine_variable_list());
      item.requires_machine[entry.key()] = entry.as_positive_number();
    }
  }
  if (auto metric = table.optional("metric")) {
    item.metric = metric->as_choice(known_spec_values("performance[].metric")) == 0 ? Metric::speedup : Metric::roofline;
    if (item.metric == Metric::roofline && !item.flops && !item.bytes) {
      metric->fail(
          "metric \"roofline\" needs 'flops' or 'bytes' (or both) to know which peak the benchmark "
          "is measured against");
    }
  }

  item.tiers = read_tiers(table.required("tiers"), param_names);
  if (auto field = table.optional("hints")) item.hints = read_hints(*field, item, param_names);

  if (auto field = table.optional("requires")) item.requires_items = read_requires(*field, correctness);
  if (item.requires_items.empty()) {
    // Otherwise fast wrong code could earn these points.
    const bool checked = std::any_of(correctness.begin(), correctness.end(), [&](const CorrectnessItem& c) {
      return std::find(c.variants.begin(), c.variants.end(), item.variant) != c.variants.end();
    });
    if (!checked) {
      variant.fail("no [[correctness]] item checks variant '" + item.variant +
                   "', so its performance points would not depend on correct results; add it to an item's "
                   "'variants' or name items in 'requires'");
    }
  }

  if (auto visibility = table.optional("visibility")) item.visibility = read_visibility(*visibility);
  item.tolerance = read_optional_tolerance(table, lab_tolerance);
  return item;
}

}  // namespace

// Refuses an expression that reads a name it will not be given at run time, and a constant expression
// that has no value (1/0), so neither waits for a submission to be found out. `owner` is "case" or "benchmark".
void check_expr(const SpecField& field, const Expr& expr, const std::vector<std::string>& param_names,
                std::string_view owner) {
  for (const std::string& name : expr.names()) {
    if (is_machine_variable(name)) continue;
    if (std::find(param_names.begin(), param_names.end(), name) != param_names.end()) continue;
    const std::string machine = "a machine variable (" + machine_variable_list() + ")";
    field.fail("'" + field.key() + "' reads '" + name + "', which is " +
               (param_names.empty() ? "not " + machine + ", and this " + std::string(owner) + " has no parameters"
                                    : "neither a parameter of this " + std::string(owner) + " (" + join(param_names) +
                                          ") nor " + machine));
  }
  if (expr.is_constant()) {
    try {
      expr.evaluate({});
    } catch (const ExprEvalError& error) {
      field.fail("'" + field.key() + "' has no value: " + error.what());
    }
  }
}

Tolerance read_tolerance(const SpecTable& table, const Tolerance& inherited) {
  Tolerance tolerance = inherited;
  if (auto rtol = table.optional("rtol")) tolerance.rtol = rtol->as_number_at_least(0);
  if (auto atol = table.optional("atol")) tolerance.atol = atol->as_number_at_least(0);
  return tolerance;
}

std::vector<CorrectnessItem> read_correctness_items(const SpecTable& root, const Tolerance& lab_tolerance,
                                                    const LabSources& sources) {
  std::vector<CorrectnessItem> items;
  const std::optional<SpecField> field = root.optional("correctness");
  if (!field) return items;
  UniqueNames names("[[correctness]] item");
  for (const SpecTable& table : field->as_array_of_tables()) {
    items.push_back(read_correctness_item(table, lab_tolerance, sources));
    names.add(table.required("name"), items.back().name);
  }
  return items;
}

std::vector<PerformanceItem> read_performance_items(const SpecTable& root,
                                                    const std::vector<CorrectnessItem>& correctness,
                                                    const Tolerance& lab_tolerance, const LabSources& sources) {
  std::vector<PerformanceItem> items;
  const std::optional<SpecField> field = root.optional("performance");
  if (!field) return items;
  UniqueNames names("[[performance]] item");
  for (const SpecTable& table : field->as_array_of_tables()) {
    items.push_back(read_performance_item(table, correctness, lab_tolerance, sources));
    names.add(table.required("name"), items.back().name);
  }
  return items;
}

std::vector<Param> read_benchmark_params(const SpecField& table) { return params_of(read_params(table, "benchmark")); }

}  // namespace grader
