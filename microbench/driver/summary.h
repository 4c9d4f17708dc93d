#pragma once
// `ompbench summary FILE`: the statistics EPCC prints per benchmark, for every configuration and
// metric of a results file: sample size, mean, median, min, max, standard deviation, the 95%
// confidence interval of the mean (Student t) and outliers (values more than 3 standard
// deviations from the mean, EPCC's rule), plus the invalid values the file keeps.

#include <cstddef>
#include <string>

namespace ompscale::microbench {

struct SummaryOptions {
  std::string format = "text";   // "text" or "csv"
  bool include_invalid = false;  // summarise valid=0 values too
  /// Columns the text table must fit (a terminal's width; 0: no limit): wider, each
  /// configuration's name goes on a line of its own above the rows of its thread counts.
  std::size_t width = 0;
};

/// The summary of the results CSV `text` (named `file` in errors). Throws InputError for a file
/// that is not a results file.
std::string summarize_results(const std::string& text, const std::string& file,
                              const SummaryOptions& options);

}  // namespace ompscale::microbench
