// Extra-P's text format, accepting what Extra-P 4.x's TextFileReader accepts:
//
//   PARAMETER x                      one name per PARAMETER line, or several on one line
//   POINTS ( 20 ) ( 30 )             any number of POINTS lines; parentheses optional with one
//   POINTS ( 20 1 ) ( 30 1 )         parameter, a group of one value per parameter with several
//   REGION compute                   REGION and METRIC in either order; each starts a new block
//   METRIC time                      a METRIC holds until the next METRIC ("" before the first)
//   DATA 82.0 81.4 81.9              one line per point, in POINTS order, repetitions on the line
//
// Lines starting with '#' are comments, blank lines are ignored, runs of blanks count as one.
// Stricter than Extra-P where it would silently misread: a block must have exactly as many DATA
// lines as there are points (or none), and POINTS may not follow DATA.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <istream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "modeler/io/read_common.h"

namespace ompscale::modeler::io_detail {

namespace {

// Splits at runs of blanks.
std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t pos = 0;
  while (true) {
    pos = text.find_first_not_of(" \t\v\f", pos);
    if (pos == std::string_view::npos) break;
    const std::size_t end = std::min(text.find_first_of(" \t\v\f", pos), text.size());
    words.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return words;
}

// A region or metric name as Extra-P stores it: trimmed, blank runs collapsed to one space.
std::string normalized_name(std::string_view text) {
  std::string name;
  for (const std::string_view word : split_words(text)) {
    if (!name.empty()) name += ' ';
    name += word;
  }
  return name;
}

class TextReader {
 public:
  explicit TextReader(const std::string& file) : file_(file), collector_(file, 2) {}

  void read_line(std::string_view line_text, std::size_t line) {
    line_ = line;
    const std::string_view text = trim(line_text);
    if (text.empty() || text.front() == '#') return;
    const std::size_t keyword_end = std::min(text.find_first_of(" \t\v\f"), text.size());
    const std::string_view keyword = text.substr(0, keyword_end);
    const std::string_view rest = trim(text.substr(keyword_end));
    if (keyword == "PARAMETER") {
      on_parameter(rest);
    } else if (keyword == "POINTS") {
      on_points(rest);
    } else if (keyword == "REGION") {
      close_block();
      callpath_ = require_name(keyword, rest);
    } else if (keyword == "METRIC") {
      close_block();
      metric_ = require_name(keyword, rest);
    } else if (keyword == "DATA") {
      on_data(rest);
    } else {
      fail(
          fmt::format("unknown keyword {:?}; Extra-P text lines start with PARAMETER, POINTS, "
                      "REGION, METRIC, DATA or #",
                      std::string(keyword)));
    }
  }

  Dataset finish() {
    close_block();
    if (parameters_.empty()) throw InputError(file_, 0, "no PARAMETER line");
    if (collector_.kernel_count() == 0) throw InputError(file_, 0, "no DATA lines");
    return collector_.finish({"callpath", "metric"});
  }

 private:
  [[noreturn]] void fail(const std::string& cause) const { throw InputError(file_, line_, cause); }

  std::string require_name(std::string_view keyword, std::string_view rest) const {
    if (rest.empty()) fail(fmt::format("{} needs a name", keyword));
    return normalized_name(rest);
  }

  void on_parameter(std::string_view rest) {
    if (!points_.empty()) fail("PARAMETER after POINTS; declare all parameters first");
    const auto names = split_words(rest);
    if (names.empty()) fail("PARAMETER needs a name");
    for (const std::string_view name : names) {
      if (std::find(parameters_.begin(), parameters_.end(), name) != parameters_.end()) {
        fail(fmt::format("parameter {:?} declared twice", std::string(name)));
      }
      parameters_.emplace_back(name);
    }
    collector_.set_parameters(parameters_);
  }

  // Points are numbers, each optionally in parentheses: "(4) (8)", "( 4 )( 8 )" and "4 8" are the
  // same. With several parameters every point is a parenthesized group of one value each.
  void on_points(std::string_view rest) {
    if (parameters_.empty()) fail("POINTS before PARAMETER; declare the parameter first");
    if (data_seen_) fail("POINTS after DATA lines; list all points before the first DATA line");
    if (rest.empty()) fail("POINTS needs at least one value");
    std::size_t pos = 0;
    while (pos < rest.size()) {
      const char c = rest[pos];
      if (c == ' ' || c == '\t' || c == '\v' || c == '\f') {
        ++pos;
      } else if (c == '(') {
        const std::size_t close = rest.find(')', pos);
        if (close == std::string_view::npos) fail("POINTS has a '(' without ')'");
        add_point(split_words(rest.substr(pos + 1, close - pos - 1)));
        pos = close + 1;
      } else if (c == ')') {
        fail("POINTS has a ')' without '('");
      } else {
        const std::size_t end = std::min(rest.find_first_of(" \t\v\f()", pos), rest.size());
        add_point({rest.substr(pos, end - pos)});
        pos = end;
      }
    }
  }

  void add_point(const std::vector<std::string_view>& values) {
    if (values.size() != parameters_.size()) {
      fail(fmt::format("POINTS has the point ({}) with {} value(s); the parameters {} need {}",
                       fmt::join(values, " "), values.size(), fmt::join(parameters_, ", "),
                       parameters_.size()));
    }
    for (std::size_t p = 0; p < values.size(); ++p) {
      points_.push_back(parse_param(values[p], parameters_[p], file_, line_));
    }
  }

  void on_data(std::string_view rest) {
    if (parameters_.empty()) fail("DATA before PARAMETER");
    if (points_.empty()) fail("DATA before POINTS");
    const std::size_t dimensions = parameters_.size();
    const std::size_t point_count = points_.size() / dimensions;
    if (block_data_lines_ == point_count) {
      fail(fmt::format("more DATA lines than the {} POINTS for region {:?}, metric {:?}",
                       point_count, callpath_, metric_));
    }
    const auto tokens = split_words(rest);
    if (tokens.empty()) fail("DATA needs at least one value");
    if (block_data_lines_ == 0) {
      const std::array<std::string_view, 2> key{callpath_, metric_};
      block_kernel_ = collector_.kernel(key, line_);
    }
    const std::span<const double> point =
        std::span<const double>(points_).subspan(block_data_lines_ * dimensions, dimensions);
    for (const std::string_view token : tokens) {
      const double value = parse_value(token, "DATA value", file_, line_);
      if (dimensions == 1) {
        collector_.add(block_kernel_, point[0], value);
      } else {
        collector_.add(block_kernel_, point, value);
      }
    }
    ++block_data_lines_;
    last_data_line_ = line_;
    data_seen_ = true;
  }

  // A REGION, METRIC or the end of the file ends the DATA lines of the block before it. A block
  // without DATA is fine (REGION directly followed by METRIC); a partial one is not.
  void close_block() {
    const std::size_t point_count = points_.size() / std::max<std::size_t>(parameters_.size(), 1);
    if (block_data_lines_ != 0 && block_data_lines_ != point_count) {
      throw InputError(file_, last_data_line_,
                       fmt::format("{} DATA lines for the {} POINTS in region {:?}, metric {:?}; "
                                   "give one DATA line per point",
                                   block_data_lines_, point_count, callpath_, metric_));
    }
    block_data_lines_ = 0;
  }

  const std::string& file_;
  KernelCollector collector_;
  std::size_t line_ = 0;
  std::vector<std::string> parameters_;
  std::vector<double> points_;  // one value per parameter, point after point
  std::string callpath_;        // Extra-P's defaults before the first REGION / METRIC
  std::string metric_;
  bool data_seen_ = false;
  std::size_t block_data_lines_ = 0;
  std::size_t block_kernel_ = 0;
  std::size_t last_data_line_ = 0;
};

}  // namespace

Dataset read_extrap_text(std::string_view content, const std::string& file) {
  TextReader reader(file);
  std::size_t line = 1;
  std::size_t pos = 0;
  while (pos < content.size()) {
    const std::size_t end = std::min(content.find('\n', pos), content.size());
    reader.read_line(content.substr(pos, end - pos), line);
    pos = end + 1;
    ++line;
  }
  return reader.finish();
}

Dataset read_extrap_text(std::istream& in, const std::string& file) {
  TextReader reader(file);
  std::string text;
  for (std::size_t line = 1; std::getline(in, text); ++line) {
    if (line == 1 && text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);  // UTF-8 byte order mark
    reader.read_line(text, line);
  }
  if (in.bad()) throw InputError(file, 0, "read error");
  return reader.finish();
}

}  // namespace ompscale::modeler::io_detail
