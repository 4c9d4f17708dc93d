#pragma once
// The formats of `ompscan report` (docs/ompscan-report.md, "Formats"). Each returns the whole
// output; the command writes it atomically (common/output_file.h).
//
//   format_text()    what a person reads: runs, program, regions by potential gain, details of
//                    the top regions (loss split, hints, models, threads x inputs efficiency),
//                    POP efficiencies per run, notes
//   format_json()    everything, "ompscan-report-1"
//   format_csv()     one row per region, input and thread count
//   format_extrap()  region times in Extra-P's text format (threads, and input size when the
//                    runs have several sized inputs)
//   format_svgs()    charts: speedup per top region, efficiency heat maps (threads x inputs),
//                    and the time models (the modeler's plot)

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "regions/report/report.h"

namespace ompscale::regions::report {

/// `width`: the terminal's columns (0: no limit, for files and --wide). With a limit, long lines
/// wrap, region names in the summary are shortened (the detail sections name them in full) and a
/// region's loss causes go into a table of their own.
std::string format_text(const Report& report, std::size_t width = 0);
std::string format_json(const Report& report);
std::string format_csv(const Report& report);
/// Throws UsageError when there is nothing to export (no region measured at every point).
std::string format_extrap(const Report& report);
/// (file name, SVG document) pairs.
std::vector<std::pair<std::string, std::string>> format_svgs(const Report& report);

}  // namespace ompscale::regions::report
