#pragma once
// One row per evaluated point of a finished run, shared by the CSV/JSON/Markdown outputs
// and report.html: the point's effective axis values, its best evaluation, its verdict
// and whether it is on the Pareto front; plus the display text of a metric value.

#include <string>
#include <vector>

#include "dse/finish.h"
#include "dse/run_state.h"
#include "dse/sweep_evaluation.h"

namespace ttsim::dse {

/// An evaluated point as the outputs show it. The pointers refer into the RunState and
/// FinalResult the rows were made from.
struct ResultRow {
  PointId id = 0;
  std::string ref_label;     ///< reference label, "" for a plain grid point
  std::vector<Json> values;  ///< effective value per axis (base values resolved)
  const PointRecord* rec = nullptr;
  const Verdict* verdict = nullptr;
  bool on_front = false;
};

/// The rows of every point of `final` (ascending id). Throws as resolve_point.
std::vector<ResultRow> result_rows(const SweepEvaluation& eval, const RunState& state,
                                   const FinalResult& final);

/// Display text of a metric value with its unit ("184 s", "7.883 MiB", "84.20 %",
/// "30.4x", "1874"); "n/a" for NaN.
std::string metric_text(Metric m, double v);

}  // namespace ttsim::dse
