#pragma once
// The results CSV as a sweep writes it: created with its header, or resumed. Batches are
// appended with one write each, so a row is either fully in the file or absent; a write that
// fails half way is cut back to the previous end of the file.

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace ompscale::microbench {

class ResultsFile {
 public:
  /// Opens `path` ("" or "-" = stdout) for appending. An existing non-empty file must start with
  /// results_header() (else InputError naming the file and line 1); a last line without its line
  /// end (a write cut short by a crash) is removed and reported in `warnings`. Existing rows are
  /// counted per configuration for resume.
  static ResultsFile open(const std::string& path, std::vector<std::string>& warnings);

  ResultsFile(ResultsFile&&) noexcept;
  ResultsFile& operator=(ResultsFile&&) = delete;
  ~ResultsFile();

  /// Appends complete rows (each ending in "\n"). Throws std::runtime_error when the write
  /// fails; the file then holds exactly what it held before the call.
  void append(const std::string& rows);

  /// Valid values of `metric` the file already holds for a configuration (config_key()).
  int valid_values(const std::string& key, const std::string& metric) const;
  /// The repetition number a new value of the configuration should get (one past the largest).
  int next_rep(const std::string& key) const;
  bool is_stdout() const { return fd_ == 1; }
  const std::string& path() const { return path_; }
  /// Rows the file held when it was opened.
  long existing_rows() const { return existing_rows_; }

 private:
  explicit ResultsFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
  int fd_ = -1;
  long existing_rows_ = 0;
  std::map<std::string, int> valid_;  // key + '\x1e' + metric -> count
  std::map<std::string, int> next_rep_;
};

}  // namespace ompscale::microbench
