#pragma once
// The measurements in Extra-P's text format, so a user can load our data into Extra-P and compare
// its models with ours (docs/output-formats.md, "Extra-P text").
//
//   PARAMETER t                   with several parameters: PARAMETER t n
//   POINTS ( 1 ) ( 2 ) ( 4 ) ( 8 )  and POINTS ( 1 27 ) ( 2 27 ) ...
//
//   METRIC overhead
//   REGION barrier/epcc
//   DATA 0.51 0.49 0.50        <- every repetition at t = 1
//   DATA 0.93 0.95             <- t = 2, ...

#include <string>

#include "modeler/core/kernel.h"

namespace ompscale::modeler {

/// Every kernel's repetitions (all kept, in input order) as one Extra-P text file.
///
/// METRIC is the value of a key column named "metric" ("value" without one); REGION is the other
/// key values, non-empty ones joined by "/" ("all" when none is left). Kernels are grouped by
/// metric, each metric declared once, because Extra-P's reader mis-assigns data after a metric is
/// declared a second time. Line breaks and tabs in names become spaces.
///
/// Throws UsageError when the dataset has no kernels, when the kernels were not all measured at
/// the same parameter values (one Extra-P file has one list of POINTS: export each class or
/// subset that shares its points separately), or when two kernels map to the same METRIC and
/// REGION.
std::string format_extrap_text(const Dataset& dataset);

}  // namespace ompscale::modeler
