#pragma once
// Test helper: writes csynth.xml files in the real Vitis HLS 2023.2 schema
// (ModuleInformation, RTLDesignHierarchy, each pipelined loop outlined into a
// <module>_Pipeline_<loop> module, operator BindNodes) for a ttsim kernel module, from
// the kernel specification (hls/include/kernel_spec.h: loop names, trip formulas, the II
// derived by hw/kernel_latency.h loop_timing and the chain depth) and known deviations,
// following the HLS conventions seen in real reports (hls/reports/latency_rules.h): a
// pipelined loop reports (trip − 1)·II + max(depth − 1, 1), each _Pipeline_ module adds 2
// FSM states around its loop, and the kernel module adds one state per call plus one.
// Every file says it is synthetic; none is a Vitis output.
// Also writes report_power / report_utilization texts from known power coefficients.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/task_graph.h"
#include "hw/kernel_latency.h"

namespace ttsim::testing {

/// One kernel report to write. Per-loop vectors have one entry per loop of the kernel's
/// specification (hw/loop_nest.h all_kernel_loops order, every variant).
struct SyntheticKernel {
  std::string module;                  ///< e.g. "ttsim_softmax"
  TaskOp op = TaskOp::kContraction;
  std::vector<std::int64_t> trips;     ///< worst case; 0 = the module does not hold the loop
  std::vector<std::int64_t> min_trips; ///< best case; empty = exact trips
  std::vector<int> iis;                ///< reported PipelineII (cycles)
  std::vector<int> depths;             ///< reported PipelineDepth (cycles)
  int lanes = 1;                       ///< lanes the chains are expanded at (BindNodes per loop)
  int dsp = 0;
  std::map<std::string, int> bind_latency;  ///< BindNode LATENCY per operator
  std::string part = "xcu50-fsvh2104-2-e";
  double clock_ns = 10.0;
};

/// Reported latency of one pipelined loop: (trip − 1)·II + max(depth − 1, 1)
/// (latency_rules.h pipelined_loop_latency, kHlsStates).
std::int64_t hls_loop_latency(std::int64_t trip, int ii, int depth);
/// Reported kernel module latency for the given trips: Σ over loops with trip > 0 of
/// (loop + 2), plus one state per such loop and one.
std::int64_t hls_module_latency(const SyntheticKernel& k, const std::vector<std::int64_t>& trips);

/// Writes the csynth.xml of `k` (top = k.module) to `path`. Throws std::invalid_argument
/// unless every per-loop vector has one entry per loop of the kernel.
void write_kernel_report(const std::string& path, const SyntheticKernel& k);

/// Power of each component, watts, and the resources used, for one routed design.
struct SyntheticPower {
  std::string part = "xcu50-fsvh2104-2-e";
  double clock_ns = 4.0;
  int dsp = 0;
  double bram_tiles = 0;
  int uram = 0;
  int luts = 0;
  double static_w = 2.216, dsp_w = 0, bram_w = 0, uram_w = 0, logic_w = 0, signals_w = 0, clocks_w = 0;
};

/// Writes <dir>/design_power_routed.rpt and <dir>/design_utilization_placed.rpt.
void write_power_pair(const std::string& dir, const SyntheticPower& p);

/// The parameters the standard synthetic set is written from.
struct SyntheticTruth {
  int read_latency = 1;   ///< must equal the device's (u50: max(BRAM, URAM read) = 1)
  int write_latency = 1;  ///< must equal the device's (u50: 1)
  /// Reported PipelineDepth − model depth (Σ chain latencies); the fit then finds
  /// depth_adjust = extra_depth − 1 (HLS reports depth − 1 in a loop's latency).
  int extra_depth = 3;
  /// Added to the derived II in the reports: 0 = the reports follow the specification;
  /// > 0 models a loop Vitis scheduled at a larger II (compare flags it).
  int extra_ii = 0;
  std::map<std::string, int> bind_latency{{"fadd", 4}, {"fmul", 3}, {"fcmp", 1}, {"fexp", 8},
                                          {"fdiv", 9}, {"fsqrt", 6}, {"flog", 10}};
  /// Lanes of each written kernel (the u50_paper arch's).
  std::map<TaskOp, int> lanes{{TaskOp::kContraction, 64}, {TaskOp::kSoftmax, 8}, {TaskOp::kLayerNorm, 8}};
  /// The operator latencies above with read / write.
  OperatorLatencies latencies() const;
  /// Reported depth of each loop of `op`'s kernel: model depth + extra_depth.
  std::vector<int> depths(TaskOp op) const;
  /// Reported II of each loop: loop_timing(...).ii (the model's derived II) + extra_ii.
  std::vector<int> iis(TaskOp op) const;
  /// Overhead the fit must find for a kernel of n loops: 2 states per _Pipeline_ module,
  /// one per call and one final state = 3n + 1.
  static int overhead(int loops) { return 3 * loops + 1; }
};

/// Trip count of every loop of `op`'s kernel (all_kernel_loops order) for a task of
/// `shape` on `lanes` lanes, each variant loop at its own variant (a module that
/// branches between its variants, sized by LOOP_TRIPCOUNT for each).
std::vector<std::int64_t> spec_trips(TaskOp op, const TaskShape& shape, int lanes);

/// Writes the standard synthetic set under `dir` (one folder per synthesized kernel):
/// ttsim_contraction at 4 shapes (every report holds its three forms), ttsim_softmax at 4
/// (one with LOOP_TRIPCOUNT ranges), ttsim_layernorm at 3, all for `part` at `clock_ns`.
/// Returns the kernels written.
std::vector<SyntheticKernel> write_synthetic_set(const std::string& dir, const std::string& part, double clock_ns,
                                                 const SyntheticTruth& truth = {});

}  // namespace ttsim::testing
