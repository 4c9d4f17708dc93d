#pragma once
// What `ompdash regressions` reports: findings (a regression of a run against its history, a step
// or drift across the history, a changed scaling model, a run in an unusual canary phase), and
// each judged kernel's noise floor. Text and JSON forms.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ompscale::dashboard {

struct SeriesInfo;

enum class FindingKind {
  kRegression,       ///< a run's cost above its history (rank test and noise floor)
  kImprovement,      ///< a run's cost below its history
  kStep,             ///< a change point across the history
  kDrift,            ///< consecutive change points of one direction over a ramp
  kGrowthChange,     ///< the model's growth class changed (e.g. logarithmic -> linear)
  kOutsideInterval,  ///< the largest thread count's value outside the previous model's interval
  kBudgetMoved,      ///< the "too many threads" count moved outside its previous interval
  kUnusualPhase,     ///< a run measured in an unusual canary phase: not judged
  kFasterState,      ///< a run measured in a faster state than the typical one: judged within it
};

std::string_view to_string(FindingKind kind);
/// The kind named `name` by to_string(); std::invalid_argument for another name.
FindingKind finding_kind(std::string_view name);

/// What an A/B re-measurement of a finding's kernel said (dashboard/confirm/ab_test.h): the old
/// and the new runtime build measured round by round in one run, so that the comparison's noise is
/// that of one run, not of a night.
struct Confirmation {
  std::int64_t ab_test = 0;
  std::string date;     ///< when the A/B ran
  std::string verdict;  ///< "slower", "faster", "unchanged" (within the threshold), "inconclusive"
  double change = 0.0;  ///< new / old - 1 (geometric mean over the round pairs)
  double low = 0.0, high = 0.0;  ///< its confidence interval
  double detectable = 0.0;       ///< the smallest change this A/B detects (80% of the time)
  std::size_t pairs = 0;         ///< round pairs used
  std::size_t dropped = 0;       ///< round pairs measured in different machine states
  std::string old_build, new_build;

  /// "confirmed: +12.3% [+8.1%, +16.5%] over 10 round pairs" and the like, for a finding that is
  /// `worse` (a regression) or not.
  std::string describe(bool worse) const;
};

struct Finding {
  FindingKind kind = FindingKind::kRegression;
  bool worse = false;     ///< a regression (counts for --fail-on-regression)
  double severity = 0.0;  ///< how far beyond its threshold, for ordering
  std::int64_t series = 0;
  std::string kernel;  ///< "construct=barrier method=direct ..."
  std::string construct, runtime, platform, metric, unit;
  int threads = 0;  ///< 0 for findings about a whole model or run
  std::string thread_class;
  std::int64_t model_set = 0;       ///< the model set a model finding is about (0: none)
  std::string run_id, date, label;  ///< the run it is dated to
  std::string until;                ///< a drift's last date
  double before = 0.0;              ///< level before (cost, or thread count for a budget)
  double after = 0.0;               ///< level after
  double change = 0.0;              ///< after / before - 1
  double noise_floor = 0.0;         ///< the smallest detectable change there (NaN: unknown)
  double threshold = 0.0;           ///< the change it had to exceed
  double p_value = 1.0;             ///< corrected for the number of comparisons (NaN: none)
  std::string detail;               ///< one sentence for people
  /// The latest A/B of its kernel and thread count against the run it is dated to, if any.
  std::optional<Confirmation> confirmation;

  /// An A/B measured the change in the finding's direction, beyond the threshold.
  bool confirmed() const;
  /// A regression that fails the night (--fail-on-regression): one its A/B confirmed, or one no
  /// A/B measured again (none kept a previous build, or none was made); not one an A/B measured
  /// unchanged, nor an inconclusive one (the machine changed state in most of its rounds).
  bool failing() const;
};

/// One judged kernel and thread count: its noise floor now, the one its latest run is judged with
/// (the kernel's history before it, its group's as of that night).
struct KernelNoise {
  std::int64_t series = 0;
  std::string kernel, construct, runtime, platform;
  int threads = 0;
  std::size_t runs = 0;  ///< normal-phase runs in its history
  double sigma = 0.0;    ///< night-to-night sd of the log median
  double floor = 0.0;    ///< smallest detectable relative change
};

struct RegressionReport {
  std::string since;              ///< findings dated on or after this
  std::size_t tests = 0;          ///< run-against-history comparisons made
  std::size_t histories = 0;      ///< kernel x thread count histories searched for change points
  std::vector<Finding> findings;  ///< regressions first, most severe first
  std::vector<KernelNoise> noise;

  std::size_t regressions() const;
  /// Regressions that fail the night (Finding::failing).
  std::size_t failing() const;
};

/// A finding of `kind` about series `s`: its id, description and common key columns filled in.
Finding finding_about(const SeriesInfo& s, FindingKind kind);

/// The report for people, fitting `width` columns (0: no limit, one line per finding).
std::string format_findings_text(const RegressionReport& report, std::size_t width = 0);
std::string format_findings_json(const RegressionReport& report);
/// Every judged kernel's noise floor, one line each (its kernel on a line of its own when the
/// lines would be wider than `width`).
std::string format_noise_text(const RegressionReport& report, std::size_t width = 0);

}  // namespace ompscale::dashboard
