#pragma once
// Consistency of what one csynth report claims: its latencies against its own trip counts,
// IIs and pipeline depths, its pipeline types against the figures given, and its resources
// against the storage and operators its BindNodes declare. A report that contradicts
// itself was edited, truncated or mixed from two runs; calibration leaves it out unless the
// user keeps it (hls/calibration/kernel_samples.h), compare-rules skips the modules
// concerned. Every check holds on every real report of shared/data/hls_reports, with the
// slack noted per check.

#include <string>
#include <vector>

#include "hls/reports/csynth.h"

namespace ttsim::hls {

/// One claim of a report that its own figures contradict.
struct Contradiction {
  std::string module;  ///< ModuleInformation module, or the report's top for its summary
  /// The claim and the numbers, e.g. "loop L: Latency 10 below (TripCount 100 − 1) ·
  /// PipelineII 1 + 1 = 100 cycles".
  std::string what;
};

/// The contradictions of `r`, in report order (empty when none). Only known figures are
/// checked (an unknown value contradicts nothing). Cycles throughout; for each module (and
/// the report's top summary):
/// - best-case latency above the worst case, or the average outside them;
/// - a module not pipelined (PipelineType "no"/"none") whose interval (wholly known) is
///   below its best-case latency (it cannot start again before it finishes);
/// - a loop whose PipelineType says "no" while it reports a PipelineII, or "yes" without
///   one; a PipelineII or PipelineDepth below 1;
/// - a pipelined loop whose latency is below (trip_min − 1)·II + 1 or above
///   (trip_max − 1)·II + depth + 2 (two FSM states of slack: a loop of variable trip count
///   enters and leaves in them);
/// - a sequential loop whose latency differs from trip × IterationLatency by more than one
///   cycle per iteration (per bound), or is below trip_min × Σ its nested loops' latency;
/// - a module whose worst-case latency is below one of its own loops' latency;
/// - a module whose BindNodes declare more DSP, BRAM or URAM (one instance per RTLNAME)
///   than the module reports, or whose resources exceed the report's totals;
/// - the top's summary latency differing from its own ModuleInformation entry's.
std::vector<Contradiction> contradictions(const CsynthReport& r);

}  // namespace ttsim::hls
