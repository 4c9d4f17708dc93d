#include "dashboard/analysis/order_statistics.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ompscale::dashboard {

void RunningMedian::add(double value) {
  if (lower_.empty() || value <= lower_.top()) {
    lower_.push(value);
  } else {
    upper_.push(value);
  }
  // Keep the halves balanced: lower_ holds the middle value of an odd count.
  if (lower_.size() > upper_.size() + 1) {
    upper_.push(lower_.top());
    lower_.pop();
  } else if (upper_.size() > lower_.size()) {
    lower_.push(upper_.top());
    upper_.pop();
  }
}

double RunningMedian::median() const {
  if (lower_.empty()) return std::nan("");
  if (lower_.size() > upper_.size()) return lower_.top();
  const double low = lower_.top(), high = upper_.top();
  return low + 0.5 * (high - low);
}

namespace {

// Fixed point in units of 2^-80: weights below 1e8 in magnitude, a million of them, fit in 128
// bits.
constexpr int kFraction = 80;
constexpr double kLargest = 1e8;

}  // namespace

RankedSums::Exact RankedSums::exact(double weight) {
  if (!(std::fabs(weight) < kLargest)) {
    throw std::logic_error("RankedSums: a weight beyond what its fixed point holds");
  }
  return static_cast<Exact>(std::nearbyint(std::ldexp(weight, kFraction)));
}

double RankedSums::inexact(Exact sum) {
  return std::ldexp(static_cast<double>(sum), -kFraction);
}

RankedSums::RankedSums(std::span<const double> universe)
    : values_(universe.begin(), universe.end()) {
  std::sort(values_.begin(), values_.end());
  values_.erase(std::unique(values_.begin(), values_.end()), values_.end());
  counts_.assign(values_.size() + 1, 0);
  weights_.assign(values_.size() + 1, 0);
}

void RankedSums::update(double value, std::ptrdiff_t count, Exact weight) {
  const auto it = std::lower_bound(values_.begin(), values_.end(), value);
  if (it == values_.end() || *it != value) {
    throw std::logic_error("RankedSums: a value outside the universe it was made for");
  }
  for (std::size_t i = static_cast<std::size_t>(it - values_.begin()) + 1; i < counts_.size();
       i += i & (~i + 1)) {
    counts_[i] += count;
    weights_[i] += weight;
  }
  count_ = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(count_) + count);
  weight_ += weight;
}

void RankedSums::add(double value, double weight) {
  update(value, 1, exact(weight));
}

void RankedSums::remove(double value, double weight) {
  update(value, -1, -exact(weight));
}

std::size_t RankedSums::slots_at_most(double bound) const {
  return static_cast<std::size_t>(std::upper_bound(values_.begin(), values_.end(), bound) -
                                  values_.begin());
}

std::size_t RankedSums::count_at_most(double bound) const {
  std::ptrdiff_t sum = 0;
  for (std::size_t i = slots_at_most(bound); i > 0; i -= i & (~i + 1)) sum += counts_[i];
  return static_cast<std::size_t>(sum);
}

double RankedSums::weight_at_most(double bound) const {
  Exact sum = 0;
  for (std::size_t i = slots_at_most(bound); i > 0; i -= i & (~i + 1)) sum += weights_[i];
  return inexact(sum);
}

double RankedSums::distance_sum(double value) const {
  const double below = static_cast<double>(count_at_most(value));
  const double below_sum = weight_at_most(value);
  const double above = static_cast<double>(count_) - below;
  return (value * below - below_sum) + ((weight() - below_sum) - value * above);
}

}  // namespace ompscale::dashboard
