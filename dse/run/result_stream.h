#pragma once
// results.csv and results.jsonl of a run (columns and keys: dse/run/outputs.h), written row by
// row as the rows come. A run that evaluates its points in ascending id with one fidelity
// (a fresh grid or random run without a time budget) hands each point's row to its stream in the batch that evaluated it,
// so the files need no pass over the log at the end (the rows of the points a SystemC stage
// evaluated again are replaced when the files are committed); any other run (a search, a
// resumed run, a merge) writes them at its end from its log, through the same class. Both files go to temporaries renamed over the destinations by
// commit() (core/atomic_file.h): until then a folder keeps the files of its last finished
// run, and a killed run leaves temporaries its next run removes.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "core/atomic_file.h"
#include "dse/evaluate/evaluation_json.h"
#include "dse/run/result_rows.h"
#include "dse/run/run_state.h"
#include "dse/evaluate/sweep_evaluator.h"

namespace ttsim::dse {

/// One point's lines of results.csv and results.jsonl (each ending in '\n'), and the clock
/// (MHz) it runs at when its configs give one (results.json's defaults_used lists them).
struct RowText {
  std::string csv;
  std::string jsonl;
  std::optional<double> clock_mhz;
};

/// The header line of results.csv and pareto.csv for `sweep`.
std::string csv_header(const SweepSpec& sweep);

/// The one writer of a point's JSON object: appends the results.jsonl object of `row`
/// (point_json without configs: id, name, axis values, fidelity, feasible, metrics, the
/// analytic metrics of a SystemC-evaluated point, clock {achievable_mhz, mhz,
/// operator_latencies {op: cycles at mhz}} (null when not evaluated), reason, reference label, power_watts,
/// energy_joules_per_epoch, tt_rank, accuracy_source; keys in ascending order at every
/// level, null for an unavailable metric), its evaluations written by
/// dse/evaluate/evaluation_json.h with numbers in `numbers`: kShortest in results.jsonl and
/// results.json's front, kDump for chosen.json (the chosen design, the reference points), whose
/// document holds doubles as a JSON dump writes them. Throws as point_name.
void append_point_json(std::string& out, const SweepEvaluator& eval, const ResultRow& row, JsonNumbers numbers);

/// The results.jsonl line of `row`: append_point_json with shortest round-trip numbers and a
/// newline.
std::string jsonl_row(const SweepEvaluator& eval, const ResultRow& row);

/// The row text of `row` (its on_front flag is not part of it: the front is in pareto.csv
/// and results.json). Throws as resolving the point's configs for its clock.
RowText render_row(const SweepEvaluator& eval, const ResultRow& row);

/// results.csv and results.jsonl of run folder `dir`, appended in ascending point id.
class ResultStream {
 public:
  /// Opens both temporaries and writes the CSV header. Throws InputError when `dir` is not
  /// writable.
  ResultStream(const std::string& dir, const SweepEvaluator& eval);

  /// Appends the rows of point `id`. A point id not above the last one appended, or a
  /// point whose row could not be rendered (`row` null), voids the stream: its
  /// temporaries are removed and the run writes the files from its log at the end.
  void append(PointId id, const RowText* row);
  /// False once voided (append takes no more rows).
  bool accepting() const { return csv_ != nullptr; }
  /// Voids the stream: removes its temporaries (which another stream of the same folder
  /// would share: their names hold the process id).
  void discard();
  /// True when the stream holds a row for every point of `state` (not voided, one row per
  /// point): commit(state, …) then writes the files.
  bool covers(const RunState& state) const;
  /// Clocks (MHz) of the rows appended (and of those commit renders again).
  const std::set<double>& clocks() const { return clocks_; }
  /// Renames both files over results.csv and results.jsonl. Throws InputError when a write
  /// failed, std::logic_error when the stream was voided.
  void commit();
  /// commit() for `state` (which the stream covers), whose points with a SystemC evaluation
  /// (re-evaluated after their analytic rows were appended: the SystemC stage of a few
  /// front designs among millions) get their rows from `render_again` instead: the files
  /// are copied record by record into new temporaries, the other rows as they were, then
  /// renamed. Throws as commit(), std::logic_error when the stream does not cover `state`.
  void commit(const RunState& state, const std::function<RowText(PointId)>& render_again);

 private:
  std::unique_ptr<AtomicFileWriter> csv_, jsonl_;  // null once voided
  std::optional<PointId> last_;
  std::size_t rows_ = 0;
  std::set<double> clocks_;
};

}  // namespace ttsim::dse
