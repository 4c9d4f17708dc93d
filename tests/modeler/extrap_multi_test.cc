// `--preset extrap` with several parameters against the models Extra-P 4.2.5's default
// multi-parameter modeler prints for its own test inputs
// (tests/data/extrap/multi/expected_multi_parameter_models.tsv, a copy of the shared reference):
// same terms, coefficients to 1e-9 relative.

#include "modeler/multi/extrap_multi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/statistics.h"
#include "modeler/io/readers.h"
#include "modeler/multi/multi_model.h"
#include "tests/support/extrap_reference.h"

namespace ompscale::modeler {
namespace {

const std::filesystem::path kMultiDir = std::filesystem::path(OMPSCALE_TEST_DATA) / "extrap/multi";

using Expected = test_support::ExtrapReference;

std::vector<Expected> read_multi_references() {
  return test_support::read_extrap_reference(kMultiDir / "expected_multi_parameter_models.tsv");
}

std::vector<MultiPoint> mean_points(const Kernel& kernel) {
  std::vector<MultiPoint> points;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    MultiPoint point;
    for (std::size_t d = 0; d < kernel.dimensions(); ++d)
      point.x.push_back(kernel.coordinate(i, d));
    point.value = stats::mean(kernel.repetitions(i));
    points.push_back(point);
  }
  return points;
}

void expect_close(double actual, double expected, double relative, double absolute,
                  const std::string& what) {
  EXPECT_LE(std::fabs(actual - expected), std::max(relative * std::fabs(expected), absolute))
      << what << ": got " << actual << ", Extra-P " << expected;
}

/// The term of `model` with the same factors as `want`, or nullptr.
const MultiTerm* same_term(const MultiModel& model, const MultiTerm& want) {
  for (const MultiTerm& term : model.terms) {
    if (term.factors == want.factors) return &term;
  }
  return nullptr;
}

TEST(ExtrapMultiPreset, MatchesEveryReferenceModel) {
  const auto expected = read_multi_references();
  ASSERT_EQ(expected.size(), 10u);
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.file + " " + e.callpath + " " + e.metric);
    const Dataset data = read_dataset((kMultiDir / e.file).string(), {});
    ASSERT_GE(data.dimensions(), 2u);
    const auto kernel =
        std::find_if(data.kernels.begin(), data.kernels.end(), [&](const Kernel& k) {
          return k.key_value(0) == e.callpath && k.key_value(1) == e.metric;
        });
    ASSERT_NE(kernel, data.kernels.end());
    const MultiFit fit = fit_extrap_multi(mean_points(*kernel), ModelerOptions::extrap());
    const MultiModel want = parse_multi_model(e.model, data.parameter_names());
    const MultiModel& got = fit.model;
    ASSERT_EQ(got.terms.size(), want.terms.size()) << got.to_string(data.parameter_names());
    expect_close(got.constant, want.constant, 1e-9, 1e-12, "constant");
    for (const MultiTerm& term : want.terms) {
      const MultiTerm* match = same_term(got, term);
      ASSERT_NE(match, nullptr) << "missing term of " << e.model << " in "
                                << got.to_string(data.parameter_names());
      expect_close(match->coefficient, term.coefficient, 1e-9, 0.0, "coefficient");
    }
    expect_close(fit.stats.rss, e.rss, 1e-6, 1e-12, "RSS");
    expect_close(fit.stats.adjusted_r2, e.adj_r2, 1e-9, 1e-12, "adjusted R^2");
    expect_close(fit.stats.smape, e.smape, 1e-6, 1e-9, "SMAPE");
  }
}

}  // namespace
}  // namespace ompscale::modeler
