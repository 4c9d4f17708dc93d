#pragma once
// `modeler compare a.json b.json`: the models of two runs side by side, e.g. two runtimes, two
// machines, two bindings or before and after a change (docs/output-formats.md, "Comparison").
//
//   A = gnu.json, B = llvm.json; compared across runtime, runtime_version, compiler
//     A: runtime=libgomp runtime_version=12.2.0 compiler=gcc-12.2.0
//     B: runtime=libomp runtime_version=14.0.6 compiler=clang-14.0.6
//
//   kernel             class  model A               model B                  growth A  growth B
//   construct=barrier  all    0.5 + 0.25 * t^(1)    0.4 + 0.3 * log2(t)^(1)  linear    logarithmic
//   << differs
//
// Kernels are matched by their key (the non-empty key values, whatever the column order) without
// the columns compared across, then models by thread-count class. By default the columns compared
// across are those that hold one value in each file and a different one in each (the runtime of
// two sweeps, their machine or binding); --across names them. Kernels or classes present in one
// file only are listed at the end. When one file's kernel is split into classes and the other's
// is not (`--classes auto` decides per run), each class model is compared with the single model,
// which holds over the same thread counts ("po2 / all"). Rows are sorted by kernel, then class.

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "modeler/core/result.h"
#include "modeler/io/models_json.h"
#include "modeler/io/write_multi.h"

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
  /// Key columns not matched on (what is compared across), in A's column order.
  std::vector<std::string> across;
  std::vector<ComparedModel> matched;  ///< in A's order
  std::vector<ComparedKey> only_in_a;
  std::vector<ComparedKey> only_in_b;  ///< in B's order

  /// Matched models whose growth class differs: what `--fail-on-difference` checks.
  std::size_t growth_differences() const;
};

/// A models file with several parameters as `compare` sees it: per kernel, one model along the
/// first parameter for each measured combination of the others, named like a thread-count class
/// ("size=27"; with classes "po2 size=27"), with its growth along the first parameter. Two such
/// files then compare line by line: how each construct scales with threads at each array size.
ModelsFile models_along_first(const MultiModelsFile& file);

/// Matches the models of `a` and `b`, ignoring the key columns in `across`; without `across`, the
/// columns that hold one value in each file and a different one in each. Throws UsageError when
/// an `across` column is in neither file, or when a kernel of B becomes ambiguous without them.
ModelComparison compare_models(const ModelsFile& a, const ModelsFile& b,
                               const std::optional<std::vector<std::string>>& across = {});

/// Why nothing matched, for the error message: the columns whose values the files do not share.
std::string explain_no_match(const ModelsFile& a, const ModelsFile& b,
                             const ModelComparison& comparison);

/// The last line of the text table: how many models were compared and how many differ in growth;
/// says so when kernels are in both files but not every one has a model in both.
std::string comparison_summary(const ModelComparison& comparison);

/// The side-by-side text table, rows whose growth classes differ marked "<< differs", then the
/// kernels and classes found in one file only. `width`: the terminal's columns (0: no limit).
std::string format_comparison(const ModelsFile& a, const ModelsFile& b,
                              const ModelComparison& comparison, const ComparisonNames& names,
                              std::size_t width = 0);
std::string format_comparison(const ModelsFile& a, const ModelsFile& b,
                              const ComparisonNames& names = {});

/// The same as a JSON document (see docs/output-formats.md for its fields).
std::string format_comparison_json(const ModelsFile& a, const ModelsFile& b,
                                   const ModelComparison& comparison, const ComparisonNames& names);
std::string format_comparison_json(const ModelsFile& a, const ModelsFile& b,
                                   const ComparisonNames& names = {});

}  // namespace ompscale::modeler
