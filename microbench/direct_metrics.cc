#include "microbench/direct_metrics.h"

#include <algorithm>
#include <numeric>

namespace ompscale::microbench {

TeamCreatingMetrics team_creating_metrics(std::span<const double> first,
                                          std::span<const double> end, double after,
                                          double tolerance) {
  const double threads = static_cast<double>(first.size());
  TeamCreatingMetrics m;
  m.fork_avg = std::accumulate(first.begin(), first.end(), 0.0) / threads;
  m.fork_max = *std::max_element(first.begin(), first.end());
  m.min_cost = *std::min_element(end.begin(), end.end());
  m.max_cost = *std::max_element(end.begin(), end.end());
  m.avg_cost = std::accumulate(end.begin(), end.end(), 0.0) / threads;
  m.total = after;
  m.join = after - m.max_cost;
  const double earliest = std::min(*std::min_element(first.begin(), first.end()), m.min_cost);
  m.consistent = earliest >= -tolerance && m.max_cost <= after + tolerance;
  return m;
}

}  // namespace ompscale::microbench
