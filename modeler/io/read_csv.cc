// CSV tables: ompbench results (fixed column roles) and generic tables (roles named by options).
// Both go through one loop, so both get the same checks and the same speed: one pass over the
// text, fields as views into it, and a hash lookup only when the kernel changes from one row to
// the next.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/csv.h"
#include "common/error.h"
#include "modeler/io/read_common.h"

namespace ompscale::modeler::io_detail {

namespace {

// ompbench columns that vary between the measurements of one kernel; every other column, including
// any the file adds, identifies the kernel.
constexpr std::array<std::string_view, 9> kPerMeasurementColumns = {
    "threads",   "thread_class", "rep",       "value",         "valid",
    "canary_ns", "run_id",       "timestamp", "oversubscribed"};

bool is_per_measurement(std::string_view column) {
  return std::find(kPerMeasurementColumns.begin(), kPerMeasurementColumns.end(), column) !=
         kPerMeasurementColumns.end();
}

// Which column plays which role.
struct Layout {
  std::vector<std::string> parameters;
  std::vector<std::size_t> param_columns;
  std::size_t value_column = 0;
  std::optional<std::size_t> valid_column;
  std::vector<std::size_t> key_columns;
};

class Header {
 public:
  Header(const std::vector<std::string_view>& names, const std::string& file, std::size_t line)
      : names_(names.begin(), names.end()), file_(file), line_(line) {
    for (std::size_t i = 0; i < names_.size(); ++i) {
      if (!index_.emplace(names_[i], i).second) {
        throw InputError(file_, line_,
                         fmt::format("column {:?} appears twice in the header", names_[i]));
      }
    }
  }

  std::optional<std::size_t> find(const std::string& name) const {
    const auto it = index_.find(name);
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }

  // The column's index; an InputError listing the header otherwise. `role` says why it is needed.
  std::size_t require(const std::string& name, std::string_view role) const {
    if (const auto index = find(name)) return *index;
    throw InputError(file_, line_,
                     fmt::format("no column {:?} ({}); the header has: {}", name, role,
                                 fmt::join(names_, ", ")));
  }

  const std::vector<std::string>& names() const { return names_; }
  std::size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::size_t> index_;
  const std::string& file_;
  std::size_t line_;
};

// "threads,param_value" -> {"threads", "param_value"}.
std::vector<std::string> parameter_list(const std::string& spec) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    names.push_back(spec.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

void add_parameters(Layout& layout, const Header& header, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (std::find(layout.parameters.begin(), layout.parameters.end(), name) !=
        layout.parameters.end()) {
      throw UsageError(fmt::format("--param names {:?} twice", name));
    }
    layout.parameters.push_back(name);
    layout.param_columns.push_back(header.require(name, "--param"));
  }
}

bool is_parameter(const Layout& layout, std::size_t column) {
  return std::find(layout.param_columns.begin(), layout.param_columns.end(), column) !=
         layout.param_columns.end();
}

Layout ompbench_layout(const Header& header, const ReadOptions& options) {
  Layout layout;
  // --param threads,param_value: the array size (or chunk) becomes a second parameter.
  add_parameters(layout, header,
                 options.param_column.empty() ? std::vector<std::string>{"threads"}
                                              : parameter_list(options.param_column));
  layout.value_column = header.require("value", "ompbench results: the measured value");
  layout.valid_column = header.find("valid");
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (!is_per_measurement(header.names()[i]) && !is_parameter(layout, i)) {
      layout.key_columns.push_back(i);
    }
  }
  return layout;
}

Layout generic_layout(const Header& header, const ReadOptions& options) {
  Layout layout;
  add_parameters(layout, header, parameter_list(options.param_column));
  layout.value_column = header.require(options.value_column, "--value");
  for (const std::string& key : options.key_columns) {
    layout.key_columns.push_back(header.require(key, "--key"));
  }
  // A `valid` column means what it means in ompbench results, unless the user made it a role.
  layout.valid_column = header.find("valid");
  if (layout.valid_column &&
      (is_parameter(layout, *layout.valid_column) || *layout.valid_column == layout.value_column ||
       std::find(layout.key_columns.begin(), layout.key_columns.end(), *layout.valid_column) !=
           layout.key_columns.end())) {
    layout.valid_column.reset();
  }
  return layout;
}

bool is_valid_row(std::string_view field, const std::string& file, std::size_t line) {
  field = trim(field);
  if (field == "1") return true;
  if (field == "0") return false;
  throw InputError(file, line, fmt::format("valid is {:?}; expected 0 or 1", std::string(field)));
}

}  // namespace

Dataset read_csv_table(std::string_view content, const std::string& file, InputFormat format,
                       const ReadOptions& options) {
  CsvReader reader(content, file);
  std::vector<std::string_view> fields;
  if (!reader.next(fields)) throw InputError(file, 0, "empty input: no header line");
  const Header header(fields, file, reader.line());
  const Layout layout = format == InputFormat::kOmpbenchCsv ? ompbench_layout(header, options)
                                                            : generic_layout(header, options);

  const std::string& value_name = header.names()[layout.value_column];
  KernelCollector collector(file, layout.key_columns.size());
  collector.set_parameters(layout.parameters);
  const std::size_t dimensions = layout.parameters.size();
  std::vector<double> point(dimensions);
  std::vector<std::string_view> key_values(layout.key_columns.size());
  std::size_t rows = 0;
  std::size_t skipped_invalid = 0;
  while (reader.next(fields)) {
    const std::size_t line = reader.line();
    if (fields.size() != header.size()) {
      throw InputError(
          file, line,
          fmt::format("row has {} fields, the header has {}", fields.size(), header.size()));
    }
    ++rows;
    // Invalid rows are skipped before their numbers are looked at: a failed measurement may
    // well hold "nan" or nothing.
    if (layout.valid_column && !is_valid_row(fields[*layout.valid_column], file, line) &&
        !options.include_invalid) {
      ++skipped_invalid;
      continue;
    }
    for (std::size_t p = 0; p < dimensions; ++p) {
      point[p] = parse_param(fields[layout.param_columns[p]], layout.parameters[p], file, line);
    }
    const double value = parse_value(fields[layout.value_column], value_name, file, line);
    for (std::size_t k = 0; k < layout.key_columns.size(); ++k) {
      key_values[k] = fields[layout.key_columns[k]];
    }
    const std::size_t kernel = collector.kernel(key_values, line);
    if (dimensions == 1) {
      collector.add(kernel, point[0], value);
    } else {
      collector.add(kernel, std::span<const double>(point), value);
    }
  }

  if (rows == 0) throw InputError(file, 0, "no data rows after the header");
  if (collector.kernel_count() == 0) {
    throw InputError(file, 0,
                     fmt::format("all {} rows are marked valid=0; use --include-invalid to model "
                                 "them anyway",
                                 rows));
  }
  std::vector<std::string> key_names;
  key_names.reserve(layout.key_columns.size());
  for (const std::size_t column : layout.key_columns) key_names.push_back(header.names()[column]);
  Dataset dataset = collector.finish(std::move(key_names));
  dataset.skipped_invalid = skipped_invalid;
  return dataset;
}

}  // namespace ompscale::modeler::io_detail
