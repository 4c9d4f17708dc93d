// Extra-P's JSON inputs, as its JsonFileReader (extrap/fileio/file_reader/json_file_reader.py)
// and read_jsonlines_file (jsonlines_file_reader.py) read them, for one parameter:
//
//   - the id-based JSON document: parameters, callpaths, metrics, coordinates and measurements,
//     each a list of objects with ids; measurements refer to the others by id;
//   - the newer nested JSON document: {"parameters": ["x"], "measurements": {CALLPATH: {METRIC:
//     [{"point": [4], "values": [3.5, ...]}, ...]}}}; Extra-P tells them apart by "callpaths";
//   - JSON Lines: one {"params": {"x": 4}, "callpath": "main", "metric": "time", "value": 3.5}
//     per line; callpath and metric are optional ("<root>" and "<default>" as in Extra-P), value
//     may be a list of repetitions, blank lines are skipped.
//
// Documents keep member order (ordered_json) so kernels come out in the order of the file.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/error.h"
#include "common/json_input.h"
#include "modeler/io/read_common.h"

namespace ompscale::modeler::io_detail {

namespace {

using Json = nlohmann::ordered_json;

// Extra-P's names for the callpath and metric of a JSON Lines object that has none.
constexpr std::string_view kDefaultCallpath = "<root>";
constexpr std::string_view kDefaultMetric = "<default>";

std::string_view type_of(const Json& value) {
  return value.type_name();
}

// Typed access to members with errors that say where in the document the problem is, in
// Extra-P's terms ("measurements[0].value is a string, not a number"), on the line of that place
// (common/json_input.h finds it from the path); `line` is the line of a JSON Lines object, or 0
// for a document.
class Members {
 public:
  Members(const std::string& file, std::size_t line, const OrderedJsonDocument* document = nullptr)
      : file_(file), line_(line), document_(document) {}

  [[noreturn]] void fail(const std::string& cause) const { throw InputError(file_, line_, cause); }
  /// An error about the value at `where` (a path such as "coordinates[1].id").
  [[noreturn]] void fail_at(std::string_view where, const std::string& cause) const {
    const std::size_t line = document_ != nullptr ? document_->line_of(where) : 0;
    throw InputError(file_, line != 0 ? line : line_, cause);
  }

  const Json& get(const Json& object, std::string_view key, std::string_view where) const {
    if (!object.is_object()) {
      fail_at(where, fmt::format("{} is a {}, not an object", where, type_of(object)));
    }
    const auto it = object.find(key);
    if (it == object.end()) fail_at(where, fmt::format("{} has no {:?}", where, std::string(key)));
    return *it;
  }
  const Json& array(const Json& object, std::string_view key, std::string_view where) const {
    const Json& value = get(object, key, where);
    if (!value.is_array()) {
      fail_at(fmt::format("{}.{}", where, key),
              fmt::format("{}.{} is a {}, not an array", where, key, type_of(value)));
    }
    return value;
  }
  std::string string(const Json& object, std::string_view key, std::string_view where) const {
    return as_string(get(object, key, where), fmt::format("{}.{}", where, key));
  }
  std::string as_string(const Json& value, std::string_view where) const {
    if (!value.is_string()) {
      fail_at(where, fmt::format("{} is a {}, not a string", where, type_of(value)));
    }
    return value.get<std::string>();
  }
  double number(const Json& value, std::string_view where) const {
    if (!value.is_number()) {
      fail_at(where, fmt::format("{} is a {}, not a number", where, type_of(value)));
    }
    return value.get<double>();
  }
  std::int64_t id(const Json& object, std::string_view key, std::string_view where) const {
    const Json& value = get(object, key, where);
    const std::string path = fmt::format("{}.{}", where, key);
    if (!value.is_number_integer()) {
      fail_at(path, fmt::format("{} is a {}, not an integer id", path, type_of(value)));
    }
    const auto id = json_integer(value, std::numeric_limits<std::int64_t>::min(),
                                 std::numeric_limits<std::int64_t>::max());
    if (!id) fail_at(path, fmt::format("{} = {} is beyond a 64-bit id", path, value.dump()));
    return *id;
  }

 private:
  const std::string& file_;
  std::size_t line_;
  const OrderedJsonDocument* document_;
};

// The parameter names from an Extra-P parameter list.
template <typename NameOf>
std::vector<std::string> parameter_names(const Json& parameters, const Members& members,
                                         NameOf name_of) {
  if (parameters.empty()) members.fail("\"parameters\" is empty");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    names.push_back(name_of(parameters[i], fmt::format("parameters[{}]", i)));
  }
  return names;
}

// "\"x\", \"y\"": names as they appear in the JSON.
std::string quoted(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{:?}", name);
  }
  return out;
}

// Adds one measured value at `point` (one value per parameter) to the kernel.
void add_at(KernelCollector& collector, std::size_t kernel, const std::vector<double>& point,
            double value) {
  if (point.size() == 1) {
    collector.add(kernel, point[0], value);
  } else {
    collector.add(kernel, std::span<const double>(point), value);
  }
}

// id -> name of the callpaths or metrics list.
std::unordered_map<std::int64_t, std::string> names_by_id(const Json& document,
                                                          std::string_view list,
                                                          const Members& members) {
  std::unordered_map<std::int64_t, std::string> names;
  const Json& entries = members.array(document, list, "the document");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string where = fmt::format("{}[{}]", list, i);
    const std::int64_t id = members.id(entries[i], "id", where);
    if (!names.emplace(id, members.string(entries[i], "name", where)).second) {
      members.fail_at(where, fmt::format("{} repeats id {}", where, id));
    }
  }
  return names;
}

Dataset read_id_based(const OrderedJsonDocument& parsed, const std::string& file) {
  const Json& document = parsed.json();
  const Members members(file, 0, &parsed);
  const Json& parameters = members.array(document, "parameters", "the document");
  std::vector<std::int64_t> parameter_ids;
  const std::vector<std::string> names =
      parameter_names(parameters, members, [&](const Json& entry, const std::string& where) {
        parameter_ids.push_back(members.id(entry, "id", where));
        return members.string(entry, "name", where);
      });
  const auto callpaths = names_by_id(document, "callpaths", members);
  const auto metrics = names_by_id(document, "metrics", members);

  std::unordered_map<std::int64_t, std::vector<double>> point_by_coordinate;
  const Json& coordinates = members.array(document, "coordinates", "the document");
  for (std::size_t i = 0; i < coordinates.size(); ++i) {
    const std::string where = fmt::format("coordinates[{}]", i);
    const Json& pairs = members.array(coordinates[i], "parameter_value_pairs", where);
    if (pairs.size() != names.size()) {
      members.fail_at(where,
                      fmt::format("{} has {} parameter values; the parameters {} need {}", where,
                                  pairs.size(), fmt::join(names, ", "), names.size()));
    }
    std::vector<double> point(names.size(), 0.0);
    std::vector<bool> seen(names.size(), false);
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const std::string pair_where = fmt::format("{}.parameter_value_pairs[{}]", where, k);
      const std::int64_t id = members.id(pairs[k], "parameter_id", pair_where);
      const auto it = std::find(parameter_ids.begin(), parameter_ids.end(), id);
      if (it == parameter_ids.end()) {
        members.fail_at(pair_where,
                        fmt::format("{} refers to an unknown parameter_id", pair_where));
      }
      const auto p = static_cast<std::size_t>(it - parameter_ids.begin());
      if (seen[p])
        members.fail_at(pair_where, fmt::format("{} repeats parameter_id {}", pair_where, id));
      seen[p] = true;
      const double value = members.number(members.get(pairs[k], "parameter_value", pair_where),
                                          pair_where + ".parameter_value");
      point[p] = check_param(value, names[p], file, 0, pair_where);
    }
    const std::int64_t id = members.id(coordinates[i], "id", where);
    if (!point_by_coordinate.emplace(id, std::move(point)).second) {
      members.fail_at(where, fmt::format("{} repeats id {}", where, id));
    }
  }

  // id -> entry, with an error naming the measurement that refers to an id nobody has.
  const auto lookup = [&](const auto& by_id, const Json& measurement, std::string_view key,
                          const std::string& where) -> const auto& {
    const std::int64_t id = members.id(measurement, key, where);
    const auto it = by_id.find(id);
    if (it == by_id.end())
      members.fail_at(where, fmt::format("{} refers to unknown {} {}", where, key, id));
    return it->second;
  };

  KernelCollector collector(file, 2);
  collector.set_parameters(names);
  const Json& measurements = members.array(document, "measurements", "the document");
  for (std::size_t i = 0; i < measurements.size(); ++i) {
    const std::string where = fmt::format("measurements[{}]", i);
    const Json& measurement = measurements[i];
    const std::string& callpath = lookup(callpaths, measurement, "callpath_id", where);
    const std::string& metric = lookup(metrics, measurement, "metric_id", where);
    const std::vector<double>& point =
        lookup(point_by_coordinate, measurement, "coordinate_id", where);
    const double value =
        check_value(members.number(members.get(measurement, "value", where), where + ".value"),
                    where + ".value", file, 0);
    const std::array<std::string_view, 2> key{callpath, metric};
    add_at(collector, collector.kernel(key, 0), point, value);
  }
  if (collector.kernel_count() == 0) throw InputError(file, 0, "no measurements");
  return collector.finish({"callpath", "metric"});
}

Dataset read_nested(const OrderedJsonDocument& parsed, const std::string& file) {
  const Json& document = parsed.json();
  const Members members(file, 0, &parsed);
  const Json& parameters = members.array(document, "parameters", "the document");
  const std::vector<std::string> names = parameter_names(
      parameters, members,
      [&](const Json& entry, const std::string& where) { return members.as_string(entry, where); });
  const Json& by_callpath = members.get(document, "measurements", "the document");
  if (!by_callpath.is_object()) {
    members.fail(
        fmt::format("\"measurements\" is a {}, not an object of callpaths", type_of(by_callpath)));
  }
  KernelCollector collector(file, 2);
  collector.set_parameters(names);
  for (const auto& [callpath, by_metric] : by_callpath.items()) {
    const std::string callpath_where = fmt::format("measurements[{:?}]", callpath);
    if (!by_metric.is_object()) {
      members.fail(
          fmt::format("{} is a {}, not an object of metrics", callpath_where, type_of(by_metric)));
    }
    for (const auto& [metric, entries] : by_metric.items()) {
      const std::string metric_where = fmt::format("{}[{:?}]", callpath_where, metric);
      if (!entries.is_array()) {
        members.fail(fmt::format("{} is a {}, not an array", metric_where, type_of(entries)));
      }
      const std::array<std::string_view, 2> key{callpath, metric};
      const std::size_t kernel = collector.kernel(key, 0);
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::string where = fmt::format("{}[{}]", metric_where, i);
        const Json& coordinates = members.array(entries[i], "point", where);
        if (coordinates.size() != names.size()) {
          members.fail_at(
              where, fmt::format("{}.point has {} coordinates; the parameters {} need {}", where,
                                 coordinates.size(), fmt::join(names, ", "), names.size()));
        }
        std::vector<double> point;
        for (std::size_t p = 0; p < names.size(); ++p) {
          const std::string point_where = fmt::format("{}.point[{}]", where, p);
          point.push_back(
              check_param(members.number(coordinates[p], point_where), names[p], file, 0, where));
        }
        const Json& values = members.array(entries[i], "values", where);
        for (std::size_t v = 0; v < values.size(); ++v) {
          const std::string value_where = fmt::format("{}.values[{}]", where, v);
          add_at(collector, kernel, point,
                 check_value(members.number(values[v], value_where), value_where, file, 0));
        }
      }
    }
  }
  Dataset dataset = collector.finish({"callpath", "metric"});
  // A callpath or metric without any point yields an empty kernel; drop those.
  std::erase_if(dataset.kernels, [](const Kernel& kernel) { return kernel.empty(); });
  if (dataset.kernels.empty()) throw InputError(file, 0, "no measurements");
  return dataset;
}

}  // namespace

Dataset read_extrap_json(std::string_view content, const std::string& file) {
  const OrderedJsonDocument parsed(content, file);
  const Json& document = parsed.json();
  if (!document.is_object()) {
    throw InputError(
        file, 0,
        fmt::format("the document is a {}, not an Extra-P JSON object", type_of(document)));
  }
  // Extra-P's own test for the id-based variant.
  if (document.contains("callpaths")) return read_id_based(parsed, file);
  return read_nested(parsed, file);
}

Dataset read_extrap_json_lines(std::string_view content, const std::string& file) {
  KernelCollector collector(file, 2);
  std::vector<std::string> names;  // parameter names, in the first line's order
  std::size_t line = 0;
  std::size_t pos = 0;
  while (pos < content.size()) {
    const std::size_t end = std::min(content.find('\n', pos), content.size());
    const std::string_view text = trim(content.substr(pos, end - pos));
    pos = end + 1;
    ++line;
    if (text.empty()) continue;

    const Json object = parse_json<Json>(text, file, line);
    const Members members(file, line);
    if (!object.is_object()) {
      members.fail(fmt::format("the line is a {}, not a JSON object", type_of(object)));
    }
    const Json& params = members.get(object, "params", "the object");
    if (!params.is_object() || params.empty()) {
      members.fail("\"params\" must be an object like {\"threads\": 4}");
    }
    std::vector<std::string> these;
    for (const auto& item : params.items()) these.push_back(item.key());
    if (names.empty()) {
      names = these;
      collector.set_parameters(names);
    } else if (std::is_permutation(these.begin(), these.end(), names.begin(), names.end()) ==
               false) {
      members.fail(fmt::format("\"params\" has {} where earlier lines have {}", quoted(these),
                               quoted(names)));
    }
    std::vector<double> point;
    for (const std::string& name : names) {
      point.push_back(
          check_param(members.number(params.at(name), "params." + name), name, file, line));
    }

    const auto optional_name = [&](std::string_view key, std::string_view fallback) {
      const auto it = object.find(key);
      return it == object.end() ? std::string(fallback) : members.as_string(*it, key);
    };
    const std::string callpath = optional_name("callpath", kDefaultCallpath);
    const std::string metric = optional_name("metric", kDefaultMetric);
    const std::array<std::string_view, 2> key{callpath, metric};
    const std::size_t kernel = collector.kernel(key, line);

    const Json& value = members.get(object, "value", "the object");
    if (value.is_array()) {
      for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string where = fmt::format("value[{}]", i);
        add_at(collector, kernel, point,
               check_value(members.number(value[i], where), where, file, line));
      }
    } else {
      add_at(collector, kernel, point,
             check_value(members.number(value, "value"), "value", file, line));
    }
  }
  if (collector.kernel_count() == 0) throw InputError(file, 0, "no measurement lines");
  Dataset dataset = collector.finish({"callpath", "metric"});
  std::erase_if(dataset.kernels, [](const Kernel& kernel) { return kernel.empty(); });
  if (dataset.kernels.empty()) throw InputError(file, 0, "no measurement values");
  return dataset;
}

}  // namespace ompscale::modeler::io_detail
