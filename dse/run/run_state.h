#pragma once
// What a run has evaluated so far, kept in its --out folder so an interrupted run can be
// resumed and shard runs can be merged:
//   state.json         the run's settings (sweep, shard, calibration, hashes of the files
//                      it reads) and the progress of its SystemC stage; written atomically
//                      after each batch and before each SystemC round
//   evaluations.jsonl  every evaluation, one JSON object per line: appended after each
//                      batch ({"id": N, "analytic": {...}} or {"id": N, "systemc": {...}});
//                      at the end of a run or shard rewritten atomically in id order, one
//                      line per point ({"analytic": {...}, "id": N[, "systemc": {...}]}).
//                      A last line cut short by a killed run is dropped when it resumes.
// In memory a run keeps per point only where its evaluations are in the log and the
// figures the front, the choice and the progress line need (PointSummary); the outputs
// read the evaluations back one point at a time. Results are a pure function of the set
// of evaluations (ordered by point id), never of the order they were computed in.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/json_lines.h"
#include "core/json_view.h"
#include "dse/evaluate/evaluation_json.h"
#include "dse/evaluate/evaluator.h"
#include "dse/evaluate/sweep_evaluator.h"
#include "dse/search/pareto.h"
#include "dse/space/sweep_spec.h"

namespace ttsim::dse {

/// Name of the evaluation log in a run folder.
constexpr const char* kEvaluationLog = "evaluations.jsonl";

/// The evaluations of one point (analytic, and SystemC when it has one), as read back from
/// the log one point at a time: a point's results in full, which a run does not keep in memory
/// (PointSummary is what it keeps).
struct PointRecord {
  Evaluation analytic;
  bool has_systemc = false;
  Evaluation systemc;
  /// The highest-fidelity evaluation available.
  const Evaluation& best() const { return has_systemc ? systemc : analytic; }
};

/// What a run keeps in memory per evaluated point (about 100 bytes with five objectives, its
/// PointTable entry included): where its evaluations are in the log and the figures of the
/// best one (SystemC when it has one): its verdict without the reason and its kept metrics.
/// The figures of one evaluation before it is logged are a summary without log offsets
/// (PointSummary::of).
struct PointSummary {
  std::int64_t analytic_at = -1;  ///< byte offset in the log of the line with its analytic evaluation
  std::int64_t systemc_at = -1;   ///< of the line with its SystemC evaluation; -1 when it has none
  bool analytic_feasible = false; ///< verdict of the analytic evaluation (the progress line)
  bool feasible = false;          ///< verdict of the best evaluation
  /// The best evaluation is an error (Evaluation::error: the point could not be evaluated,
  /// e.g. its configs do not load together); results.csv's reason says why.
  bool failed = false;
  double violation = 0;           ///< Verdict::violation of the best evaluation
  /// The best evaluation's values of SweepEvaluator::kept_metrics(), NaN when unavailable.
  std::vector<double> kept;

  bool has_systemc() const { return systemc_at >= 0; }
  /// The figures of `e` (eval.judge(e) without the reason, its kept metrics), log offsets unset.
  static PointSummary of(const SweepEvaluator& eval, const Evaluation& e);
  /// The best evaluation's value of `m`; NaN when `m` is not a kept metric or unavailable.
  double figure(const SweepEvaluator& eval, Metric m) const;
  /// The search's view of the point `id` on its best figures: its objectives to minimise
  /// (objective_value) and violation (0 when feasible).
  Candidate candidate(const SweepEvaluator& eval, PointId id) const;
  /// Takes `f`'s figures (PointSummary::of) as the best evaluation's.
  void set_best(PointSummary&& f) {
    feasible = f.feasible;
    failed = f.failed;
    violation = f.violation;
    kept = std::move(f.kept);
  }
};

/// The evaluated points of a run by id, ascending: one sorted vector of (id, summary)
/// pairs, about 100 bytes a point with no tree node per point, so a million-point run keeps
/// its summaries in about 100 MB. Points arrive in ascending id (a grid's batches, a
/// merge, a compacted log), where adding one is appending; another id is inserted in place
/// (linear in the points after it: the few thousand points of a search).
class PointTable {
 public:
  using value_type = std::pair<PointId, PointSummary>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  /// The summary of `id`, added (default) when absent.
  PointSummary& operator[](PointId id) {
    if (rows_.empty() || rows_.back().first < id) return rows_.emplace_back(id, PointSummary{}).second;
    auto it = lower(id);
    if (it != rows_.end() && it->first == id) return it->second;
    return rows_.emplace(it, id, PointSummary{})->second;
  }
  /// Throws std::out_of_range when `id` is absent.
  const PointSummary& at(PointId id) const {
    const auto it = find(id);
    if (it == rows_.end()) throw std::out_of_range("point " + std::to_string(id) + " not evaluated");
    return it->second;
  }
  PointSummary& at(PointId id) { return const_cast<PointSummary&>(static_cast<const PointTable&>(*this).at(id)); }
  const_iterator find(PointId id) const {
    const auto it = std::lower_bound(rows_.begin(), rows_.end(), id,
                                     [](const value_type& r, PointId v) { return r.first < v; });
    return it != rows_.end() && it->first == id ? it : rows_.end();
  }
  iterator find(PointId id) {
    auto it = lower(id);
    return it != rows_.end() && it->first == id ? it : rows_.end();
  }
  std::size_t count(PointId id) const { return find(id) != rows_.end() ? 1 : 0; }
  std::size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  void clear() { rows_.clear(); }
  /// Room for `n` points without moving the others (a run reserves the points it plans).
  void reserve(std::size_t n) { rows_.reserve(n); }
  iterator begin() { return rows_.begin(); }
  iterator end() { return rows_.end(); }
  const_iterator begin() const { return rows_.begin(); }
  const_iterator end() const { return rows_.end(); }

 private:
  iterator lower(PointId id) {
    return std::lower_bound(rows_.begin(), rows_.end(), id, [](const value_type& r, PointId v) { return r.first < v; });
  }
  std::vector<value_type> rows_;
};

/// Everything evaluated so far in a run folder: the settings of state.json, a summary per
/// point and the evaluation log behind them (see the file comment). Movable, not copyable;
/// not thread-safe (the batch runner adds evaluations from one thread after each batch).
class RunState {
 public:
  RunState();
  ~RunState();
  RunState(RunState&&) noexcept;
  RunState& operator=(RunState&&) noexcept;

  std::string sweep_file;  ///< the sweep path as given on the command line
  Json sweep_doc;          ///< the sweep document (a resumed or merged run must match it)
  /// The sweep's axes in the order its point ids number them (SweepSpec's, canonical);
  /// empty for a state of format 1 or 2, numbered in legacy_axis_order (dse/space/axes.h).
  std::vector<std::string> axes;
  std::string shard;       ///< "" for a whole run, "i/N" for a shard
  /// The calibration record of `explore --calibration` (dse/run_setup.h), null when
  /// uncalibrated; a resumed or merged run must use the same.
  Json calibration;
  /// SystemC rounds of the closing stage (dse/run/finish.h) started so far, the last one
  /// possibly unfinished.
  int systemc_rounds = 0;
  /// Points of the SystemC round under way when the run was interrupted (ascending; empty
  /// otherwise): a resumed run completes this round before choosing the next, so it
  /// evaluates exactly the points an uninterrupted run would.
  std::vector<PointId> systemc_pending;
  /// The files the sweep reads (base model, arch, device, accuracy table, lengths) with a
  /// hash of each one's content when the run started (input_fingerprint); a resumed or
  /// merged run must find them unchanged. Null in states written before it was recorded.
  Json inputs;
  /// Every evaluated point, ascending id.
  PointTable points;

  /// Binds the state to an empty evaluation log in `dir` (replacing a log left by a run
  /// killed before it first saved state.json). Throws InputError when it cannot be written.
  void start_log(const std::string& dir);
  /// Binds the state to the evaluation log of `dir` and summarises every evaluation in it
  /// with `eval` (a later line of a point replaces an earlier one of the same fidelity).
  /// A last line cut short by a killed run is removed from the file when `repair` is true
  /// (the caller holds the folder's lock), else ignored. A state.json written before the
  /// log existed (its points inline) is converted: the log is written from it. Throws
  /// ConfigError at "<log>:<line>" and the JSON pointer for a malformed line or a point id
  /// outside 0..point_count-1.
  void load_log(const std::string& dir, const SweepEvaluator& eval, bool repair);

  /// Appends evaluation `e` of point `id` (at e.fidelity) to the log, written by the next
  /// flush(), and records `figures` (PointSummary::of(eval, e)) as the point's figures for
  /// that fidelity.
  void add(PointId id, const Evaluation& e, PointSummary figures);
  /// Appends the evaluations added since the last flush to the log file (then a fault
  /// point, core/fault_point.h). Throws InputError when the log cannot be written.
  void flush();
  /// Reads the evaluations of point `id` back from the log (flushed). Throws
  /// std::out_of_range for a point not evaluated, ConfigError for a damaged log.
  PointRecord record(PointId id) const;
  /// Calls `fn` with the evaluations of every point in ascending id, one in memory at a time.
  void for_each(const std::function<void(PointId, const PointRecord&)>& fn) const;
  /// Rewrites the log atomically in id order, one line per point with both its
  /// evaluations, so a finished run's log is the same however it was computed.
  void compact();
  /// Path of the bound log ("" before start_log / load_log).
  const std::string& log_path() const { return log_; }

  /// A state.json written before the evaluation log existed lists its points inline;
  /// load_state keeps them here until load_log converts them. Null otherwise.
  Json legacy_points;

 private:
  JsonLinesReader& reader() const;

  std::string log_;
  std::string unflushed_;  // lines added since the last flush
  std::int64_t size_ = 0;  // bytes of the log file
  // Since start_log, every line was an analytic line of a new point in ascending id (as a
  // grid run writes them): the log is already what compact() would write.
  bool in_order_ = false;
  std::size_t lines_ = 0;  // lines add() wrote since start_log
  // Lines at or past this byte offset were written by this state (add() or compact()), each
  // the canonical text compact() would write for it: compact() copies such a line of a point
  // without a SystemC evaluation as it is instead of parsing and dumping it again.
  std::int64_t canonical_from_ = 0;
  mutable std::unique_ptr<JsonLinesReader> reader_;
};

/// {role: {"path": resolved path, "content_hash": hex hash of the bytes}} for every file
/// `sweep` reads besides the sweep file itself ("model", "arch", "device", and
/// "accuracy_table" / "lengths" when given). Throws InputError when one cannot be read.
Json input_fingerprint(const SweepSpec& sweep);

/// Throws InputError naming `state_file` and the changed file when `recorded` (a state's
/// inputs; null: not recorded, accepted) differs from `now`.
void check_inputs_unchanged(const Json& recorded, const Json& now, const std::string& state_file);

/// state.json's document: the settings and SystemC progress of `s` (no points).
Json state_to_json(const RunState& s);
/// Reads state.json's document (`file` names it in errors): the settings; the inline points
/// of a format-1 document are kept in RunState::legacy_points for load_log.
RunState state_from_json(const Json& doc, const std::string& file);

/// <dir>/state.json, written atomically.
void save_state(const std::string& dir, const RunState& s);
/// Loads the settings of <dir>/state.json (no points: load_log reads them); nullopt when
/// absent. Throws ConfigError when malformed.
std::optional<RunState> load_state(const std::string& dir);

}  // namespace ttsim::dse
