#include "microbench/driver/results_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "common/csv.h"
#include "common/error.h"
#include "common/output_file.h"
#include "common/text.h"
#include "microbench/driver/plan.h"
#include "microbench/result_row.h"

namespace ompscale::microbench {

namespace {

// The largest repetition number a results file may hold: ompbench counts reps in an int.
constexpr long long kMaxRep = 1'000'000'000;

std::string strip_line_end(std::string header) {
  while (!header.empty() && (header.back() == '\n' || header.back() == '\r')) header.pop_back();
  return header;
}

}  // namespace

ResultsFile::ResultsFile(ResultsFile&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(other.fd_),
      existing_rows_(other.existing_rows_),
      valid_(std::move(other.valid_)),
      next_rep_(std::move(other.next_rep_)) {
  other.fd_ = -1;
}

ResultsFile::~ResultsFile() {
  if (fd_ > 2) close(fd_);
}

ResultsFile ResultsFile::open(const std::string& path, std::vector<std::string>& warnings) {
  const bool to_stdout = path.empty() || path == "-";
  ResultsFile file(to_stdout ? std::string("-") : path);
  if (to_stdout) {
    file.fd_ = 1;
    file.append(results_header());
    return file;
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    throw InputError(path, 0, fmt::format("cannot open for writing: {}", std::strerror(errno)));
  file.fd_ = fd;
  struct stat info {};
  fstat(fd, &info);
  if (info.st_size == 0) {
    file.append(results_header());
    return file;
  }

  std::string text = read_input(path);
  // A last line without "\n" was cut short (crash, full disk): it is not a row.
  if (!text.empty() && text.back() != '\n') {
    const std::size_t keep = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    const std::size_t line = static_cast<std::size_t>(std::count(
                                 text.begin(), text.begin() + static_cast<long>(keep), '\n')) +
                             1;
    if (keep == 0)
      throw InputError(path, 1,
                       "the file holds only part of a line; it is not a results file "
                       "(remove it or choose another -o)");
    if (ftruncate(fd, static_cast<off_t>(keep)) != 0)
      throw InputError(
          path, line,
          fmt::format("cannot remove an incomplete last line: {}", std::strerror(errno)));
    warnings.push_back(
        fmt::format("{}:{}: removed an incomplete last line (a write cut short)", path, line));
    text.resize(keep);
  }

  CsvReader reader(text, path);
  std::vector<std::string_view> fields;
  if (!reader.next(fields)) throw InputError(path, 1, "empty results file");
  std::string header;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) header += ',';
    header += fields[i];
  }
  if (header != strip_line_end(results_header()))
    throw InputError(path, 1,
                     "not a results file of this ompbench version (its header differs); write to "
                     "another file with -o, or move this one away");
  // Column positions, from the one header we accept.
  enum {
    kConstruct = 0,
    kMethod = 1,
    kMetric = 2,
    kThreads = 3,
    kBind = 5,
    kPlaces = 6,
    kRuntime = 7,
    kParamValue = 12,
    kRep = 13,
    kValid = 16,
    kColumns = 21
  };
  while (reader.next(fields)) {
    if (fields.size() != kColumns)
      throw InputError(path, reader.line(),
                       fmt::format("expected {} fields, found {}; the file was edited or corrupted",
                                   static_cast<int>(kColumns), fields.size()));
    ++file.existing_rows_;
    const std::string key = config_key(
        std::string(fields[kConstruct]), std::string(fields[kMethod]),
        std::string(fields[kThreads]), std::string(fields[kBind]), std::string(fields[kPlaces]),
        std::string(fields[kRuntime]), std::string(fields[kParamValue]));
    // Repetition numbers stay far below INT_MAX, so that the next one (rep + 1) is an int too.
    const std::optional<long long> rep = parse_integer(fields[kRep], 0, kMaxRep);
    if (!rep)
      throw InputError(path, reader.line(),
                       fmt::format("rep '{}' is not a repetition number from 0 to {}; the file "
                                   "was edited or corrupted",
                                   fields[kRep], kMaxRep));
    int& next = file.next_rep_[key];
    next = std::max(next, static_cast<int>(*rep) + 1);
    if (fields[kValid] == "1") ++file.valid_[key + '\x1e' + std::string(fields[kMetric])];
  }
  return file;
}

void ResultsFile::append(const std::string& rows) {
  if (rows.empty()) return;
  const off_t before = fd_ == 1 ? -1 : lseek(fd_, 0, SEEK_END);
  std::size_t done = 0;
  while (done < rows.size()) {
    const ssize_t n = write(fd_, rows.data() + done, rows.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string cause = std::strerror(errno);
      if (before >= 0 && ftruncate(fd_, before) != 0) {
        // Nothing more we can do; the reader drops the incomplete last line on resume.
      }
      throw std::runtime_error(fmt::format("{}: write failed: {}", path_, cause));
    }
    done += static_cast<std::size_t>(n);
  }
}

int ResultsFile::valid_values(const std::string& key, const std::string& metric) const {
  const auto it = valid_.find(key + '\x1e' + metric);
  return it == valid_.end() ? 0 : it->second;
}

int ResultsFile::next_rep(const std::string& key) const {
  const auto it = next_rep_.find(key);
  return it == next_rep_.end() ? 0 : it->second;
}

}  // namespace ompscale::microbench
