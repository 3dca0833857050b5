#pragma once
// One row per evaluated point of a run, shared by the CSV/JSON/Markdown outputs and
// report.html: the point's effective axis values, its evaluations, its verdict and whether
// it is on the Pareto front; plus the display text of a metric value. Rows are made one at
// a time from the run's evaluation log, so the outputs never hold every point in memory.

#include <functional>
#include <string>
#include <vector>

#include "dse/run/final_result.h"
#include "dse/run/run_state.h"
#include "dse/evaluate/sweep_evaluator.h"

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

/// The row of point `id` resolved as `point` (resolve_point) with evaluations `rec`, not on
/// the front. Throws as AxisEditor::current.
ResultRow make_row(const SweepEvaluator& eval, PointId id, PointConfig point, PointRecord rec);

/// The row of evaluated point `id` of `state`. Throws as resolve_point and
/// RunState::record.
ResultRow result_row(const SweepEvaluator& eval, const RunState& state, const FinalResult& final,
                     PointId id);

/// Points a run shows one by one in its plots and in report.html's table of every point
/// (each marker or row costs about a kilobyte there): a larger run shows its Pareto front,
/// references and chosen design and an evenly spaced sample of the other points, and says
/// so; results.csv and results.jsonl always hold every point.
constexpr std::size_t kShownPointsMax = 2000;

/// Stride of the evenly spaced sample of at most `max` (>= 1) of `count` points: 1 when
/// count <= max, else ceil(count / max).
std::size_t sample_stride(std::size_t count, std::size_t max);

/// Whether the `index`-th (0-based) of `count` points is in the evenly spaced sample of at
/// most `max` (max >= 1): every sample_stride(count, max)-th from the first.
bool in_sample(std::size_t index, std::size_t count, std::size_t max);

/// Calls `fn` with the row of every evaluated point in ascending id (of the evenly spaced
/// sample of at most `max_rows` of them, in_sample), one row in memory at a time.
void for_each_row(const SweepEvaluator& eval, const RunState& state, const FinalResult& final,
                  const std::function<void(const ResultRow&)>& fn,
                  std::size_t max_rows = static_cast<std::size_t>(-1));

/// The rows of the Pareto front's points, sorted by the first objective (best first),
/// then id: the order summary.md and report.html list them in.
std::vector<ResultRow> front_rows(const SweepEvaluator& eval, const RunState& state,
                                  const FinalResult& final);

/// Display text of a metric value with its unit ("184 s", "7.883 MiB", "84.20 %",
/// "30.4x", "1874"); "n/a" for NaN.
std::string metric_text(Metric m, double v);

/// A CSV cell: quoted (with doubled quotes) when it holds a comma, quote, line feed or
/// carriage return.
std::string csv_cell(const std::string& s);

/// Shortest round-trip text of a metric value; "" for NaN.
std::string number_text(double v);

}  // namespace ttsim::dse
