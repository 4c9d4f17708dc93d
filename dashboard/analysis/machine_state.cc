#include "dashboard/analysis/machine_state.h"

#include <fmt/format.h>

#include <cmath>

#include "common/statistics.h"

namespace ompscale::dashboard {

bool same_state(double a_ns, double b_ns, double factor) {
  if (!(a_ns > 0) || !(b_ns > 0)) return true;
  return a_ns <= factor * b_ns && b_ns <= factor * a_ns;
}

std::map<std::int64_t, RunState> run_states(const std::vector<RunInfo>& runs, double factor) {
  std::map<std::string, std::vector<double>> canaries;  // platform and host -> round trips
  const auto machine = [](const RunInfo& r) { return r.platform + '\x1f' + r.host; };
  for (const RunInfo& r : runs) {
    if (r.canary_median_ns > 0) canaries[machine(r)].push_back(r.canary_median_ns);
  }
  std::map<std::int64_t, RunState> out;
  for (const RunInfo& r : runs) {
    RunState s;
    s.canary_ns = r.canary_median_ns;
    if (r.unusual_phase) {
      s.unusual = true;
      s.note = r.phase_note;
    } else if (const auto it = canaries.find(machine(r)); it != canaries.end()) {
      const double typical = stats::median(it->second);
      if (!same_state(r.canary_median_ns, typical, factor)) {
        s.unusual = r.canary_median_ns > typical;
        s.faster = !s.unusual;
        s.note = fmt::format(
            "round trip {:.0f} ns against this machine's typical {:.0f} ns over {} "
            "runs of the history",
            r.canary_median_ns, typical, it->second.size());
      }
    }
    out.emplace(r.id, std::move(s));
  }
  return out;
}

}  // namespace ompscale::dashboard
