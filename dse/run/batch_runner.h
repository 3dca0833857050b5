#pragma once
// Parallel evaluation of batches of sweep points on oneTBB, with a terminal progress
// line (points done, feasible so far, best analytic figure so far — the SystemC stage
// may choose another design —, ETA), cooperative stop (Ctrl-C, a
// time budget) and periodic checkpoints of the run state.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "dse/run/run_state.h"
#include "dse/search/pareto.h"
#include "dse/evaluate/sweep_evaluator.h"

namespace ttsim::dse {

class ResultStream;

/// Why a run stopped early, if it did.
enum class StopReason { kNone, kInterrupted, kTimeBudget };

/// Largest worker-thread count accepted by `--threads` (oneTBB is given at most this).
constexpr int kMaxThreads = 256;

/// Validates a `--threads` value: 0 = oneTBB default (all cores), else 1..kMaxThreads.
/// Returns `threads`; throws InputError naming `flag`, the range and the value otherwise.
int checked_threads(long long threads, const std::string& flag = "--threads");

/// Controls shared by every batch of a run.
struct RunControl {
  int threads = 0;                          ///< 0 = oneTBB default (all cores), else 1..kMaxThreads
  const std::atomic<bool>* cancel = nullptr;  ///< set by the SIGINT handler
  /// Wall-clock deadline (time budget); max() = none.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  /// Test hook: behave as if interrupted once this many new evaluations are done
  /// (0 = off). Evaluations in flight complete; later ones are not started.
  std::uint64_t interrupt_after = 0;
  std::ostream* progress = nullptr;         ///< progress target, or null (none)
  /// True when `progress` is a terminal: one line redrawn in place (carriage return) at most
  /// every 200 ms; false (a log file, a pipe): a whole line at most every 10 s, so that a run
  /// whose output is redirected still says how far it is.
  bool progress_terminal = true;
  /// Save state.json here after each batch ("" = never); the evaluations themselves go
  /// to the state's log (RunState::flush) after each batch either way.
  std::string checkpoint_dir;
};

/// Evaluates batches of design points in parallel on a oneTBB arena, recording each
/// evaluation into the run state (appended to its log after each batch), drawing the
/// progress line, saving state.json after each batch and stopping cleanly on Ctrl-C or
/// the time budget.
class BatchRunner {
 public:
  /// `state` receives every evaluation; `planned` is the expected number of points for
  /// the ETA. With `rows`, each analytic evaluation's result rows are rendered on the
  /// worker that evaluated the point and appended to `rows` with the batch (while it
  /// accepts rows: dse/run/result_stream.h).
  BatchRunner(const SweepEvaluator& eval, RunState& state, const RunControl& control,
              std::uint64_t planned, ResultStream* rows = nullptr);

  /// Evaluates the points of `ids` that have no evaluation at `fidelity` yet (all in
  /// parallel, in chunks of 1024), stores them in the state and returns the candidates
  /// of the ids evaluated by now, in `ids` order: on their analytic figures for an
  /// analytic run (what the search strategies rank), on the best for a SystemC one. A
  /// stop leaves the missing ids out.
  std::vector<Candidate> run(const std::vector<PointId>& ids, Fidelity fidelity);
  /// run() without building the candidates (a grid pass over millions of points keeps
  /// nothing per point beyond the state's summaries).
  void evaluate(const std::vector<PointId>& ids, Fidelity fidelity);

  StopReason stopped() const { return stop_; }
  /// Checks the stop conditions (cancel flag, interrupt hook, deadline) now, between
  /// batches: true once the run must stop; stopped() then gives the reason.
  bool stop_requested();
  std::uint64_t evaluated() const { return new_evaluations_; }
  /// Saves state.json into RunControl::checkpoint_dir (when set), e.g. before a SystemC
  /// round so a resumed run knows the round's points before any of their evaluations.
  void checkpoint();
  /// Clears the progress line (call before printing anything else).
  void end_progress();
  /// Writes `text` as a whole line to the progress stream (after ending an open progress
  /// line): what stage the run is in when the points-done line does not show it.
  void stage_line(const std::string& text);

 private:
  bool should_stop();
  void report(bool force);
  Candidate analytic_candidate(PointId id, const PointSummary& s) const;

  const SweepEvaluator& eval_;
  RunState& state_;
  ResultStream* rows_;
  RunControl control_;
  std::uint64_t planned_;
  StopReason stop_ = StopReason::kNone;
  std::atomic<std::uint64_t> new_evaluations_{0};
  std::mutex mutex_;  // guards the progress figures below and the output stream
  std::uint64_t done_ = 0, feasible_ = 0;
  std::uint64_t reported_done_ = 0;  ///< done_ at the last line printed (not on a terminal)
  double best_ = 0;
  bool have_best_ = false;
  std::chrono::steady_clock::time_point start_, last_report_;
  bool line_open_ = false;
};

}  // namespace ttsim::dse
