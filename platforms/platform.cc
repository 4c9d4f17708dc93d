#include "platforms/platform.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join
#include <hwloc.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

#include "common/error.h"
#include "common/executable_path.h"
#include "common/json_input.h"
#include "common/text.h"

namespace ompscale::platforms {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// In the order to_json() writes them and the documentation lists them.
constexpr std::array<std::string_view, 8> kFields = {"name",
                                                     "description",
                                                     "boards",
                                                     "sockets_per_board",
                                                     "cores_per_socket",
                                                     "threads_per_core",
                                                     "numa_nodes",
                                                     "classes"};

std::string read_text(const std::string& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) {
    throw InputError(path, 0, "is a directory, expected a platform description (JSON) file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path, 0,
                     fmt::format("cannot open platform description: {}", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, "cannot read platform description");
  return text.str();
}

std::string shorten(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  constexpr std::size_t kMaxLength = 40;
  if (text.size() > kMaxLength) text = text.substr(0, kMaxLength) + "...";
  return text;
}

// Reads one description file: every error names the file, the field's line and what is expected.
class DescriptionReader {
 public:
  DescriptionReader(std::string path, std::string text)
      : path_(std::move(path)), text_(std::move(text)), parsed_(text_, path_) {
    if (!document_.is_object()) {
      throw InputError(
          path_, parsed_.line_of(""),
          fmt::format("a platform description is a JSON object, got {}", document_.type_name()));
    }
  }

  Platform read() {
    for (const auto& [key, value] : document_.items()) {
      if (std::ranges::find(kFields, key) == kFields.end()) {
        fail(key, fmt::format("unknown field \"{}\"; accepted fields: {}", key,
                              fmt::join(kFields, ", ")));
      }
    }
    Platform platform;
    platform.name = string_field("name", std::nullopt);
    if (platform.name.empty()) fail("name", "\"name\" must not be empty");
    platform.description = string_field("description", "");
    platform.boards = positive_field("boards", 1);
    platform.sockets_per_board = positive_field("sockets_per_board", std::nullopt);
    platform.cores_per_socket = positive_field("cores_per_socket", std::nullopt);
    platform.threads_per_core = positive_field("threads_per_core", 1);
    platform.numa_nodes = positive_field("numa_nodes", 1);
    platform.classes = classes_field();

    // cores() and hardware_threads() are int products: reject shapes they cannot hold.
    const std::int64_t hardware_threads = std::int64_t{platform.boards} *
                                          platform.sockets_per_board * platform.cores_per_socket *
                                          platform.threads_per_core;
    if (hardware_threads > INT_MAX) {
      throw InputError(path_, 0,
                       fmt::format("boards * sockets_per_board * cores_per_socket * "
                                   "threads_per_core = {} hardware threads is more than {}",
                                   hardware_threads, INT_MAX));
    }
    return platform;
  }

 private:
  [[noreturn]] void fail(std::string_view field, const std::string& cause) const {
    throw InputError(path_, parsed_.line_of(field), cause);
  }

  const json* find(std::string_view field, std::string_view expected, bool required) const {
    const auto value = document_.find(field);
    if (value != document_.end()) return &*value;
    if (required) {
      fail(field, fmt::format("missing required field \"{}\" ({})", field, expected));
    }
    return nullptr;
  }

  std::string string_field(std::string_view field, std::optional<std::string> fallback) const {
    const json* value = find(field, "a string", !fallback.has_value());
    if (value == nullptr) return *fallback;
    if (!value->is_string()) {
      fail(field, fmt::format("\"{}\" must be a string, got {}", field, shorten(*value)));
    }
    return value->get<std::string>();
  }

  int positive_field(std::string_view field, std::optional<int> fallback) const {
    const json* value = find(field, "a positive integer", !fallback.has_value());
    if (value == nullptr) return *fallback;
    const auto bad = [&] {
      fail(field, fmt::format("\"{}\" must be a positive integer (at most {}), got {}", field,
                              INT_MAX, shorten(*value)));
    };
    if (!value->is_number_integer()) bad();
    // Non-negative literals parse as unsigned, negative ones as signed: read each its own way.
    if (value->is_number_unsigned()) {
      const auto number = value->get<std::uint64_t>();
      if (number == 0 || number > INT_MAX) bad();
      return static_cast<int>(number);
    }
    const auto number = value->get<std::int64_t>();
    if (number <= 0 || number > INT_MAX) bad();
    return static_cast<int>(number);
  }

  std::vector<ThreadClass> classes_field() const {
    constexpr std::string_view kExpected = "a non-empty array of thread class specs";
    const json* value = find("classes", kExpected, false);
    if (value == nullptr) return {};
    if (!value->is_array() || value->empty()) {
      fail("classes", fmt::format("\"classes\" must be {}, got {}", kExpected, shorten(*value)));
    }
    std::vector<ThreadClass> classes;
    std::set<std::string> names;
    for (std::size_t i = 0; i < value->size(); ++i) {
      const json& spec = (*value)[i];
      if (!spec.is_string()) {
        fail("classes",
             fmt::format("classes[{}] must be a string such as \"po2\", got {}", i, shorten(spec)));
      }
      try {
        classes.push_back(ThreadClass::parse(spec.get<std::string>()));
      } catch (const UsageError& error) {
        fail("classes", fmt::format("classes[{}]: {}", i, error.what()));
      }
      // Results are keyed by class name, so two classes with one name would overwrite each other.
      if (!names.insert(classes.back().name()).second) {
        fail("classes",
             fmt::format("classes[{}]: class \"{}\" is listed twice", i, classes.back().name()));
      }
    }
    return classes;
  }

  std::string path_;
  std::string text_;
  JsonDocument parsed_;
  const json& document_ = parsed_.json();
};

std::vector<ThreadClass> default_classes() {
  return {ThreadClass::po2(), ThreadClass::even(), ThreadClass::odd(), ThreadClass::linear()};
}

// Installed executables find descriptions in PREFIX/share/ompscale/platforms (installed by
// platforms/CMakeLists.txt); the source tree's copy serves builds that are not installed.
// The installed copy comes first so that an installed tool never reads a stale checkout.
std::vector<fs::path> description_dirs() {
  std::vector<fs::path> dirs;
  const fs::path directory = executable_directory();
  if (!directory.empty())
    dirs.push_back((directory / ".." / "share" / "ompscale" / "platforms").lexically_normal());
  dirs.emplace_back(OMPSCALE_PLATFORM_DIR);
  return dirs;
}

std::optional<fs::path> shipped_description(const std::string& name) {
  for (const fs::path& dir : description_dirs()) {
    std::error_code error;
    const fs::path candidate = dir / (name + ".json");
    if (fs::is_regular_file(candidate, error)) return candidate;
  }
  return std::nullopt;
}

Platform fallback_platform(std::string_view why) {
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  Platform platform;
  platform.name = "local";
  platform.description = fmt::format(
      "Local machine; hwloc detection failed ({}), so the {} hardware threads reported by "
      "std::thread::hardware_concurrency are counted as single-threaded cores on one socket",
      why, threads);
  platform.cores_per_socket = threads;
  platform.classes = default_classes();
  return platform;
}

// "1 package", "2 packages": the detected description is read by people.
std::string count_of(int count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

}  // namespace

Platform load_platform(const std::string& path) {
  return parse_platform(read_text(path), path);
}

Platform parse_platform(std::string text, const std::string& name) {
  DescriptionReader reader(name, std::move(text));
  Platform platform = reader.read();
  if (platform.classes.empty()) platform.classes = default_classes();
  return platform;
}

std::vector<std::string> shipped_platforms() {
  std::set<std::string> names;
  for (const fs::path& dir : description_dirs()) {
    std::error_code error;
    for (fs::directory_iterator entry(dir, error), end; !error && entry != end;
         entry.increment(error)) {
      if (entry->path().extension() == ".json" && entry->is_regular_file(error)) {
        names.insert(entry->path().stem().string());
      }
    }
  }
  return {names.begin(), names.end()};
}

Platform find_platform(const std::string& name_or_path) {
  // A slash or a .json suffix can only mean a file; anything else is tried as a shipped name first.
  const bool looks_like_path =
      name_or_path.find('/') != std::string::npos || fs::path(name_or_path).extension() == ".json";
  if (!looks_like_path && !name_or_path.empty()) {
    if (const auto shipped = shipped_description(name_or_path)) {
      return load_platform(shipped->string());
    }
  }
  std::error_code error;
  if (!name_or_path.empty() && fs::exists(name_or_path, error)) return load_platform(name_or_path);
  throw UsageError(
      fmt::format("unknown platform '{}': not a shipped description ({}) and no such file",
                  name_or_path, fmt::join(shipped_platforms(), ", ")));
}

Platform detect_platform() {
  hwloc_topology_t raw_topology = nullptr;
  if (hwloc_topology_init(&raw_topology) != 0) return fallback_platform("hwloc_topology_init");
  const std::unique_ptr<hwloc_topology, decltype(&hwloc_topology_destroy)> topology(
      raw_topology, &hwloc_topology_destroy);
  if (hwloc_topology_load(topology.get()) != 0) return fallback_platform("hwloc_topology_load");

  // hwloc reports -1 when a type sits at several depths and 0 when a level is absent (some VMs
  // expose no packages); both mean "no usable count".
  const auto count = [&](hwloc_obj_type_t type) {
    return std::max(0, hwloc_get_nbobjs_by_type(topology.get(), type));
  };
  const int pus = count(HWLOC_OBJ_PU);
  if (pus == 0) return fallback_platform("hwloc found no processing units");
  const int packages = std::max(1, count(HWLOC_OBJ_PACKAGE));
  const int cores = count(HWLOC_OBJ_CORE) > 0 ? count(HWLOC_OBJ_CORE) : pus;
  const int numa_nodes = std::max(1, count(HWLOC_OBJ_NUMANODE));

  const char* model = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topology.get()), "CPUModel");
  if (model == nullptr) {
    if (hwloc_obj_t package = hwloc_get_obj_by_type(topology.get(), HWLOC_OBJ_PACKAGE, 0)) {
      model = hwloc_obj_get_info_by_name(package, "CPUModel");
    }
  }

  Platform platform;
  platform.name = "local";
  platform.boards = 1;
  platform.numa_nodes = numa_nodes;
  platform.classes = default_classes();
  // The description holds whole numbers per level. Hybrid CPUs or a restricted cpuset can break
  // that; then keep the core count exact and say in the description what was rounded.
  std::vector<std::string> irregular;
  if (cores % packages == 0) {
    platform.sockets_per_board = packages;
    platform.cores_per_socket = cores / packages;
  } else {
    platform.cores_per_socket = cores;
    irregular.push_back(
        fmt::format("{} cores on {} packages, counted as one socket", cores, packages));
  }
  platform.threads_per_core = std::max(1, pus / cores);
  if (pus % cores != 0) {
    irregular.push_back(fmt::format("{} hardware threads on {} cores, counted as {} per core", pus,
                                    cores, platform.threads_per_core));
  }
  // CPU model strings come padded with runs of spaces ("Processor             ").
  std::vector<std::string> words = split(model != nullptr ? model : "unknown CPU model", ' ');
  std::erase_if(words, [](const std::string& w) { return w.empty(); });
  const std::string model_name = fmt::format("{}", fmt::join(words, " "));
  platform.description =
      fmt::format("Local machine: {}; {}, {}, {}, {} (detected by hwloc)", model_name,
                  count_of(packages, "package"), count_of(cores, "core"),
                  count_of(pus, "hardware thread"), count_of(numa_nodes, "NUMA node"));
  if (!irregular.empty()) {
    platform.description += fmt::format("; irregular topology: {}", fmt::join(irregular, "; "));
  }
  return platform;
}

std::string to_json(const Platform& platform) {
  nlohmann::ordered_json document;
  document["name"] = platform.name;
  document["description"] = platform.description;
  document["boards"] = platform.boards;
  document["sockets_per_board"] = platform.sockets_per_board;
  document["cores_per_socket"] = platform.cores_per_socket;
  document["threads_per_core"] = platform.threads_per_core;
  document["numa_nodes"] = platform.numa_nodes;
  // No classes means "the defaults", which load_platform expresses by an absent field.
  if (!platform.classes.empty()) {
    document["classes"] = nlohmann::ordered_json::array();
    for (const ThreadClass& thread_class : platform.classes) {
      document["classes"].push_back(thread_class.spec());
    }
  }
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace ompscale::platforms
