#include "regions/run/profile_locations.h"

#include <optional>
#include <string_view>
#include <vector>

#include "common/text.h"

namespace ompscale::regions {
namespace {

using nlohmann::json;

// The tool writes offsets as "0x" and hexadecimal digits (docs/ompscan-formats.md); the prefix
// may be left out.
bool parse_offset(const json& value, std::uint64_t& offset) {
  if (!value.is_string()) return false;
  std::string_view text = value.get_ref<const std::string&>();
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  const std::optional<std::uint64_t> read = parse_unsigned(text, 16);
  if (read) offset = *read;
  return read.has_value();
}

// Every location object of the profile without a source file: region, lock, loop and construct
// locations.
std::vector<json*> unresolved_locations(json& profile) {
  std::vector<json*> found;
  auto add = [&found](json& owner) {
    if (!owner.is_object()) return;
    const auto location = owner.find("location");
    if (location == owner.end() || !location->is_object() || location->contains("file")) return;
    if (!location->contains("module") || !location->contains("offset")) return;
    found.push_back(&*location);
  };
  const auto regions = profile.find("regions");
  if (regions == profile.end() || !regions->is_array()) return found;
  for (json& region : *regions) {
    add(region);
    if (!region.is_object()) continue;
    for (const char* list : {"locks", "loops", "constructs"}) {
      const auto entries = region.find(list);
      if (entries == region.end() || !entries->is_array()) continue;
      for (json& entry : *entries) add(entry);
    }
  }
  return found;
}

}  // namespace

void ProfileLocations::resolve(json& profile) {
  if (!profile.is_object()) return;
  const std::vector<json*> locations = unresolved_locations(profile);
  // New keys first, resolved together so each module is opened once.
  std::vector<std::pair<json*, Key>> keyed;
  std::vector<ompt::CodeLocation> fresh;
  for (json* location : locations) {
    std::uint64_t offset = 0;
    const json& module = (*location)["module"];
    const json& build_id = location->value("build_id", json(""));
    if (!module.is_string() || !build_id.is_string() ||
        !parse_offset((*location)["offset"], offset))
      continue;
    Key key{module.get<std::string>(), build_id.get<std::string>(), offset};
    if (resolved_.count(key) == 0) {
      ompt::CodeLocation code;
      code.module = std::get<0>(key);
      code.build_id = std::get<1>(key);
      code.offset = offset;
      resolved_.emplace(key, code);
      fresh.push_back(code);
    }
    keyed.emplace_back(location, std::move(key));
  }
  if (!fresh.empty()) {
    std::vector<ompt::CodeLocation*> pointers;
    for (ompt::CodeLocation& code : fresh) pointers.push_back(&code);
    ompt::resolve_locations(pointers);
    for (const ompt::CodeLocation& code : fresh)
      resolved_[Key{code.module, code.build_id, code.offset}] = code;
  }
  for (auto& [location, key] : keyed) {
    const ompt::CodeLocation& code = resolved_.at(key);
    if (!code.file.empty()) (*location)["file"] = code.file;
    if (code.line > 0) (*location)["line"] = code.line;
    if (!code.function.empty()) (*location)["function"] = code.function;
  }
}

}  // namespace ompscale::regions
