#pragma once
// `modeler compare a.json b.json`: the models of two runs side by side, e.g. two runtimes, two
// machines or before and after a change (docs/output-formats.md, "Comparison").
//
//   A = gcc.json, B = clang.json
//
//   kernel             class  model A               model B                  growth A     growth B
//   construct=barrier  all    0.5 + 0.25 * t^(1)    0.4 + 0.3 * log2(t)^(1)  linear logarithmic  <<
//   differs
//
// Kernels are matched by their key (the non-empty key values, whatever the column order), then
// models by thread-count class. Kernels or classes present in one file only are listed at the end.

#include <string>
#include <utility>
#include <vector>

#include "modeler/io/models_json.h"
#include "modeler/result.h"

namespace ompscale::modeler {

/// How the two files are named in the output (file names, run labels).
struct ComparisonNames {
  std::string a = "A";
  std::string b = "B";
};

/// A kernel (by its non-empty key values) and class.
struct ComparedKey {
  std::vector<std::pair<std::string, std::string>> key;  ///< (column, value), in A's column order
  std::string label;                                     ///< "construct=barrier bind=spread"
  std::string thread_class;
};

/// One model present in both files.
struct ComparedModel {
  ComparedKey key;
  ClassModel a;
  ClassModel b;
  bool growth_differs = false;
};

struct ModelComparison {
  std::vector<ComparedModel> matched;  ///< in A's order
  std::vector<ComparedKey> only_in_a;
  std::vector<ComparedKey> only_in_b;  ///< in B's order

  /// Matched models whose growth class differs: what `--fail-on-growth-change` style checks use.
  std::size_t growth_differences() const;
};

/// Matches the models of `a` and `b`.
ModelComparison compare_models(const ModelsFile& a, const ModelsFile& b);

/// The side-by-side text table, rows whose growth classes differ marked "<< differs", then the
/// kernels and classes found in one file only.
std::string format_comparison(const ModelsFile& a, const ModelsFile& b,
                              const ComparisonNames& names = {});

/// The same as a JSON document (see docs/output-formats.md for its fields).
std::string format_comparison_json(const ModelsFile& a, const ModelsFile& b,
                                   const ComparisonNames& names = {});

}  // namespace ompscale::modeler
