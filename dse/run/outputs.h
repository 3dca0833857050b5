#pragma once
// The result files of a run in its --out folder, each written atomically (the per-point
// files streamed to a temporary file row by row, then renamed: dse/run/result_stream.h):
//   results.csv    one row per evaluated point, ascending id: id, reference label, every
//                  axis value (the effective value, base values resolved), fidelity,
//                  feasible, every metric (empty = unavailable), accuracy source, reason
//                  when infeasible (whether a point is on the front: pareto.csv,
//                  results.json)
//   results.jsonl  one JSON object per line per evaluated point, ascending id (point_json):
//                  the same data plus the power and accuracy keys of `ttsim simulate
//                  --json` and the analytic metrics of a SystemC-evaluated point (the
//                  resolved configs only on the front's points, in results.json: a point's
//                  axis values and the sweep give the rest, and a million-point run would
//                  otherwise write gigabytes)
//   pareto.csv     the results.csv columns for the Pareto-front rows (not written, and
//                  removed, when the run was interrupted: there is no finished front)
//   results.json   the run's summary: provenance (sweep, files, device, fidelity,
//                  objectives, calibration, accuracy table, the defaults priced with, notes),
//                  counts, the Pareto front's points in full ("front", point_json objects in
//                  id order) and the chosen design's id ("chosen", one of them); no per-point
//                  array (results.jsonl has every point)
//   chosen.json    the chosen design, why, its latency breakdown and resolved configs,
//                  and where each reference point stands
//   summary.md     counts, objectives, constraints, notes, the front, the choice and the
//                  reference comparison; an interrupted run's opens with the banner
//                  "INTERRUPTED — not a finished front" and gives no front or choice
// Byte-for-byte reproducible: no timestamps, thread counts or shard information. Memory
// stays flat in the number of points: rows are written as the points are evaluated, or
// read from the run's log one at a time.

#include <string>
#include <vector>

#include "dse/run/final_result.h"
#include "dse/run/result_rows.h"
#include "dse/run/run_state.h"
#include "dse/evaluate/sweep_evaluator.h"

namespace ttsim::dse {

class ResultStream;

/// Writes every file above into `dir` (which must exist); summary.md's "Files:" line
/// lists them. results.csv and results.jsonl are `streamed`'s when it covers `state`
/// (ResultStream::covers), else written from the log. Returns the files' names.
std::vector<std::string> write_outputs(const std::string& dir, const SweepEvaluator& eval,
                                       const RunState& state, const FinalResult& final,
                                       ResultStream* streamed = nullptr);

/// Rewrites <dir>/summary.md with `files` (names in `dir`, every one written) on its
/// "Files:" line, for a caller that wrote more files than write_outputs; returns its text.
std::string write_summary(const std::string& dir, const SweepEvaluator& eval, const RunState& state,
                          const FinalResult& final, const std::vector<std::string>& files);

/// The JSON object of one point in results.jsonl and results.json's front: id, name, axis
/// values, fidelity, feasible, metrics (null = unavailable), reference label,
/// reason when infeasible, power_watts, energy_joules_per_epoch, tt_rank, accuracy_source,
/// analytic_metrics (when SystemC-evaluated) and, with `configs`, the resolved configs
/// ({"error"} when they do not load).
Json point_json(const SweepEvaluator& eval, const ResultRow& row, bool configs);

/// The sweep's constraints in words: "resources within 95% of the device (BRAM36 1344,
/// ..., LUT 871680, FF 1743360 against the estimates), card power (idle 17.4 W + dynamic)
/// within 95% of 75 W, clock within 95% of the achievable clock (250 MHz: <= 237.5 MHz; 147 MHz for a design above what one SLR holds: <= 139.65 MHz), compression >= 10x, accuracy >= 0.84"
/// (the card and clock parts when the device file states them).
std::string constraints_text(const SweepEvaluator& eval);

}  // namespace ttsim::dse
