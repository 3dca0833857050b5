#pragma once
// One row per evaluated point of a run, shared by the CSV/JSON/Markdown outputs and
// report.html: the point's effective axis values, its evaluations, its verdict and whether
// it is on the Pareto front; plus the display text of a metric value. Rows are made one at
// a time from the run's evaluation log, so the outputs never hold every point in memory.

#include <functional>
#include <string>
#include <vector>

#include "dse/finish.h"
#include "dse/run_state.h"
#include "dse/sweep_evaluation.h"

namespace ttsim::dse {

/// An evaluated point as the outputs show it.
struct ResultRow {
  PointId id = 0;
  std::string ref_label;     ///< reference label, "" for a plain grid point
  PointConfig point;         ///< the point resolved (model and arch documents as patched)
  std::vector<Json> values;  ///< effective value per axis (base values resolved)
  PointRecord rec;           ///< its evaluations
  Verdict verdict;           ///< on its best evaluation
  bool on_front = false;
};

/// The row of evaluated point `id` of `state`. Throws as resolve_point and
/// RunState::record.
ResultRow result_row(const SweepEvaluation& eval, const RunState& state, const FinalResult& final,
                     PointId id);

/// Calls `fn` with the row of every evaluated point in ascending id, one row in memory at
/// a time.
void for_each_row(const SweepEvaluation& eval, const RunState& state, const FinalResult& final,
                  const std::function<void(const ResultRow&)>& fn);

/// The rows of the Pareto front's points, sorted by the first objective (best first),
/// then id: the order summary.md and report.html list them in.
std::vector<ResultRow> front_rows(const SweepEvaluation& eval, const RunState& state,
                                  const FinalResult& final);

/// Display text of a metric value with its unit ("184 s", "7.883 MiB", "84.20 %",
/// "30.4x", "1874"); "n/a" for NaN.
std::string metric_text(Metric m, double v);

}  // namespace ttsim::dse
