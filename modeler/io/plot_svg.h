#pragma once
// `modeler plot`: measurements and models as an SVG figure of small multiples, one panel per
// kernel, or per group of kernels drawn as lines of one panel (PlotOptions::series_columns)
// (docs/output-formats.md, "SVG plot").
//
// Each panel shows the thread axis on a log2 scale with ticks at powers of two; the measured
// points (the aggregated value of each ClassModel::points entry) with whiskers from the smallest
// to the largest repetition; one model curve per thread-count class, solid over the class's
// measured range and dashed where it extrapolates; and, when the models carry predictions, their
// prediction intervals as a lightly shaded band. Colours stay with a class across panels and are
// explained in one legend at the top.
//
// The output is self-contained SVG 1.1 (no scripts, fonts or images from elsewhere) and valid
// XML: every text taken from the data is escaped.

#include <optional>
#include <string>
#include <vector>

#include "modeler/core/kernel.h"
#include "modeler/core/result.h"

namespace ompscale::modeler {

struct PlotOptions {
  /// Size of one panel in pixels, axes and title included.
  int panel_width = 420;
  int panel_height = 300;
  /// Panels per row (fewer when there are fewer kernels).
  int columns = 3;
  /// Right end of the thread axis; default: four times the largest measured thread count, or the
  /// largest predicted one when that is further out. Never left of the largest measured point.
  std::optional<double> extrapolate_to;
  /// Logarithmic value axis, for kernels whose costs span decades. Non-positive values are left
  /// out of such a plot.
  bool log_y = false;
  /// Figure title; default: "Scaling models" and the key values all plotted kernels share.
  std::string title;
  /// Key columns that make lines rather than panels: kernels whose keys differ only in these
  /// columns share one panel, one curve each, coloured and named in the legend by these columns'
  /// values (models over several parameters: one line per value of the second).
  std::vector<std::string> series_columns;
  /// Prefix of every element id, so several figures can be inlined in one HTML page.
  std::string id_prefix;
  /// Start with an XML declaration (a standalone .svg file); off for SVG inlined in HTML.
  bool xml_declaration = true;
};

/// The figure for `results` (one panel each, in order; each result's `kernel` indexes
/// `dataset.kernels`). Points come from the models (ClassModel::points), so a dataset read back
/// from models.json, whose kernels carry no samples, plots the same. When the dataset does carry
/// samples, thread counts no model covers are drawn in grey. The value axis is labelled with the
/// kernel's "metric" and "unit" key values when those columns exist.
std::string plot_svg(const Dataset& dataset, const std::vector<KernelResult>& results,
                     const PlotOptions& options = {});

}  // namespace ompscale::modeler
