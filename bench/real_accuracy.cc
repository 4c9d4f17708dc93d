// Accuracy of extrapolation on real measurements: fit on the smaller thread counts, predict the
// measured medians at the larger ones.
//
//   build/bench/real_accuracy [DIR...] [--verbose]
//
// Every CSV file in the DIRs (default: data/reference, data/real and data/xeon-emr-16, those that
// exist), also xz-compressed (*.csv.xz, through `xz -dc`), is read as `modeler fit FILE`
// reads it; of an ompbench sweep only each configuration's primary metric is scored (avg_cost of
// the direct method, overhead of EPCC), not the metrics derived from the same stamps.
// For every kernel two training sets are tried: the first 60% of its thread counts ("first 60%"),
// and the powers of two among those ("po2"); the test points are the thread counts above the
// first 60%. Per file and training set the table prints, for the default preset and for
// `--preset extrap`: the median and 90th-percentile relative error of the predictions against
// the measured medians, and (default preset only: Extra-P gives no interval) the share of
// measured medians inside the 90% prediction interval; a third row per file pools its two
// training sets. The last rows pool every file.
// Test points whose measured median is 0 have no relative error and are left out (counted).

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/statistics.h"
#include "modeler/fit.h"
#include "modeler/io/readers.h"

using namespace ompscale;
using namespace ompscale::modeler;

namespace {

constexpr double kTrainingShare = 0.6;
constexpr double kLevel = 0.9;

/// Errors and interval hits of one preset over some predictions.
struct Score {
  std::vector<double> errors;
  std::size_t inside = 0;

  void add(const Score& other) {
    errors.insert(errors.end(), other.errors.begin(), other.errors.end());
    inside += other.inside;
  }
  /// "median p90 coverage", the coverage only `with_interval`.
  std::string describe(bool with_interval) const {
    if (errors.empty()) return with_interval ? "       -        -        -" : "       -        -";
    std::string out = fmt::format("{:7.2f}% {:7.2f}%", 100.0 * stats::median(errors),
                                  100.0 * stats::quantile(errors, 0.9));
    if (with_interval) {
      out += fmt::format(" {:7.1f}%",
                         100.0 * static_cast<double>(inside) / static_cast<double>(errors.size()));
    }
    return out;
  }
};

struct Row {
  Score ours, extrap;
  std::size_t kernels = 0, zero_medians = 0;

  void add(const Row& other) {
    ours.add(other.ours);
    extrap.add(other.extrap);
    kernels += other.kernels;
    zero_medians += other.zero_medians;
  }
};

enum class Split { kFirst = 0, kPo2 = 1 };

bool is_power_of_two(double t) {
  return t >= 1.0 && t == std::round(t) && (static_cast<long>(t) & (static_cast<long>(t) - 1)) == 0;
}

/// The kernel restricted to the points `keep` says yes to.
template <typename Keep>
Kernel restricted(const Kernel& kernel, Keep keep) {
  std::vector<Sample> samples;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    if (!keep(i)) continue;
    for (double v : kernel.repetitions(i)) samples.push_back({kernel.param(i), v});
  }
  return Kernel::from_samples({}, std::move(samples));
}

/// Predicts the kernel's test points with one preset, adding errors and interval hits to `score`.
void score_preset(const Kernel& training, const std::vector<double>& test_t,
                  const std::vector<double>& measured, ModelerOptions options, Score& score,
                  std::string& model) {
  options.predict_at = test_t;
  options.confidence = kLevel;
  options.threads = 1;
  const KernelResult result = fit_kernel(training, options);
  const ClassModel& m = result.models.front();
  model = m.model.to_string("t", 3);
  for (std::size_t i = 0; i < test_t.size(); ++i) {
    const Prediction& p = m.predictions[i];
    score.errors.push_back(std::fabs(p.value - measured[i]) / std::fabs(measured[i]));
    if (measured[i] >= p.interval.low && measured[i] <= p.interval.high) ++score.inside;
  }
}

Row evaluate_kernel(const Dataset& data, const Kernel& kernel, Split split,
                    const ModelerOptions& ours, bool verbose) {
  Row row;
  const auto n = kernel.size();
  const auto first = static_cast<std::size_t>(std::lround(kTrainingShare * static_cast<double>(n)));
  const Kernel training = restricted(kernel, [&](std::size_t i) {
    return i < first && (split == Split::kFirst || is_power_of_two(kernel.param(i)));
  });
  if (training.size() < 3 || first >= n) return row;
  std::vector<double> test_t, measured;
  for (std::size_t i = first; i < n; ++i) {
    const double median = stats::median(kernel.repetitions(i));
    if (median == 0.0) {
      ++row.zero_medians;
      continue;
    }
    test_t.push_back(kernel.param(i));
    measured.push_back(median);
  }
  if (test_t.empty()) return row;
  row.kernels = 1;
  std::string ours_model, extrap_model;
  score_preset(training, test_t, measured, ours, row.ours, ours_model);
  score_preset(training, test_t, measured, ModelerOptions::extrap(), row.extrap, extrap_model);
  if (verbose) {
    std::printf("  %-40s %-6s ours %6.1f%% in %zu/%zu extrap %6.1f%%  %s | %s\n",
                data.describe(kernel).c_str(), split == Split::kFirst ? "first" : "po2",
                100.0 * stats::median(row.ours.errors), row.ours.inside, row.ours.errors.size(),
                100.0 * stats::median(row.extrap.errors), ours_model.c_str(), extrap_model.c_str());
  }
  return row;
}

bool is_compressed(const std::filesystem::path& file) {
  return file.string().ends_with(".csv.xz");
}

/// The CSV files in `dir` (plain or xz-compressed), sorted; none when it is not a directory.
std::optional<std::vector<std::filesystem::path>> csv_files(const std::string& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) return std::nullopt;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".csv" || is_compressed(entry.path()))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// `xz -dc FILE`'s output; throws when xz fails.
std::string decompressed(const std::filesystem::path& file) {
  const std::string command = "xz -dc '" + file.string() + "'";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::string text;
  char buffer[1 << 16];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
  if (pclose(pipe) != 0) throw std::runtime_error(command + " failed (is xz-utils installed?)");
  return text;
}

/// An ompbench sweep keeps only its primary metrics; other inputs are kept whole.
void keep_primary_metrics(Dataset& data) {
  const auto column = std::find(data.key_columns.begin(), data.key_columns.end(), "metric");
  if (column == data.key_columns.end()) return;
  const auto index = static_cast<std::size_t>(column - data.key_columns.begin());
  std::erase_if(data.kernels, [&](const Kernel& kernel) {
    const std::string_view metric = kernel.key_value(index);
    return metric != "avg_cost" && metric != "overhead";
  });
}

std::optional<Dataset> read(const std::filesystem::path& file) {
  try {
    Dataset data = is_compressed(file)
                       ? parse_dataset(decompressed(file), file.filename().string(), {})
                       : read_dataset(file.string(), {});
    keep_primary_metrics(data);
    return data;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "real_accuracy: %s\n", e.what());
    return std::nullopt;
  }
}

Row evaluate_set(const Dataset& data, Split split, bool verbose) {
  const ModelerOptions options;  // the default preset, as `modeler fit FILE` uses it
  Row set;
  for (const Kernel& kernel : data.kernels) {
    set.add(evaluate_kernel(data, kernel, split, options, verbose));
  }
  return set;
}

void print_header() {
  std::printf("%-44s %-9s %7s %-26s   %s\n", "", "", "", "default preset", "--preset extrap");
  std::printf("%-44s %-9s %7s %8s %8s %8s   %8s %8s\n", "set", "training", "kernels", "median",
              "p90", "in 90%", "median", "p90");
}

void print_row(const std::string& name, const std::string& training, const Row& row) {
  std::printf("%-44s %-9s %7zu %s   %s\n", name.c_str(), training.c_str(), row.kernels,
              row.ours.describe(true).c_str(), row.extrap.describe(false).c_str());
}

void print_row(const std::string& name, Split split, const Row& row) {
  print_row(name, split == Split::kFirst ? "first 60%" : "po2", row);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> dirs;
  bool verbose = false;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--verbose") {
      verbose = true;
    } else if (arg.starts_with("-")) {
      std::fprintf(stderr, "usage: real_accuracy [DIR...] [--verbose]\n");
      return 2;
    } else {
      dirs.push_back(arg);
    }
  }
  if (dirs.empty()) dirs = {"data/reference", "data/real", "data/xeon-emr-16"};
  std::size_t sets = 0, zero_medians = 0;
  for (const std::string& dir : dirs) {
    const auto files = csv_files(dir);
    if (!files) {
      std::printf("(%s is not there: its sets are not measured)\n", dir.c_str());
      continue;
    }
    Row pooled[2];
    for (const auto& file : *files) {
      const auto data = read(file);
      if (!data) return 2;
      if (sets++ == 0) print_header();
      Row both;
      for (Split split : {Split::kFirst, Split::kPo2}) {
        const Row set = evaluate_set(*data, split, verbose);
        print_row(file.filename().string(), split, set);
        pooled[static_cast<int>(split)].add(set);
        both.add(set);
        zero_medians += set.zero_medians;
      }
      // One set's figures over both trainings: what "never below 70% on one set" reads.
      print_row(file.filename().string(), "both", both);
    }
    print_row("all of " + dir, Split::kFirst, pooled[0]);
    print_row("all of " + dir, Split::kPo2, pooled[1]);
    pooled[0].add(pooled[1]);
    print_row("all of " + dir, "both", pooled[0]);
  }
  if (sets == 0) {
    std::printf(
        "real_accuracy: no real measurement sets (*.csv): nothing measured (run it from the "
        "repository root, or name the directories)\n");
  }
  if (zero_medians > 0) {
    std::printf("(%zu test points with a measured median of 0 have no relative error: left out)\n",
                zero_medians);
  }
  return 0;
}
