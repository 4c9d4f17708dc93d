#pragma once
// Platform descriptions: the hardware a sweep runs on and the thread-count classes that matter
// there. Read from JSON files (format in docs/platforms.md), shipped for the paper's machines in
// platforms/descriptions/, or detected on the local machine through hwloc.

#include <string>
#include <vector>

#include "platforms/thread_class.h"

namespace ompscale::platforms {

struct Platform {
  std::string name;         ///< short id, e.g. "rwth-bcs"
  std::string description;  ///< one line for people
  int boards = 1;
  int sockets_per_board = 1;
  int cores_per_socket = 1;
  int threads_per_core = 1;  ///< SMT ways
  int numa_nodes = 1;
  /// Classes a sweep on this platform uses by default, in precedence order.
  std::vector<ThreadClass> classes;

  int sockets() const { return boards * sockets_per_board; }
  int cores() const { return sockets() * cores_per_socket; }
  int hardware_threads() const { return cores() * threads_per_core; }
};

/// Parses a description file. Throws InputError naming the file and the missing or bad field.
Platform load_platform(const std::string& path);
/// The same for description text; `name` is the file name used in error messages.
Platform parse_platform(std::string text, const std::string& name);
/// A shipped description by name ("rwth-bcs", "xeon-phi-7120", "bluegene-q"), or a file path.
Platform find_platform(const std::string& name_or_path);
/// Names of the shipped descriptions.
std::vector<std::string> shipped_platforms();
/// The local machine through hwloc; classes default to {po2, even, odd, linear}.
Platform detect_platform();
/// JSON text of a description, readable by load_platform.
std::string to_json(const Platform& platform);

}  // namespace ompscale::platforms
