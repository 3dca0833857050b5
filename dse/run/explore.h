#pragma once
// A whole exploration run into one --out folder, and the merge of shard runs.
//
// explore: choose points (grid / random / NSGA-II, within the budget), evaluate them
//   in parallel (analytic; SystemC too with fidelity systemc_all), appending each batch
//   to <out>/evaluations.jsonl and checkpointing <out>/state.json (dse/run/run_state.h); then
//   the closing stage (dse/run/finish.h) and every output file, written point by point.
//   With --shard i/N only positions p ≡ i (mod N) of the deterministic point list are
//   evaluated and only state.json and the evaluation log (in id order) are written;
//   `merge` joins the shards' logs point by point in id order and runs the closing stage,
//   giving byte-for-byte the files of the unsharded run. Memory stays flat in the number
//   of points apart from a summary of about 200 bytes per point (dse/run/run_state.h).
//   An interrupted run writes state.json and the results of the points done; --resume
//   continues it, and the final files equal those of an uninterrupted run.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "dse/run/batch_runner.h"
#include "dse/run/finish.h"
#include "dse/evaluate/sweep_evaluator.h"

namespace ttsim::dse {

/// How `ttsim explore` / `merge` run: output folder, resume, shard, threads and the
/// hook that writes the extra outputs.
struct ExploreOptions {
  std::string out_dir;
  bool resume = false;
  int shard_index = 0;  ///< 0-based
  int shard_count = 1;
  RunControl control;   ///< threads, cancel flag, progress stream (checkpoint_dir is set here)
  /// Hook run after the result files are written (plots, report.html, hls_build/): gets
  /// the run's state (its log compacted unless the run was interrupted), the files written
  /// so far and returns every file of the folder written by the run.
  std::function<std::vector<std::string>(const std::string& dir, const RunState& state,
                                         const FinalResult&, const std::vector<std::string>& written)>
      extra_outputs;
};

/// How a run ended: all done, interrupted (exit 130, state saved), or a shard written.
enum class ExploreOutcome { kComplete, kInterrupted, kShardWritten };

/// What a run did: point counts, the final result and the files it wrote.
struct ExploreReport {
  ExploreOutcome outcome = ExploreOutcome::kComplete;
  std::uint64_t planned = 0;    ///< points the strategy asked for (grid/random after budget)
  std::uint64_t evaluated = 0;  ///< points in the state
  /// Evaluations this run made before the SystemC stage of systemc_pareto (a point evaluated
  /// by both fidelities under systemc_all counts twice).
  std::uint64_t new_evaluations = 0;
  std::uint64_t new_points = 0;  ///< points the run evaluated that the state did not hold
  bool time_budget_hit = false;
  FinalResult final;            ///< empty for a shard
  /// Result files written into the out folder (names; state.json aside), empty for a shard.
  std::vector<std::string> files;
};

/// Parses "i/N" (1 <= i <= N, as users count) into a 0-based index and a count.
/// Throws InputError otherwise.
std::pair<int, int> parse_shard(const std::string& text);

/// Runs an exploration (see file comment), holding the out folder's lock (core/dir_lock.h)
/// from before its state is read until the last file is written. Throws InputError when
/// another live run holds the folder (naming it), when the out folder already holds a run
/// and `resume` is false, or when a resumed state belongs to another sweep or shard, or
/// for --shard with the nsga2 strategy. Ctrl-C (options.control.cancel) in any stage ends
/// the run as kInterrupted with the points done saved; --resume then completes it to the
/// files of an uninterrupted run.
ExploreReport run_explore(const SweepEvaluator& eval, const std::string& sweep_file,
                          const ExploreOptions& options);

/// Checks the shard folders `shard_dirs` come from the same sweep and together cover
/// shards 1..N, merges their evaluation logs point by point in id order into
/// options.out_dir's (holding its lock) and finishes the union there. Refuses (InputError)
/// a shard whose run is still going (its folder is locked) or did not finish (a point of
/// its slice lacks an evaluation: interrupted, killed or stopped by its time budget),
/// naming the folder and the command that finishes it; ConfigError at "<log>:<line>" for
/// a malformed line of a shard's log or a point id outside the design space. Ctrl-C
/// (options.control.cancel) while the logs are merged ends it as kInterrupted with no
/// state and the partial log removed (run the merge again); during the SystemC stage or
/// the outputs, as run_explore (the merged folder is then continued with `explore
/// --resume`).
ExploreReport run_merge(const SweepEvaluator& eval, const std::vector<std::string>& shard_dirs,
                        const ExploreOptions& options);

/// The settings of a shard or run folder's state.json, without its points (for the merge
/// command to find the sweep). Throws InputError when `dir` holds no state.json.
RunState load_run_settings(const std::string& dir);

}  // namespace ttsim::dse
