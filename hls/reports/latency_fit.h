#pragma once
// Least-squares fitting core for calibrating the simulator's kernel latency model
//   latency = Σ_loops ((trip − 1) · II + depth) + overhead          [cycles]
// (hls/loop_nest.h: each pipelined loop costs (trip − 1) · II + depth) from several
// csynth reports of one kernel synthesized at different shapes. Parameters are shared
// by all loops of the kernel: II (cycles per iteration), depth (pipeline depth, cycles)
// and overhead (per-invocation cycles: FSM entry/exit, straight-line code).
//
// Intended use by `ttsim calibrate`: for each simulator kernel, collect one
// LatencySample per report (sample_from_report with the kernel's module name from the
// hls/ naming convention), call fit_kernel_latency, and store the KernelLatencyFit with
// the reports' tool version, part and clock; `ttsim compare` evaluates predict() against
// the simulator's own trip counts (kernel_loops()).

#include <cstdint>
#include <string>
#include <vector>

#include "hls/reports/csynth.h"

namespace ttsim::hls {

/// One observation: the trip counts of the kernel's pipelined loops in one report and
/// the reported module latency (cycles).
struct LatencySample {
  std::string source;               ///< report file, for messages
  std::vector<std::int64_t> trips;  ///< one per pipelined loop (iterations, >= 1)
  double latency = 0;               ///< reported worst-case latency, cycles
  /// Per-invocation overheads contained in `latency`: 1 when it is a module's latency
  /// (the default), 0 when it is the latency of loops alone (e.g. one loop's reported
  /// Latency), which lets depth and overhead be separated for kernels whose loop count
  /// never changes.
  double invocations = 1;
};

/// Fitted parameters (cycles) and fit quality.
struct KernelLatencyFit {
  double ii = 0, depth = 0, overhead = 0;
  double max_abs_residual = 0;  ///< cycles, over the samples
  int samples = 0;
  /// Σ ((trip − 1) · II + depth) + overhead for the given loop trip counts.
  double predict(const std::vector<std::int64_t>& trips) const;
};

/// Reads the sample of module `module` from a report: its ModuleInformation entry (or
/// the report's top when it is that module and the file has no ModuleInformation); all
/// pipelined loops of its loop tree with exact trip counts; exact worst-case latency.
/// Throws InputError naming the report when the module is absent, its latency is not
/// exact, a pipelined loop's trip count is not exact, or it has no pipelined loop.
LatencySample sample_from_report(const CsynthReport& report, const std::string& module);

/// Least-squares fit (Eigen, column-pivoting QR) of II, depth and overhead over
/// `samples`: rows [Σ(trip − 1), number of loops, invocations] · [II, depth, overhead] =
/// latency.
/// Throws InputError when there are fewer than 3 samples or the columns are linearly
/// dependent (e.g. every sample has the same number of loops, so depth and overhead
/// cannot be told apart), naming the sources.
KernelLatencyFit fit_kernel_latency(const std::vector<LatencySample>& samples);

}  // namespace ttsim::hls
