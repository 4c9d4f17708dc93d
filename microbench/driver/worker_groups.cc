#include "microbench/driver/worker_groups.h"

#include <map>
#include <utility>

namespace ompscale::microbench {

std::vector<WorkerGroup> group_by_worker(const Plan& plan,
                                         const std::vector<std::size_t>& pending) {
  std::map<std::pair<int, int>, std::vector<std::size_t>> by_worker;
  for (std::size_t index : pending) {
    const Config& config = plan.configs[index];
    by_worker[{config.setting, config.threads}].push_back(index);
  }
  std::vector<WorkerGroup> groups;
  for (auto& [key, members] : by_worker)
    groups.push_back({key.first, key.second, std::move(members)});
  return groups;
}

}  // namespace ompscale::microbench
