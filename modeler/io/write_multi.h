#pragma once
// Reports of models over several parameters (docs/output-formats.md, "Several parameters"):
// text for people and a models.json document, both one entry per kernel; and the document read
// back, for `modeler predict`.
//
//   Models over threads and size from sweep.csv (ompscale 0.1.0)
//
//     kernel           model                                  adj.R2  SMAPE%  points
//     construct=copy   0.5 + 0.01 * threads^(1) * size^(1)   0.9990    1.20      20
//
// followed, when present, by predictions and budget crossings along the first parameter (at
// every measured value of the others), notes and warnings.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "modeler/core/kernel.h"
#include "modeler/multi/multi_fit.h"

namespace ompscale::modeler {

/// `notes` apply to the whole dataset (e.g. a parameter folded into the key). `width`: the
/// terminal's columns (0: no limit); with a limit the layout is the text report's (write_text.h).
std::string format_multi_text(const Dataset& dataset, const std::vector<MultiResult>& results,
                              const std::vector<std::string>& notes, std::size_t width = 0);

/// models.json with "parameters" and per kernel the model as text and structured terms (each a
/// coefficient and its factors), statistics, points, predictions and budgets; `options_json` is
/// written verbatim as "options".
std::string format_multi_json(const Dataset& dataset, const std::vector<MultiResult>& results,
                              const std::vector<std::string>& notes,
                              const std::string& options_json);

/// A models.json with several parameters, read back: the dataset's parameters, key columns and
/// sources with one (sample-less) kernel per entry, and the results (model, statistics, points).
struct MultiModelsFile {
  std::string ompscale_version;  ///< of the writer
  std::string options_json = "{}";
  Dataset dataset;
  std::vector<MultiResult> results;
};

/// True when `text` is a models.json document with several parameters.
bool has_several_parameters(std::string_view text);

/// Parses such a document; InputError(name, line, cause) when it is not one.
MultiModelsFile parse_multi_models_json(std::string_view text, const std::string& name);

}  // namespace ompscale::modeler
