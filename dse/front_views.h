#pragma once
// 2-D views of a multi-objective Pareto front: which objective pairs to draw, which
// points are non-dominated on a pair, and how each metric is labelled on an axis.

#include <string>
#include <vector>

#include "dse/metrics.h"

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

/// How a metric appears on a plot axis and in the plot's CSV column.
struct PlotAxis {
  std::string column;  ///< CSV column, e.g. "onchip_mib"
  std::string label;   ///< axis label with its unit, e.g. "on-chip memory (MiB)"
  double scale = 1;    ///< plotted value = metric value × scale
};

/// The axis of metric `m` (every label names its unit).
PlotAxis plot_axis(Metric m);

}  // namespace ttsim::dse
