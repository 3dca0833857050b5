#pragma once
// The end of a run as the result files see it: counts, the Pareto front, the chosen design
// and where the reference points stand. Computed by finish_run (dse/run/finish.h), read by
// the outputs (dse/run/outputs.h, dse/run/result_rows.h) and report.html.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dse/evaluate/sweep_evaluator.h"
#include "dse/run/run_state.h"

namespace ttsim::dse {

/// Where a reference point sits relative to the final front.
struct ReferenceStanding {
  PointId id = 0;
  std::string label;
  bool evaluated = false;
  Fidelity fidelity = Fidelity::kAnalytic;  ///< of the figures compared
  bool feasible = false;
  bool on_front = false;
  std::string reason;  ///< infeasibility reason
  /// Front points that dominate it, sorted by id.
  std::vector<PointId> dominated_by;
  /// Per objective: best factor (reference value / front value for minimised metrics,
  /// front / reference for maximised ones) over the dominating points.
  std::vector<double> best_gain;
  std::vector<PointId> best_gain_point;
};

/// The end of a run: how many points were evaluated and are feasible, the Pareto front,
/// the chosen design and the reference points' positions. Per-point verdicts are not
/// kept: the outputs judge each point again as they read it from the run's log.
struct FinalResult {
  /// Interrupted (Ctrl-C): the points done so far, not a finished front (no or an
  /// incomplete SystemC stage); nothing is emitted and the run exits 130.
  bool partial = false;
  std::uint64_t evaluated = 0;      ///< points evaluated
  std::uint64_t feasible = 0;       ///< of them, feasible on their best evaluation
  std::uint64_t failed = 0;         ///< of them, not evaluated (PointSummary::failed)
  std::vector<PointId> front;       ///< ascending
  /// True when `id` is on the front.
  bool on_front(PointId id) const;
  int systemc_rounds = 0;           ///< rounds of SystemC re-evaluation of the front
  std::uint64_t systemc_points = 0; ///< points with a SystemC evaluation
  std::optional<PointId> chosen;
  std::string why;                  ///< the rule and the figures behind the choice; any tie on the front and the rule that broke it
  Evaluation chosen_detail;         ///< detailed evaluation (breakdown, resolved configs)
  std::vector<ReferenceStanding> references;
  std::vector<std::string> notes;   ///< unavailable metrics, skipped stages, budgets
};

/// The clause the explore and merge summary lines give the points `f` could not evaluate:
/// ", 12 not evaluated (results.csv's reason says why)"; "" when there are none.
inline std::string not_evaluated_clause(const FinalResult& f) {
  return f.failed > 0 ? ", " + std::to_string(f.failed) + " not evaluated (results.csv's reason says why)" : "";
}

}  // namespace ttsim::dse
