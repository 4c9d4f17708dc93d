// CSV tables: ompbench results (fixed column roles) and generic tables (roles named by options).
// Both go through one loop, so both get the same checks and the same speed: one pass over the
// text, fields as views into it, and a hash lookup only when the kernel changes from one row to
// the next.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/csv.h"
#include "common/error.h"
#include "modeler/io/read_common.h"

namespace ompscale::modeler {

bool is_per_measurement_column(std::string_view column) {
  constexpr std::array<std::string_view, 9> kPerMeasurementColumns = {
      "threads",   "thread_class", "rep",       "value",         "valid",
      "canary_ns", "run_id",       "timestamp", "oversubscribed"};
  return std::find(kPerMeasurementColumns.begin(), kPerMeasurementColumns.end(), column) !=
         kPerMeasurementColumns.end();
}

}  // namespace ompscale::modeler

namespace ompscale::modeler::io_detail {

namespace {

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
    if (!is_per_measurement_column(header.names()[i]) && !is_parameter(layout, i)) {
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

namespace {

/// Turns records into kernels: the first record fed is the header, every other one a row.
class TableReader {
 public:
  TableReader(const std::string& file, InputFormat format, const ReadOptions& options)
      : file_(file), format_(format), options_(options) {}

  void feed(CsvReader& reader) {
    while (reader.next(fields_)) {
      if (header_) {
        row(reader.line());
      } else {
        start(reader.line());
      }
    }
  }

  Dataset finish() {
    if (!header_) throw InputError(file_, 0, "empty input: no header line");
    if (rows_ == 0) throw InputError(file_, 0, "no data rows after the header");
    if (collector_->kernel_count() == 0) {
      throw InputError(file_, 0,
                       fmt::format("all {} rows are marked valid=0; use --include-invalid to "
                                   "model them anyway",
                                   rows_));
    }
    std::vector<std::string> key_names;
    key_names.reserve(layout_.key_columns.size());
    for (const std::size_t column : layout_.key_columns)
      key_names.push_back(header_->names()[column]);
    Dataset dataset = collector_->finish(std::move(key_names));
    dataset.skipped_invalid = skipped_invalid_;
    dataset.skipped_invalid_by_key = std::move(invalid_by_key_);
    return dataset;
  }

 private:
  void start(std::size_t line) {
    header_.emplace(fields_, file_, line);
    layout_ = format_ == InputFormat::kOmpbenchCsv ? ompbench_layout(*header_, options_)
                                                   : generic_layout(*header_, options_);
    collector_.emplace(file_, layout_.key_columns.size());
    collector_->set_parameters(layout_.parameters);
    point_.resize(layout_.parameters.size());
    key_values_.resize(layout_.key_columns.size());
  }

  void row(std::size_t line) {
    if (fields_.size() != header_->size()) {
      throw InputError(
          file_, line,
          fmt::format("row has {} fields, the header has {}", fields_.size(), header_->size()));
    }
    ++rows_;
    // Invalid rows are skipped before their numbers are looked at: a failed measurement may
    // well hold "nan" or nothing.
    if (layout_.valid_column && !is_valid_row(fields_[*layout_.valid_column], file_, line) &&
        !options_.include_invalid) {
      ++skipped_invalid_;
      joined_.clear();
      for (std::size_t k = 0; k < layout_.key_columns.size(); ++k) {
        if (k > 0) joined_ += '\x1f';  // as Kernel::joined_key
        joined_ += fields_[layout_.key_columns[k]];
      }
      ++invalid_by_key_[joined_];
      return;
    }
    for (std::size_t p = 0; p < point_.size(); ++p) {
      point_[p] =
          parse_param(fields_[layout_.param_columns[p]], layout_.parameters[p], file_, line);
    }
    const double value = parse_value(fields_[layout_.value_column],
                                     header_->names()[layout_.value_column], file_, line);
    for (std::size_t k = 0; k < layout_.key_columns.size(); ++k) {
      key_values_[k] = fields_[layout_.key_columns[k]];
    }
    const std::size_t kernel = collector_->kernel(key_values_, line);
    if (point_.size() == 1) {
      collector_->add(kernel, point_[0], value);
    } else {
      collector_->add(kernel, std::span<const double>(point_), value);
    }
  }

  const std::string& file_;
  InputFormat format_;
  const ReadOptions& options_;
  std::optional<Header> header_;
  Layout layout_;
  std::optional<KernelCollector> collector_;
  std::vector<std::string_view> fields_;
  std::vector<std::string_view> key_values_;
  std::vector<double> point_;
  std::size_t rows_ = 0;
  std::size_t skipped_invalid_ = 0;
  std::unordered_map<std::string, std::size_t> invalid_by_key_;  // skipped rows per kernel key
  std::string joined_;
};

// End of the last complete record in `text` (just after a line end outside quotes), 0 if none.
// A stretch between two quotes is outside quotes when an even number of quotes precede it. Quotes
// are rare: they are counted, then the search goes back from the end, stretch by stretch
// (memchr and memrchr instead of a loop over every byte of the block).
std::size_t last_record_end(std::string_view text) {
  std::size_t quotes_before = 0;
  for (std::size_t q = text.find('"'); q != std::string_view::npos; q = text.find('"', q + 1)) {
    ++quotes_before;
  }
  std::size_t end = text.size();  // of the stretch searched
  while (true) {
    const auto* quote = static_cast<const char*>(memrchr(text.data(), '"', end));
    const std::size_t begin =
        quote != nullptr ? static_cast<std::size_t>(quote - text.data()) + 1 : 0;
    if (quotes_before % 2 == 0) {
      if (const auto* line_end =
              static_cast<const char*>(memrchr(text.data() + begin, '\n', end - begin))) {
        return static_cast<std::size_t>(line_end - text.data()) + 1;
      }
    }
    if (quote == nullptr) return 0;
    end = begin - 1;
    --quotes_before;
  }
}

}  // namespace

Dataset read_csv_table(std::string_view content, const std::string& file, InputFormat format,
                       const ReadOptions& options) {
  TableReader table(file, format, options);
  CsvReader reader(content, file);
  table.feed(reader);
  return table.finish();
}

Dataset read_csv_table(std::istream& in, const std::string& file, InputFormat format,
                       const ReadOptions& options) {
  // Blocks of whole records: the file's text is never held at once, only its kernels.
  constexpr std::size_t kBlock = 1 << 20;
  TableReader table(file, format, options);
  std::string buffer;
  std::size_t line = 1;
  while (true) {
    const std::size_t kept = buffer.size();
    buffer.resize(kept + kBlock);
    in.read(buffer.data() + kept, static_cast<std::streamsize>(kBlock));
    buffer.resize(kept + static_cast<std::size_t>(in.gcount()));
    const bool at_end = !in;
    if (in.bad()) throw InputError(file, 0, "read error");
    const std::size_t end = at_end ? buffer.size() : last_record_end(buffer);
    const std::string_view records(buffer.data(), end);
    CsvReader reader(records, file, line);
    table.feed(reader);
    line = reader.next_line();
    buffer.erase(0, end);
    if (at_end) break;
  }
  return table.finish();
}

}  // namespace ompscale::modeler::io_detail
