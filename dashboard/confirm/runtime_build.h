#pragma once
// A runtime build as ompbench measures it, for the A/B confirmation (ab_test.h): the libraries it
// loads instead of the installed ones and the environment it runs in. The nightly keeps each
// night's as NIGHT/build.json (with copies of the libraries), the next night's A/B reads it.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_input.h"

namespace ompscale::dashboard {

struct RuntimeBuild {
  std::string name;                                ///< for people: "night of 2026-11-27"
  std::vector<std::string> runtime_libs;           ///< ompbench --runtime-lib: "llvm=PATH"
  std::map<std::string, std::string> environment;  ///< added to ompbench's: LD_PRELOAD, KMP_*

  /// {"name": ..., "runtime_lib": [...], "environment": {...}}
  std::string to_json() const;
  /// The same read back; InputError naming `file` for anything else.
  static RuntimeBuild from_json(std::string_view text, const std::string& file);
  /// The same from a value of a JSON document (errors name its file and path).
  static RuntimeBuild from_node(const JsonNode& node);
};

}  // namespace ompscale::dashboard
