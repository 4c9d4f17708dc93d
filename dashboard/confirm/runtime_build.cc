#include "dashboard/confirm/runtime_build.h"

#include <nlohmann/json.hpp>

namespace ompscale::dashboard {

std::string RuntimeBuild::to_json() const {
  nlohmann::ordered_json out = {
      {"name", name}, {"runtime_lib", runtime_libs}, {"environment", nlohmann::json(environment)}};
  return out.dump(2) + "\n";
}

RuntimeBuild RuntimeBuild::from_json(std::string_view text, const std::string& file) {
  const JsonDocument parsed(text, file);
  return from_node(parsed.root());
}

RuntimeBuild RuntimeBuild::from_node(const JsonNode& root) {
  if (!root.json().is_object()) root.fail("expected a JSON object (a runtime build)");
  RuntimeBuild build;
  build.name = root.string_or("name", "");
  if (const auto libs = root.optional_field("runtime_lib")) {
    for (const JsonNode& lib : libs->elements()) build.runtime_libs.push_back(lib.string());
  }
  if (const auto env = root.optional_field("environment")) {
    if (!env->json().is_object()) env->fail("expected an object of strings");
    for (const auto& [variable, value] : env->json().items()) {
      build.environment[variable] = env->field(variable).string();
    }
  }
  return build;
}

}  // namespace ompscale::dashboard
