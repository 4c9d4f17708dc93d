#pragma once
// Source locations for profiles written with raw locations (OMPSCAN_LOCATIONS=raw): the tool then
// records only module, build id and offset, and ompscan run resolves file, line and function here,
// after the application has exited, so the application's process never pays for reading DWARF.
// Each (module, build id, offset) is resolved once per sweep; each module is opened once per
// profile that needs it.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "regions/ompt/symbolize.h"

namespace ompscale::regions {

class ProfileLocations {
 public:
  /// Adds file/line/function to every location of `profile` (regions[], their locks[] and
  /// loops[]) that has none and whose module still holds the code that ran (same build id).
  /// Locations that cannot be resolved stay as they are. Never throws on malformed profiles:
  /// what is not a location object is left alone.
  void resolve(nlohmann::json& profile);

 private:
  using Key = std::tuple<std::string, std::string, std::uint64_t>;  // module, build id, offset
  std::map<Key, ompt::CodeLocation> resolved_;
};

}  // namespace ompscale::regions
