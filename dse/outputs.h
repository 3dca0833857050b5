#pragma once
// The result files of a run in its --out folder, each written atomically:
//   results.csv   one row per evaluated point: id, reference label, every axis value
//                 (the effective value, base values resolved), fidelity, feasible,
//                 on_front, every metric (empty = unavailable), reason when infeasible
//   pareto.csv    the same columns for the Pareto-front rows (not written, and removed,
//                 when the run was interrupted: there is no finished front)
//   results.json  the same data plus the resolved configs of every point (model and
//                 arch with defaults, device once) and the run's notes
//   chosen.json   the chosen design, why, its latency breakdown and resolved configs,
//                 and where each reference point stands
//   summary.md    counts, objectives, constraints, notes, the front, the choice and the
//                 reference comparison; an interrupted run's opens with the banner
//                 "INTERRUPTED — not a finished front" and gives no front or choice
// Byte-for-byte reproducible: no timestamps, thread counts or shard information.

#include <string>
#include <vector>

#include "dse/finish.h"
#include "dse/run_state.h"
#include "dse/sweep_evaluation.h"

namespace ttsim::dse {

/// Writes every file above into `dir` (which must exist); summary.md's "Files:" line
/// lists them. Returns their names.
std::vector<std::string> write_outputs(const std::string& dir, const SweepEvaluation& eval,
                                       const RunState& state, const FinalResult& final);

/// Rewrites <dir>/summary.md with `files` (names in `dir`, every one written) on its
/// "Files:" line, for a caller that wrote more files than write_outputs; returns its text.
std::string write_summary(const std::string& dir, const SweepEvaluation& eval, const RunState& state,
                          const FinalResult& final, const std::vector<std::string>& files);

/// The sweep's constraints in words: "resources within 95% of the device (BRAM36 1344,
/// ...), compression >= 10x, accuracy >= 0.84".
std::string constraints_text(const SweepEvaluation& eval);

/// A CSV cell: quoted (with doubled quotes) when it holds a comma, quote or newline.
std::string csv_cell(const std::string& s);

/// Shortest round-trip text of a metric value; "" for NaN.
std::string number_text(double v);

}  // namespace ttsim::dse
