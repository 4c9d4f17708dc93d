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
// Documents keep member order (ordered_json) so kernels come out in the order of the file. Every
// member is read through common/json_input.h, so each error is "FILE:LINE: PATH: CAUSE", the
// line that of the value at PATH.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
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

using Node = OrderedJsonNode;

// Extra-P's names for the callpath and metric of a JSON Lines object that has none.
constexpr std::string_view kDefaultCallpath = "<root>";
constexpr std::string_view kDefaultMetric = "<default>";

// A measured value: a finite number (null reads as NaN and is refused with the rest).
double measured_value(const Node& node) {
  return check_value(node.number(), node.path(), node.file(), node.line());
}

// The value of `parameter` at a point: a positive finite number.
double parameter_value(const Node& node, std::string_view parameter) {
  return check_param(node.number(), parameter, node.file(), node.line(), node.path());
}

// The parameter names from an Extra-P parameter list.
template <typename NameOf>
std::vector<std::string> parameter_names(const Node& parameters, NameOf name_of) {
  std::vector<std::string> names;
  for (const Node& entry : parameters.elements()) names.push_back(name_of(entry));
  if (names.empty()) parameters.fail("expected at least one parameter");
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
std::unordered_map<std::int64_t, std::string> names_by_id(const Node& root, std::string_view list) {
  std::unordered_map<std::int64_t, std::string> names;
  for (const Node& entry : root.field(list).elements()) {
    const Node id = entry.field("id");
    if (!names.emplace(id.integer(), entry.field("name").string()).second)
      id.fail(fmt::format("repeats id {}", id.integer()));
  }
  return names;
}

// The entry of `by_id` that the id at `node` names.
template <typename Map>
const typename Map::mapped_type& lookup(const Map& by_id, const Node& node) {
  const auto it = by_id.find(node.integer());
  if (it == by_id.end()) node.fail(fmt::format("unknown id {}", node.integer()));
  return it->second;
}

// coordinate id -> point (one value per parameter, in the order of `names`).
std::unordered_map<std::int64_t, std::vector<double>> points_by_coordinate(
    const Node& root, const std::vector<std::string>& names,
    const std::vector<std::int64_t>& parameter_ids) {
  std::unordered_map<std::int64_t, std::vector<double>> points;
  for (const Node& coordinate : root.field("coordinates").elements()) {
    const std::vector<Node> pairs = coordinate.field("parameter_value_pairs").elements();
    if (pairs.size() != names.size()) {
      coordinate.fail(fmt::format("has {} parameter values; the parameters {} need {}",
                                  pairs.size(), fmt::join(names, ", "), names.size()));
    }
    std::vector<double> point(names.size(), 0.0);
    std::vector<bool> seen(names.size(), false);
    for (const Node& pair : pairs) {
      const Node id = pair.field("parameter_id");
      const auto it = std::find(parameter_ids.begin(), parameter_ids.end(), id.integer());
      if (it == parameter_ids.end()) id.fail(fmt::format("unknown id {}", id.integer()));
      const auto p = static_cast<std::size_t>(it - parameter_ids.begin());
      if (seen[p]) id.fail(fmt::format("repeats parameter id {}", id.integer()));
      seen[p] = true;
      point[p] = parameter_value(pair.field("parameter_value"), names[p]);
    }
    const Node id = coordinate.field("id");
    if (!points.emplace(id.integer(), std::move(point)).second)
      id.fail(fmt::format("repeats id {}", id.integer()));
  }
  return points;
}

Dataset read_id_based(const Node& root) {
  std::vector<std::int64_t> parameter_ids;
  const std::vector<std::string> names =
      parameter_names(root.field("parameters"), [&](const Node& entry) {
        parameter_ids.push_back(entry.field("id").integer());
        return entry.field("name").string();
      });
  const auto callpaths = names_by_id(root, "callpaths");
  const auto metrics = names_by_id(root, "metrics");
  const auto points = points_by_coordinate(root, names, parameter_ids);

  KernelCollector collector(root.file(), 2);
  collector.set_parameters(names);
  for (const Node& measurement : root.field("measurements").elements()) {
    const std::array<std::string_view, 2> key{lookup(callpaths, measurement.field("callpath_id")),
                                              lookup(metrics, measurement.field("metric_id"))};
    const std::vector<double>& point = lookup(points, measurement.field("coordinate_id"));
    add_at(collector, collector.kernel(key, 0), point, measured_value(measurement.field("value")));
  }
  if (collector.kernel_count() == 0) throw InputError(root.file(), 0, "no measurements");
  return collector.finish({"callpath", "metric"});
}

// One {"point": [...], "values": [...]} entry of the nested document.
void add_entry(KernelCollector& collector, std::size_t kernel, const Node& entry,
               const std::vector<std::string>& names) {
  const Node coordinates = entry.field("point");
  const std::vector<Node> values = coordinates.elements();
  if (values.size() != names.size()) {
    coordinates.fail(fmt::format("has {} coordinates; the parameters {} need {}", values.size(),
                                 fmt::join(names, ", "), names.size()));
  }
  std::vector<double> point;
  for (std::size_t p = 0; p < names.size(); ++p)
    point.push_back(parameter_value(values[p], names[p]));
  for (const Node& value : entry.field("values").elements())
    add_at(collector, kernel, point, measured_value(value));
}

Dataset read_nested(const Node& root) {
  const std::vector<std::string> names =
      parameter_names(root.field("parameters"), [](const Node& entry) { return entry.string(); });
  KernelCollector collector(root.file(), 2);
  collector.set_parameters(names);
  for (const auto& [callpath, by_metric] : root.field("measurements").members()) {
    for (const auto& [metric, entries] : by_metric.members()) {
      const std::array<std::string_view, 2> key{callpath, metric};
      const std::size_t kernel = collector.kernel(key, 0);
      for (const Node& entry : entries.elements()) add_entry(collector, kernel, entry, names);
    }
  }
  Dataset dataset = collector.finish({"callpath", "metric"});
  // A callpath or metric without any point yields an empty kernel; drop those.
  std::erase_if(dataset.kernels, [](const Kernel& kernel) { return kernel.empty(); });
  if (dataset.kernels.empty()) throw InputError(root.file(), 0, "no measurements");
  return dataset;
}

// The point of a JSON Lines object: its "params" in the order of `names` (taken from the first
// object, which sets the collector's parameters).
std::vector<double> jsonl_point(const Node& object, std::vector<std::string>& names,
                                KernelCollector& collector) {
  const Node params = object.field("params");
  std::vector<std::string> these;
  for (const auto& member : params.members()) these.push_back(member.first);
  if (these.empty()) params.fail("expected an object like {\"threads\": 4}");
  if (names.empty()) {
    names = these;
    collector.set_parameters(names);
  } else if (!std::is_permutation(these.begin(), these.end(), names.begin(), names.end())) {
    params.fail(fmt::format("has {} where earlier lines have {}", quoted(these), quoted(names)));
  }
  std::vector<double> point;
  for (const std::string& name : names) point.push_back(parameter_value(params.field(name), name));
  return point;
}

}  // namespace

Dataset read_extrap_json(std::string_view content, const std::string& file) {
  const OrderedJsonDocument parsed(content, file);
  const Node root = parsed.root();
  if (!root.json().is_object()) {
    root.fail(
        fmt::format("the document is a {}, not an Extra-P JSON object", root.json().type_name()));
  }
  // Extra-P's own test for the id-based variant.
  if (root.has("callpaths")) return read_id_based(root);
  return read_nested(root);
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

    const OrderedJsonDocument parsed(text, file, line);
    const Node object = parsed.root();
    if (!object.json().is_object()) {
      object.fail(fmt::format("the line is a {}, not a JSON object", object.json().type_name()));
    }
    const std::vector<double> point = jsonl_point(object, names, collector);
    const std::string callpath = object.string_or("callpath", std::string(kDefaultCallpath));
    const std::string metric = object.string_or("metric", std::string(kDefaultMetric));
    const std::array<std::string_view, 2> key{callpath, metric};
    const std::size_t kernel = collector.kernel(key, line);

    const Node value = object.field("value");
    if (value.json().is_array()) {
      for (const Node& repetition : value.elements())
        add_at(collector, kernel, point, measured_value(repetition));
    } else {
      add_at(collector, kernel, point, measured_value(value));
    }
  }
  if (collector.kernel_count() == 0) throw InputError(file, 0, "no measurement lines");
  Dataset dataset = collector.finish({"callpath", "metric"});
  std::erase_if(dataset.kernels, [](const Kernel& kernel) { return kernel.empty(); });
  if (dataset.kernels.empty()) throw InputError(file, 0, "no measurement values");
  return dataset;
}

}  // namespace ompscale::modeler::io_detail
