#include "modeler/io/sidecar_platform.h"

#include <filesystem>

#include "common/json_input.h"
#include "common/output_file.h"

namespace ompscale::modeler {

std::string sidecar_path(const std::string& input) { return input + ".meta.json"; }

std::optional<platforms::Platform> read_sidecar_platform(const std::string& input) {
  const std::string path = sidecar_path(input);
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return std::nullopt;
  const std::string text = read_input(path);
  const JsonDocument document(text, path);
  const std::optional<JsonNode> runs = document.root().optional_field("runs");
  if (!runs) return std::nullopt;
  std::optional<platforms::Platform> platform;
  for (const JsonNode& run : runs->elements()) {
    if (const std::optional<JsonNode> p = run.optional_field("platform")) {
      platform = platforms::parse_platform(p->json().dump(), path + ": " + p->path());
    }
  }
  return platform;
}

}  // namespace ompscale::modeler
