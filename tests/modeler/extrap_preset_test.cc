// `--preset extrap` against the models Extra-P 4.2.5 prints for its own test inputs
// (tests/data/extrap/expected_default_models.tsv): same term, coefficients to 1e-9.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "modeler/fit.h"
#include "modeler/io/readers.h"
#include "tests/support/extrap_reference.h"

namespace ompscale::modeler {
namespace {

const std::filesystem::path kExtrapDir = std::filesystem::path(OMPSCALE_TEST_DATA) / "extrap";

using Expected = test_support::ExtrapReference;

std::vector<Expected> read_single_references() {
  return test_support::read_extrap_reference(kExtrapDir / "expected_default_models.tsv");
}

void expect_relative(double actual, double expected, double tolerance, const std::string& what) {
  const double scale = std::max(std::fabs(expected), 1e-300);
  EXPECT_LE(std::fabs(actual - expected) / scale, tolerance)
      << what << ": got " << actual << ", Extra-P " << expected;
}

TEST(ExtrapPreset, MatchesEveryReferenceModel) {
  const auto expected = read_single_references();
  ASSERT_EQ(expected.size(), 38u);
  const ModelerOptions options = ModelerOptions::extrap();
  std::size_t checked = 0;
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.file + " " + e.callpath + " " + e.metric);
    const Dataset data = read_dataset((kExtrapDir / e.file).string(), {});
    const auto callpath_column = 0u, metric_column = 1u;
    ASSERT_EQ(data.key_columns.size(), 2u);
    const Kernel* kernel = nullptr;
    for (const Kernel& k : data.kernels) {
      if (k.key_value(callpath_column) == e.callpath && k.key_value(metric_column) == e.metric) {
        kernel = &k;
      }
    }
    ASSERT_NE(kernel, nullptr);
    const KernelResult result = fit_kernel(*kernel, options);
    ASSERT_EQ(result.models.size(), 1u);
    const Model& got = result.models[0].model;
    const Model want = parse_model(e.model);
    ASSERT_EQ(got.terms.size(), want.terms.size()) << "got " << got.to_string();
    expect_relative(got.constant, want.constant, 1e-9, "constant");
    for (std::size_t t = 0; t < want.terms.size(); ++t) {
      EXPECT_DOUBLE_EQ(got.terms[t].shape.exponent, want.terms[t].shape.exponent);
      EXPECT_EQ(got.terms[t].shape.log_exponent, want.terms[t].shape.log_exponent);
      expect_relative(got.terms[t].coefficient, want.terms[t].coefficient, 1e-9, "coefficient");
    }
    // SMAPE and RSS of exact fits are rounding noise (1e-14): compare those absolutely.
    if (e.smape > 1e-9) {
      expect_relative(result.models[0].stats.smape, e.smape, 1e-6, "smape");
    } else {
      EXPECT_LT(result.models[0].stats.smape, 1e-9);
    }
    if (e.rss > 1e-20) expect_relative(result.models[0].stats.rss, e.rss, 1e-6, "rss");
    expect_relative(result.models[0].stats.adjusted_r2, e.adj_r2, 1e-9, "adjusted R^2");
    ++checked;
  }
  EXPECT_EQ(checked, expected.size());
}

}  // namespace
}  // namespace ompscale::modeler
