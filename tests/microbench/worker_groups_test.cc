#include "microbench/driver/worker_groups.h"

#include <gtest/gtest.h>

#include <numeric>
#include <set>
#include <utility>

namespace ompscale::microbench {
namespace {

Plan four_settings_three_team_sizes() {
  RunOptions options;
  options.threads = "1,2,4";
  options.binds = {"spread", "close"};
  options.constructs = {"barrier", "parallel"};
  options.method = "both";
  return make_plan(options, /*llvm_available=*/true, /*hardware_threads=*/4);
}

// Each worker process sees one setting and one team size: a process that alternated team sizes
// had its measurements disturbed by the runtime's threads of the other size (worker_groups.h).
TEST(WorkerGroups, OneSettingAndOneTeamSizePerWorker) {
  const Plan plan = four_settings_three_team_sizes();
  std::vector<std::size_t> all(plan.configs.size());
  std::iota(all.begin(), all.end(), 0);
  const std::vector<WorkerGroup> groups = group_by_worker(plan, all);
  ASSERT_EQ(groups.size(), 4u * 3u);
  std::set<std::pair<int, int>> seen;
  std::size_t members = 0;
  for (const WorkerGroup& group : groups) {
    EXPECT_TRUE(seen.insert({group.setting, group.threads}).second);
    ASSERT_EQ(group.members.size(), 2u * 2u);  // two constructs, two methods
    for (std::size_t index : group.members) {
      EXPECT_EQ(plan.configs[index].setting, group.setting);
      EXPECT_EQ(plan.configs[index].threads, group.threads);
    }
    members += group.members.size();
  }
  EXPECT_EQ(members, plan.configs.size());
}

TEST(WorkerGroups, OnlyThePendingConfigurations) {
  const Plan plan = four_settings_three_team_sizes();
  const std::vector<std::size_t> pending = {plan.configs.size() - 1, 0};
  const std::vector<WorkerGroup> groups = group_by_worker(plan, pending);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].members, std::vector<std::size_t>{0});
  EXPECT_EQ(groups[1].members, std::vector<std::size_t>{plan.configs.size() - 1});
  EXPECT_TRUE(group_by_worker(plan, {}).empty());
}

}  // namespace
}  // namespace ompscale::microbench
