#pragma once
// The closing stage of a run, shared by `explore` and `merge`: SystemC re-evaluation of
// the Pareto candidates, the final Pareto front, the chosen design and the comparison
// with the reference points. A pure function of the run state (and the evaluators).

#include <optional>
#include <string>
#include <vector>

#include "dse/batch_runner.h"
#include "dse/run_state.h"
#include "dse/sweep_evaluation.h"

namespace ttsim::dse {

/// Where a reference point sits relative to the final front.
struct ReferenceStanding {
  PointId id = 0;
  std::string label;
  bool evaluated = false;
  std::string fidelity;  ///< of the figures compared ("analytic" or "systemc")
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
  std::vector<PointId> front;       ///< ascending
  /// True when `id` is on the front.
  bool on_front(PointId id) const;
  int systemc_rounds = 0;           ///< rounds of SystemC re-evaluation of the front
  std::uint64_t systemc_points = 0; ///< points with a SystemC evaluation
  std::optional<PointId> chosen;
  std::string why;                  ///< the rule and the figures behind the choice
  Evaluation chosen_detail;         ///< detailed evaluation (breakdown, resolved configs)
  std::vector<ReferenceStanding> references;
  std::vector<std::string> notes;   ///< unavailable metrics, skipped stages, budgets
};

/// Runs the closing stage. With fidelity systemc_pareto (and a SystemC evaluator and
/// `partial` false) it evaluates every reference point with SystemC (so the reference
/// comparison is SystemC against SystemC, with the figures of `ttsim simulate`), then repeats: Pareto front on the best evaluation of every point (the
/// analytic cycles bound the SystemC ones from below, so a point dominated on its
/// analytic figures stays dominated); SystemC for the front points that lack it; until
/// the front is all SystemC. Stores the SystemC evaluations in `state`; the points of a
/// round under way are kept in state.systemc_pending until the round completes, and a
/// pending round is completed first. Ctrl-C during this stage (runner stopped as
/// interrupted) returns a result marked partial.
FinalResult finish_run(const SweepEvaluation& eval, RunState& state, BatchRunner& runner,
                       bool partial);

}  // namespace ttsim::dse
