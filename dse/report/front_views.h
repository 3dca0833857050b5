#pragma once
// 2-D views of a multi-objective Pareto front: which objective pairs to draw, which
// points are non-dominated on a pair, and how each metric is labelled on an axis.

#include <string>
#include <utility>
#include <vector>

#include "dse/space/metrics.h"

namespace ttsim::dse {

/// One 2-D projection of the objectives: x against y.
struct FrontView {
  Metric x;
  Metric y;
};

/// The views of `objectives`: the design-choice metric `choose` (else the first objective)
/// against every other objective, in objective order. Empty for fewer than two objectives.
std::vector<FrontView> front_views(const std::vector<Metric>& objectives, Metric choose);

/// Flags the points (xs[i], ys[i]) that no other point dominates on this pair alone
/// (minimised, or maximised where `max_x` / `max_y`). Points with a NaN are never flagged;
/// equal points are all flagged.
std::vector<bool> pair_front(const std::vector<double>& xs, bool max_x,
                             const std::vector<double>& ys, bool max_y);

/// A vertex of a drawn line, in plotted coordinates.
struct LineVertex {
  double x;
  double y;
};

/// The staircase line through the pair's non-dominated points (pair_front with the same
/// arguments): the points in order of improving x (ascending x when x is minimised,
/// descending when maximised), and between two consecutive points p, q the corner
/// (q.x, p.y), so the line bounds the region the front dominates. Equal points appear
/// once; empty when no point is non-dominated.
std::vector<LineVertex> pair_staircase(const std::vector<double>& xs, bool max_x,
                                       const std::vector<double>& ys, bool max_y);

/// Axis range of plotted `values` with room around them: [min/pad, max·pad] on a log axis,
/// else the span widened by `linear_margin` of itself on each side (±1 around a single
/// value, or ±|value|·linear_margin), the lower end clamped at 0 when no value is negative.
/// {0, 0} for no finite value.
std::pair<double, double> padded_range(const std::vector<double>& values, bool log_axis,
                                       double pad = 1.3, double linear_margin = 0.06);

/// The largest / smallest value from which an axis is drawn in log scale.
constexpr double kLogAxisSpread = 10;

/// Whether an axis of `values` is drawn in log scale: every finite value positive and the
/// largest at least kLogAxisSpread times the smallest.
bool log_axis_wanted(const std::vector<double>& values);

/// How a metric appears on a plot axis and in the plot's CSV column.
struct PlotAxis {
  std::string column;  ///< CSV column, e.g. "onchip_mib"
  std::string label;   ///< axis label with its unit, e.g. "on-chip memory (MiB)"
  double scale = 1;    ///< plotted value = metric value × scale
};

/// The axis of metric `m` (every label names its unit).
PlotAxis plot_axis(Metric m);

}  // namespace ttsim::dse
