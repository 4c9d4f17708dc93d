#pragma once
// Descriptive statistics over small samples (repetitions of one measurement). One implementation
// of each, used by every module.

#include <cstddef>
#include <span>
#include <vector>

namespace ompscale::stats {

double mean(std::span<const double> x);
double min(std::span<const double> x);
double max(std::span<const double> x);
/// Median; averages the two middle values of an even-sized sample.
double median(std::span<const double> x);
/// Sample standard deviation (n - 1 in the denominator); 0 for fewer than two values.
double stddev(std::span<const double> x);
/// Quantile with linear interpolation between order statistics (R's type 7, numpy's default).
/// `q` in [0, 1].
double quantile(std::span<const double> x, double q);
/// Mean after dropping the `fraction` smallest and `fraction` largest values (rounded down, at
/// least one value kept). fraction = 0.25 is the filter of the "too many threads" paper.
double trimmed_mean(std::span<const double> x, double fraction = 0.25);
/// A standard deviation that one outlying value does not move: 1.4826 times the median absolute
/// deviation from the median (equal to the standard deviation for normal samples); 0 for fewer
/// than two values.
double robust_stddev(std::span<const double> x);
/// The standard error of the median of `n` values of standard deviation `sigma`: 1.2533 sigma /
/// sqrt(n) (normal values: the median is that much less efficient than the mean); 0 for n = 0.
double median_standard_error(double sigma, std::size_t n);
/// stddev / |mean|; 0 when the mean is 0 or there is one value.
double coefficient_of_variation(std::span<const double> x);

/// Sorted copy, for callers that need several order statistics.
std::vector<double> sorted(std::span<const double> x);

/// A range of values.
struct Interval {
  double low = 0.0, high = 0.0;
};

/// The central `level` interval of quantile(a, q) - quantile(b, q) over `replicates` paired
/// bootstrap resamples (the same indices drawn from both: a[i] and b[i] measure one thing two
/// ways), seeded for a repeatable answer: how far apart two ways' medians or p90s may lie by
/// the luck of which points were measured. With `groups` (one id per element), whole groups
/// are drawn (a cluster bootstrap: elements of one group are not independent). {NaN, NaN} when
/// the samples are empty or differ in size, `groups` in size, or `replicates` is below 1.
Interval paired_bootstrap_difference(std::span<const double> a, std::span<const double> b, double q,
                                     std::span<const std::size_t> groups = {}, double level = 0.9,
                                     int replicates = 1000, unsigned seed = 1);

/// The central `level` interval of mean(x) over `replicates` bootstrap resamples, seeded: how
/// far a share (x of 0 and 1) or a mean may lie by the luck of which points were measured. With
/// `groups`, whole groups are drawn (a cluster bootstrap). {NaN, NaN} when `x` is empty,
/// `groups` differs in size, or `replicates` is below 1.
Interval bootstrap_mean(std::span<const double> x, std::span<const std::size_t> groups = {},
                        double level = 0.9, int replicates = 1000, unsigned seed = 1);

}  // namespace ompscale::stats
