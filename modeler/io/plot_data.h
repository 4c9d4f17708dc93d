#pragma once
// The data of `modeler plot` (plot_svg.h), gathered before anything is drawn: which results
// share a panel, the series (one per class model) with their colours, how each point's
// repetitions spread, the points no model was fitted on, the x range a panel needs and the model
// curves sampled over it. Internal to modeler/io; plot_svg.cc draws it.

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "modeler/core/kernel.h"
#include "modeler/core/result.h"
#include "modeler/io/plot_svg.h"

namespace ompscale::modeler::plot_detail {

inline const double kNaN = std::numeric_limits<double>::quiet_NaN();

// How the repetitions of one point spread: the box from the first to the third quartile, whiskers
// to the most extreme repetitions within 1.5 interquartile ranges of it (Tukey), and the outliers
// beyond, marked one by one so that a single far value does not flatten the panel. Without the
// repetitions (a plot from models.json) the whiskers span min to max and there is no box.
struct Spread {
  double low = kNaN, q1 = kNaN, q3 = kNaN, high = kNaN;
  std::vector<double> outliers;
  bool quartiles = false;
};

// The points, curves and band of one class model, ready to draw.
struct ClassSeries {
  const ClassModel* model;
  std::string_view colour;
  double measured_lo;  // the class's measured parameter range: solid curve inside, dashed outside
  double measured_hi;
  std::vector<Spread> spreads;  // one per model->points entry
};

struct UnmodeledPoint {
  double param, value;
  Spread spread;
};

// Everything one panel shows; ranges are collected first so the axes fit all of it.
struct PanelData {
  std::string title;
  std::string no_model;  // why a panel shows points only: "no model: 2 thread counts"
  std::string full_key;
  std::string value_label;
  std::vector<ClassSeries> series;
  std::vector<UnmodeledPoint> unmodeled;
};

// What the panels show, and what the legend must therefore explain.
struct Figure {
  std::vector<PanelData> panels;
  std::vector<std::string> series;  // series labels in order of first appearance (colours)
  std::map<std::string, std::string_view> colour_of;
  bool any_unmodeled = false;
  bool any_model = false;
  bool any_quartiles = false;
  bool any_outliers = false;
  double prediction_level = kNaN;
};

/// The panels of `results`: results whose kernels differ only in the `series_column` columns
/// share one; `shared` marks the key columns every plotted kernel shares (not in panel titles).
Figure collect_panels(const Dataset& dataset, const std::vector<KernelResult>& results,
                      const std::vector<bool>& shared, const std::vector<bool>& series_column);

// The x range every panel of one kernel needs: measured points, predictions, extrapolation.
struct XExtent {
  double measured_lo, measured_hi, right;
};
XExtent x_extent(const PanelData& panel, const PlotOptions& options);

// Samples of a model curve, split into solid (inside the measured range) and dashed pieces.
struct CurvePiece {
  bool extrapolated;
  std::vector<std::pair<double, double>> points;  // (t, value)
};
std::vector<CurvePiece> curve_pieces(const ClassSeries& s, double left, double right);

/// The model's predictions in order of the parameter.
std::vector<Prediction> sorted_predictions(const ClassModel& model);

}  // namespace ompscale::modeler::plot_detail
