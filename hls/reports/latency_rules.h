#pragma once
// The generic rule set that composes an HLS module's latency from its loop nest, and its
// evaluation against the latency the csynth reports print (`ttsim compare-rules`).
//
// Rules (cycles):
//   pipelined loop   L = (trip − 1) · II + depth                         [textbook]
//   sequential loop  L = trip · iteration latency, where a loop with nested loops has
//                    iteration latency = Σ nested L + Σ call latencies (InstanceList) (+ FSM
//                    states, below); a leaf body's (no nested loop) is read from the report
//   module           L = Σ top-level loops + Σ calls not inside a loop (+ FSM states)
//   instance call    its latency is the callee module's (ModuleInformation), composed
//                    recursively by the same rules when the callee has loop data.
// RuleSet::kHlsStates adds the scheduling conventions of Vivado/Vitis HLS seen in every
// report of shared/data/hls_reports (not fitted per module): a pipelined loop reports
// (trip − 1) · II + max(depth − 1, 1) (its last stage overlaps the exit test), and a
// sequential region spends one FSM state entering each loop or call plus one final state
// (so a module or loop body with n steps adds n + 1 cycles).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hls/reports/csynth.h"
#include "hls/reports/impl_reports.h"

namespace ttsim::hls {

/// How a skip reason ends when the rule does not model what it skips (a dataflow region,
/// a pipeline style other than none / no / yes): "not modelled by the composition rule".
inline constexpr const char* kNotModelled = "not modelled by the composition rule";

/// How a skip reason begins when the module's report contradicts itself
/// (report_consistency.h): "report contradicts itself: ".
inline constexpr const char* kContradicts = "report contradicts itself: ";
/// Skip reason of a per-module file without its design's hierarchy (its calls are unknown).
inline constexpr const char* kCallsUnknown = "calls unknown: per-module file without its design's hierarchy";

/// Which constants the composition uses.
enum class RuleSet {
  kTextbook,   ///< (trip−1)·II + depth, trip · iteration latency, no FSM states
  kHlsStates,  ///< textbook + HLS conventions: depth − 1 overlap, n + 1 FSM states
};

/// The part of a pipelined loop's latency (cycles) that its pipeline depth contributes
/// beyond (trip − 1) · II: `depth` under kTextbook, max(depth − 1, 1) under kHlsStates
/// (the last stage overlaps the exit test; seen in every report of
/// shared/data/hls_reports). The calibration (hls/calibration/kernel_fit.h) converts a
/// reported PipelineDepth to the simulator's depth with it.
std::int64_t pipeline_depth_term(std::int64_t depth, RuleSet rules);

/// Latency (cycles) of a pipelined loop of `trip` >= 1 iterations at initiation interval
/// `ii` and pipeline depth `depth`: (trip − 1) · ii + pipeline_depth_term(depth, rules)
/// (UG1399 "pipelined loop latency"; II >= max(RecMII, ResMII), Rau 1994).
std::int64_t pipelined_loop_latency(std::int64_t trip, std::int64_t ii, std::int64_t depth, RuleSet rules);

/// Latency of one loop by the rules, or std::nullopt when its data is incomplete
/// (a trip count, II, depth or leaf iteration latency unknown or a range), or when a
/// call inside it (InstanceList) has no known latency in `modules`.
/// `callees` maps instance name → module name (from RTLDesignHierarchy); may be empty.
std::optional<std::int64_t> rule_loop_latency(const LoopReport& loop, RuleSet rules,
                                              const std::vector<ModuleReport>& modules,
                                              const std::vector<std::pair<std::string, std::string>>& callees);

/// Outcome for one module.
struct RuleResult {
  std::string source;        ///< report file
  std::string tool_version;
  std::string module;
  std::int64_t reported = 0;   ///< worst-case latency printed in the report, cycles
  /// Where `reported` comes from: "csynth", or "cosim" when csynth printed undef and a
  /// co-simulation report of the module (report_checks.h cosim_latency_for) measured it.
  std::string reported_source = "csynth";
  std::string cosim_report;    ///< the *_cosim.rpt file when reported_source is "cosim"
  std::int64_t predicted = 0;  ///< by the rules, cycles
  int loops = 0;               ///< top-level loops of the module
  int calls = 0;               ///< instance calls outside loops
  /// (predicted − reported) / reported · 100; reported 0 gives 0 when equal, else ±100.
  double error_pct() const;
};

/// A module that was not evaluated, and why (e.g. "latency undef", "dataflow").
struct RuleSkip {
  std::string source, module, reason;
};

/// All modules of a set of reports.
struct RuleEvaluation {
  std::vector<RuleResult> results;
  std::vector<RuleSkip> skipped;
  /// Mean absolute percentage error over `results` (percent); std::nullopt when no
  /// module was evaluated (never 0 %).
  std::optional<double> mape() const;
};

/// Evaluates the rules on every module of every report: the ModuleInformation modules
/// (2021.1+) or, without them, the report's top with its SummaryOfLoopLatency. A module
/// reported by several files of one folder (csynth.xml and <m>_csynth.xml) counts once.
/// Modules are evaluated only with complete data: exact reported latency, no dataflow,
/// a modelled pipeline style (none, no, yes) for the module and every loop, every loop
/// complete, every call's latency known, and a report that does not contradict itself
/// about the module (report_consistency.h contradictions; skip reason kContradicts + the
/// first contradiction); in reports before 2022.1 (no
/// InstanceList) a module with both loops and calls is skipped (calls cannot be placed);
/// a per-module file without RTLDesignHierarchy / ModuleInformation (its calls unknown)
/// is skipped with kCallsUnknown unless another file of the folder reports the module.
/// Where a report's top prints latency undef and `cosim` holds its co-simulation
/// (report_checks.h cosim_latency_for), the measured worst-case latency is the ground
/// truth (RuleResult::reported_source "cosim"; a skip reason names it).
RuleEvaluation evaluate_rules(const std::vector<CsynthReport>& reports, RuleSet rules,
                              const std::vector<CosimReport>& cosim = {});

}  // namespace ttsim::hls
