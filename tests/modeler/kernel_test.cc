#include "modeler/core/kernel.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/error.h"

namespace ompscale::modeler {
namespace {

TEST(Kernel, GroupsSamplesByParameterInOrder) {
  const Kernel k =
      Kernel::from_samples({"barrier", "us"}, {{4, 1.0}, {2, 2.0}, {4, 3.0}, {2, 4.0}});
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k.param(0), 2.0);
  EXPECT_EQ(k.param(1), 4.0);
  EXPECT_EQ(std::vector<double>(k.repetitions(0).begin(), k.repetitions(0).end()),
            (std::vector<double>{2.0, 4.0}));
  EXPECT_EQ(std::vector<double>(k.repetitions(1).begin(), k.repetitions(1).end()),
            (std::vector<double>{1.0, 3.0}));
  EXPECT_EQ(k.sample_count(), 4u);
  EXPECT_EQ(k.key_value(0), "barrier");
  EXPECT_EQ(k.key_value(1), "us");
}

TEST(Dataset, AppendPoolsRepetitionsOfTheSameKernel) {
  Dataset a;
  a.key_columns = {"construct"};
  a.kernels.push_back(Kernel::from_samples({"barrier"}, {{2, 1.0}, {4, 2.0}}));
  a.skipped_invalid = 1;
  Dataset b;
  b.key_columns = {"construct"};
  b.kernels.push_back(Kernel::from_samples({"single"}, {{2, 5.0}}));
  b.kernels.push_back(Kernel::from_samples({"barrier"}, {{2, 1.5}, {8, 3.0}}));
  b.skipped_invalid = 2;
  a.append(std::move(b));
  ASSERT_EQ(a.kernels.size(), 2u);
  const Kernel& barrier = a.kernels[0];
  EXPECT_EQ(barrier.key_value(0), "barrier");
  ASSERT_EQ(barrier.size(), 3u);
  EXPECT_EQ(barrier.repetitions(0).size(), 2u);  // t = 2 from both files
  EXPECT_EQ(barrier.param(2), 8.0);
  EXPECT_EQ(a.kernels[1].key_value(0), "single");
  EXPECT_EQ(a.skipped_invalid, 3u);
}

Dataset one_kernel(std::string parameter, std::vector<std::string> key_columns) {
  Dataset d{std::move(parameter), std::move(key_columns), {}, {}, 0, {}, {}};
  d.kernels.push_back(Kernel::from_samples({"barrier"}, {{2, 1.0}}));
  return d;
}

TEST(Dataset, AppendRefusesDifferentParametersOrKeys) {
  Dataset a = one_kernel("t", {"construct"});
  EXPECT_THROW(a.append(one_kernel("x", {"construct"})), UsageError);
  EXPECT_THROW(a.append(one_kernel("t", {"callpath"})), UsageError);
}

}  // namespace
}  // namespace ompscale::modeler
