#pragma once
// What a run has evaluated so far, kept in <out>/state.json so an interrupted run can
// be resumed and shard runs can be merged. Results are a pure function of this set of
// records (ordered by point id), never of the order they were computed in.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "dse/sweep_spec.h"
#include "dse/evaluator.h"

namespace ttsim::dse {

/// Evaluations of one point.
struct PointRecord {
  Evaluation analytic;
  bool has_systemc = false;
  Evaluation systemc;
  /// The highest-fidelity evaluation available.
  const Evaluation& best() const { return has_systemc ? systemc : analytic; }
};

/// Everything evaluated so far in a run folder (state.json): what resume and merge read.
struct RunState {
  std::string sweep_file;  ///< the sweep path as given on the command line
  Json sweep_doc;          ///< the sweep document (a resumed or merged run must match it)
  std::string shard;       ///< "" for a whole run, "i/N" for a shard
  /// The calibration record of `explore --calibration` (dse/run_setup.h), null when
  /// uncalibrated; a resumed or merged run must use the same.
  Json calibration;
  std::map<PointId, PointRecord> points;
  /// SystemC rounds of the closing stage (dse/finish.h) started so far, the last one
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
};

/// {role: {"path": resolved path, "content_hash": hex hash of the bytes}} for every file
/// `sweep` reads besides the sweep file itself ("model", "arch", "device", and
/// "accuracy_table" / "lengths" when given). Throws InputError when one cannot be read.
Json input_fingerprint(const SweepSpec& sweep);

/// Throws InputError naming `state_file` and the changed file when `recorded` (a state's
/// inputs; null: not recorded, accepted) differs from `now`.
void check_inputs_unchanged(const Json& recorded, const Json& now, const std::string& state_file);

/// Serialisation: metrics as {name: number|null}; NaN round-trips as null, doubles
/// exactly (shortest round-trip representation); tt_rank and accuracy_source only when set.
Json evaluation_to_json(const Evaluation& e);
Evaluation evaluation_from_json(const JsonView& v);
Json state_to_json(const RunState& s);
RunState state_from_json(const Json& doc, const std::string& file);

/// <dir>/state.json, written atomically.
void save_state(const std::string& dir, const RunState& s);
/// Loads <dir>/state.json; nullopt when absent. Throws ConfigError when malformed.
std::optional<RunState> load_state(const std::string& dir);
/// Checks every point id of `s` (read from `dir`/state.json) is below `point_count`, the
/// number of points of the sweep's design space. Throws ConfigError naming the file and the
/// JSON pointer /points/<k>/id of the first id out of range, the range and the id found.
void check_point_ids(const RunState& s, std::uint64_t point_count, const std::string& dir);

}  // namespace ttsim::dse
