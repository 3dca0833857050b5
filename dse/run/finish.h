#pragma once
// The closing stage of a run, shared by `explore` and `merge`: SystemC re-evaluation of
// the Pareto candidates, the final Pareto front, the chosen design and the comparison
// with the reference points. A pure function of the run state (and the evaluators).

#include <optional>
#include <string>
#include <vector>

#include "dse/run/batch_runner.h"
#include "dse/run/final_result.h"
#include "dse/run/run_state.h"
#include "dse/evaluate/sweep_evaluator.h"

namespace ttsim::dse {

/// Runs the closing stage. With fidelity systemc_pareto (and a SystemC evaluator and
/// `partial` false) it evaluates every reference point with SystemC (so the reference
/// comparison is SystemC against SystemC, with the figures of `ttsim simulate`), then repeats: Pareto front on the best evaluation of every point (the
/// analytic cycles bound the SystemC ones from below, so a point dominated on its
/// analytic figures stays dominated); SystemC for the front points that lack it; until
/// the front is all SystemC. Stores the SystemC evaluations in `state`; the points of a
/// round under way are kept in state.systemc_pending until the round completes, and a
/// pending round is completed first. Ctrl-C during this stage (runner stopped as
/// interrupted) returns a result marked partial.
FinalResult finish_run(const SweepEvaluator& eval, RunState& state, BatchRunner& runner,
                       bool partial);

}  // namespace ttsim::dse
