#pragma once
// A models.json (docs/output-formats.md) as a history model set: every class model with its series
// key, growth, statistics and budget crossing, and the runs it was fitted on. models.json does not
// name runs; its `sources` do: each source results file is looked up (as written, then next to
// the models file) and its run ids and hosts are read, so the models are dated by their runs.

#include <string>
#include <string_view>

#include "dashboard/store/records.h"
#include "modeler/core/result.h"

namespace ompscale::dashboard {

/// The model set of models.json `text` (named `file`). Runs are taken from the source results
/// files, found as written or relative to `file`'s directory. InputError for text the modeler's
/// reader refuses, and for a source that cannot be found (naming it).
ModelSet parse_models(std::string_view text, const std::string& file);

/// The same for the file at `path`.
ModelSet read_models(const std::string& path);

/// A class model back from its stored document (ModelRecord::document), with its predictive
/// distribution, for predictions at other thread counts.
modeler::ClassModel class_model_from_document(const std::string& document,
                                              const std::string& parameter = "t");

}  // namespace ompscale::dashboard
