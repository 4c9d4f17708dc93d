#include "dashboard/nightly/config.h"

#include <filesystem>

#include "common/json_input.h"
#include "common/output_file.h"

namespace ompscale::dashboard {

using Json = nlohmann::json;

namespace {

std::vector<std::string> strings(const JsonNode& node) {
  std::vector<std::string> out;
  for (const JsonNode& e : node.elements()) out.push_back(e.string());
  return out;
}

std::map<std::string, std::string> string_map(const JsonNode& node) {
  std::map<std::string, std::string> out;
  if (!node.json().is_object()) node.fail("expected an object of strings");
  for (const auto& [name, value] : node.json().items()) out[name] = node.field(name).string();
  return out;
}

// Paths in the file are relative to its directory.
std::string resolve(const std::string& path, const std::string& base) {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(base) / path).lexically_normal().string();
}

void read_ompbench(const JsonNode& n, NightlyConfig& c, const std::string& base) {
  if (const auto args = n.optional_field("args")) c.ompbench_args = strings(*args);
  if (const auto libs = n.optional_field("runtime_lib")) {
    for (const std::string& lib : strings(*libs)) {
      const auto equals = lib.find('=');
      c.runtime_libs.push_back(equals == std::string::npos
                                   ? resolve(lib, base)
                                   : lib.substr(0, equals + 1) +
                                         resolve(lib.substr(equals + 1), base));
    }
  }
  if (const auto env = n.optional_field("environment")) c.environment = string_map(*env);
}

void read_regressions(const JsonNode& n, NightlyConfig& c) {
  if (const auto f = n.optional_field("fail_on_regression")) c.fail_on_regression = f->boolean();
  c.regressions.threshold = n.number_or("threshold", c.regressions.threshold);
  c.regressions.significance = n.number_or("significance", c.regressions.significance);
  if (const auto m = n.optional_field("metrics")) c.regressions.metrics = strings(*m);
}

void read_confirm(const JsonNode& n, NightlyConfig& c, const std::string& base) {
  if (!n.json().is_object()) n.fail("expected an object");
  if (const auto f = n.optional_field("enabled")) c.confirm.enabled = f->boolean();
  if (const auto f = n.optional_field("rounds")) {
    c.confirm.rounds = static_cast<std::size_t>(f->integer(2, 1000));
  }
  if (const auto f = n.optional_field("reps"))
    c.confirm.reps = static_cast<int>(f->integer(1, 100000));
  if (const auto p = n.optional_field("previous")) {
    RuntimeBuild build = RuntimeBuild::from_node(*p);
    for (std::string& lib : build.runtime_libs) {
      const auto equals = lib.find('=');
      lib = equals == std::string::npos
                ? resolve(lib, base)
                : lib.substr(0, equals + 1) + resolve(lib.substr(equals + 1), base);
    }
    if (build.name.empty()) build.name = "the configured previous build";
    c.confirm.previous = std::move(build);
  }
}

}  // namespace

NightlyConfig read_nightly_config(const std::string& path) {
  return parse_nightly_config(read_input(path), path);
}

NightlyConfig parse_nightly_config(std::string_view text, const std::string& path) {
  const JsonDocument parsed(text, path);
  const Json& document = parsed.json();
  const JsonNode root = parsed.root();
  if (!document.is_object()) root.fail("expected a JSON object (a nightly configuration)");
  const std::string base = std::filesystem::path(path).parent_path().string();
  NightlyConfig c;
  c.db = resolve(root.field("db").string(), base);
  c.site = resolve(root.string_or("site", ""), base);
  c.work = resolve(root.string_or("work", "nights"), base);
  c.label = root.string_or("label", "");
  if (const auto n = root.optional_field("ompbench")) read_ompbench(*n, c, base);
  if (const auto n = root.optional_field("fit")) {
    if (const auto args = n->optional_field("args")) c.fit_args = strings(*args);
  }
  if (const auto apps = root.optional_field("applications")) {
    for (const JsonNode& a : apps->elements()) {
      c.applications.push_back({a.field("name").string(), strings(a.field("args"))});
    }
  }
  if (const auto n = root.optional_field("regressions")) read_regressions(*n, c);
  if (const auto n = root.optional_field("confirm")) read_confirm(*n, c, base);
  if (const auto n = root.optional_field("tools")) {
    for (auto& [name, tool] : string_map(*n)) c.tools[name] = resolve(tool, base);
  }
  return c;
}

}  // namespace ompscale::dashboard
