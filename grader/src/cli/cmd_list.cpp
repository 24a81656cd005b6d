// grader list: the labs, their titles, whether they need a GPU, their maximum points.
#include <cstdio>

#include "cli/common.h"

namespace grader {

void setup_list(CLI::App& app) {
  auto* list = app.add_subcommand("list", "list the labs: id, name, title, GPU, points");
  list->callback([] {
    const Environment env = current_environment();
    std::printf("%-6s %-18s %-5s %7s  %s\n", "id", "name", "gpu", "points", "title");
    for (const auto& spec : load_labs(env, std::nullopt))
      std::printf("%-6s %-18s %-5s %7.0f  %s\n", spec.id.c_str(), spec.slug.c_str(), spec.gpu ? "yes" : "no",
                  spec.max_score(), spec.title.c_str());
  });
}

}  // namespace grader
