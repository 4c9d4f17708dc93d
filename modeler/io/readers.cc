// Choosing the reader: the --input-format names, the option checks and the content detection.
// The readers themselves live in read_csv.cc, read_extrap_text.cc and read_extrap_json.cc.

#include "modeler/io/readers.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "common/csv.h"
#include "common/error.h"
#include "common/output_file.h"
#include "common/text.h"
#include "modeler/io/read_common.h"

namespace ompscale::modeler {

namespace {

struct FormatName {
  InputFormat format;
  std::string_view name;
};
constexpr std::array<FormatName, 6> kFormatNames = {{
    {InputFormat::kAuto, "auto"},
    {InputFormat::kOmpbenchCsv, "ompbench"},
    {InputFormat::kGenericCsv, "csv"},
    {InputFormat::kExtrapText, "extrap"},
    {InputFormat::kExtrapJson, "extrap-json"},
    {InputFormat::kExtrapJsonLines, "jsonl"},
}};

constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";

// The first line that is neither blank nor a '#' comment.
std::string_view first_content_line(std::string_view content) {
  std::size_t pos = 0;
  while (pos < content.size()) {
    const std::size_t end = std::min(content.find('\n', pos), content.size());
    const std::string_view line = trim(content.substr(pos, end - pos));
    if (!line.empty() && line.front() != '#') return line;
    pos = end + 1;
  }
  return {};
}

bool starts_with_keyword(std::string_view line, std::string_view keyword) {
  return line.starts_with(keyword) && (line.size() == keyword.size() ||
                                       line[keyword.size()] == ' ' || line[keyword.size()] == '\t');
}

bool is_ompbench_header(std::string_view content, const std::string& name) {
  try {
    CsvReader reader(content, name);
    std::vector<std::string_view> header;
    if (!reader.next(header)) return false;
    const auto has = [&](std::string_view column) {
      return std::find(header.begin(), header.end(), column) != header.end();
    };
    return has("construct") && has("threads") && has("value");
  } catch (const InputError&) {
    return false;  // not CSV at all
  }
}

InputFormat detect_format(std::string_view content, const std::string& name) {
  const std::string_view first_line = first_content_line(content);
  if (first_line.starts_with('{')) {
    // One complete object with "params" on the first line is a JSON Lines record; a document
    // spread over lines does not parse from its first line alone.
    const auto first_object = nlohmann::json::parse(first_line, nullptr, false);
    if (first_object.is_object() && first_object.contains("params")) {
      return InputFormat::kExtrapJsonLines;
    }
    const auto has = [&](std::string_view member) {
      return content.find(fmt::format("\"{}\"", member)) != std::string_view::npos;
    };
    if (has("callpaths") || has("coordinates") || (has("parameters") && has("measurements"))) {
      return InputFormat::kExtrapJson;
    }
  }
  if (starts_with_keyword(first_line, "PARAMETER")) return InputFormat::kExtrapText;
  if (is_ompbench_header(content, name)) return InputFormat::kOmpbenchCsv;
  throw InputError(
      name, 0,
      "cannot tell the input format. Tried: ompbench CSV (a header with construct, threads and "
      "value columns), Extra-P text (first keyword PARAMETER), Extra-P JSON (an object with "
      "callpaths and coordinates, or parameters and measurements), Extra-P JSON Lines (one "
      "{\"params\": ..., \"value\": ...} object per line). For another CSV table name its "
      "columns: --param COLUMN --value COLUMN [--key COLUMN,...] select the generic CSV reader; "
      "--input-format names a reader explicitly");
}

void require_generic_columns(const ReadOptions& options) {
  if (options.param_column.empty() || options.value_column.empty()) {
    throw UsageError(
        "the generic CSV reader needs both --param COLUMN (the parameter, e.g. the thread "
        "count, or several: threads,size) and --value COLUMN (the measured value)");
  }
}

// The reader the options ask for, before looking at the content; kAuto when the content decides.
InputFormat format_from_options(const ReadOptions& options) {
  const bool names_columns = !options.param_column.empty() || !options.value_column.empty();
  const bool names_any_column = names_columns || !options.key_columns.empty();
  const auto require_param_and_value = [&] { require_generic_columns(options); };
  // --param alone (e.g. threads,param_value) leaves the format to the content: ompbench results
  // take it as their parameters.
  const bool names_parameters_only =
      !options.param_column.empty() && options.value_column.empty() && options.key_columns.empty();
  switch (options.format) {
    case InputFormat::kAuto:
      if (!names_any_column) return InputFormat::kAuto;
      if (names_parameters_only) return InputFormat::kAuto;
      require_param_and_value();
      return InputFormat::kGenericCsv;
    case InputFormat::kGenericCsv:
      require_param_and_value();
      return InputFormat::kGenericCsv;
    default:
      if (names_any_column) {
        throw UsageError(
            fmt::format("--param, --value and --key name the columns of a generic CSV table "
                        "(--input-format csv); they do not apply to --input-format {}",
                        input_format_name(options.format)));
      }
      return options.format;
  }
}

}  // namespace

InputFormat parse_input_format(std::string_view name) {
  for (const auto& entry : kFormatNames) {
    if (entry.name == name) return entry.format;
  }
  std::vector<std::string_view> names;
  for (const auto& entry : kFormatNames) names.push_back(entry.name);
  throw UsageError(fmt::format("unknown input format {:?}; expected one of: {}", std::string(name),
                               fmt::join(names, ", ")));
}

std::string_view input_format_name(InputFormat format) {
  for (const auto& entry : kFormatNames) {
    if (entry.format == format) return entry.name;
  }
  return "?";
}

Dataset parse_dataset(std::string_view content, const std::string& name,
                      const ReadOptions& options) {
  InputFormat format = format_from_options(options);
  if (content.starts_with(kUtf8ByteOrderMark)) content.remove_prefix(kUtf8ByteOrderMark.size());
  if (trim(content).empty()) throw InputError(name, 0, "empty input");
  if (format == InputFormat::kAuto) {
    // --param alone names an ompbench file's parameters; any other table needs --value too.
    const bool parameters_only = !options.param_column.empty();
    try {
      format = detect_format(content, name);
    } catch (const InputError&) {
      if (parameters_only) require_generic_columns(options);
      throw;
    }
    if (parameters_only && format != InputFormat::kOmpbenchCsv) require_generic_columns(options);
  }
  switch (format) {
    case InputFormat::kOmpbenchCsv:
    case InputFormat::kGenericCsv:
      return io_detail::read_csv_table(content, name, format, options);
    case InputFormat::kExtrapText:
      return io_detail::read_extrap_text(content, name);
    case InputFormat::kExtrapJson:
      return io_detail::read_extrap_json(content, name);
    case InputFormat::kExtrapJsonLines:
      return io_detail::read_extrap_json_lines(content, name);
    case InputFormat::kAuto:
      break;
  }
  throw std::logic_error("parse_dataset: format left undecided");
}

Dataset read_dataset(const std::string& path, const ReadOptions& options) {
  if (path != "-") {
    // Extra-P text files are read line by line and CSV tables block by block: sweeps of
    // thousands of kernels and millions of rows then cost their kernels' memory, not the file's
    // size on top.
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::string head(4096, '\0');
      in.read(head.data(), static_cast<std::streamsize>(head.size()));
      head.resize(static_cast<std::size_t>(in.gcount()));
      InputFormat format = format_from_options(options);
      std::string_view view = head;
      if (view.starts_with(kUtf8ByteOrderMark)) view.remove_prefix(kUtf8ByteOrderMark.size());
      if (format == InputFormat::kAuto && !trim(view).empty()) {
        try {
          format = detect_format(view, path);
        } catch (const InputError&) {
          format = InputFormat::kAuto;  // decided below on the whole content
        }
      }
      if (format == InputFormat::kExtrapText) {
        in.clear();
        in.seekg(0);
        return io_detail::read_extrap_text(in, path);
      }
      if (format == InputFormat::kOmpbenchCsv || format == InputFormat::kGenericCsv) {
        in.clear();
        in.seekg(0);
        return io_detail::read_csv_table(in, path, format, options);
      }
    }
  }
  const std::string content = read_input(path);
  return parse_dataset(content, path == "-" ? "<stdin>" : path, options);
}

}  // namespace ompscale::modeler
