#pragma once
// Test helper: writes csynth.xml files in the real Vitis HLS 2023.2 schema
// (ModuleInformation, RTLDesignHierarchy, each pipelined loop outlined into a
// <module>_Pipeline_<loop> module, operator BindNodes) for a ttsim kernel module, from
// known parameters, following the HLS conventions seen in real reports
// (hls/reports/latency_rules.h): a pipelined loop reports (trip − 1)·II + max(depth − 1, 1),
// each _Pipeline_ module adds 2 FSM states around its loop, and the kernel module adds
// one state per call plus one. Every file says it is synthetic; none is a Vitis output.
// Also writes report_power / report_utilization texts from known power coefficients.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/task_graph.h"

namespace ttsim::testing {

/// One kernel report to write.
struct SyntheticKernel {
  std::string module;                  ///< e.g. "ttsim_softmax"
  TaskOp op = TaskOp::kContraction;    ///< its loops are hls/loop_nest.h kernel_loops(op)
  std::vector<std::int64_t> trips;     ///< per loop, worst case
  std::vector<std::int64_t> min_trips; ///< per loop, best case; empty = exact trips
  int ii = 1;
  std::vector<int> depths;             ///< reported PipelineDepth per loop
  int dsp = 0;
  std::map<std::string, int> bind_latency;  ///< BindNode LATENCY per operator
  std::string part = "xcu50-fsvh2104-2-e";
  double clock_ns = 10.0;
};

/// Reported latency of one pipelined loop: (trip − 1)·II + max(depth − 1, 1).
std::int64_t hls_loop_latency(std::int64_t trip, int ii, int depth);
/// Reported kernel module latency for the given trips: Σ (loop + 2) + loops + 1.
std::int64_t hls_module_latency(const SyntheticKernel& k, const std::vector<std::int64_t>& trips);

/// Writes the csynth.xml of `k` (top = k.module) to `path`.
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
  int ii = 1;
  int read_latency = 1;   ///< must equal the device's (u50: 1)
  int extra_depth = 3;    ///< reported depth − (read + Σ op latencies + 1); fit: depth_adjust = extra − 1
  std::map<std::string, int> bind_latency{{"fadd", 4}, {"fmul", 3}, {"fcmp", 1}, {"fexp", 8}, {"fdiv", 9}};
  /// Reported depth of each loop of `op`'s kernel.
  std::vector<int> depths(TaskOp op) const;
  /// Overhead the fit must find for a kernel of n loops: 2 states per _Pipeline_ module,
  /// one per call and one final state = 3n + 1.
  static int overhead(int loops) { return 3 * loops + 1; }
};

/// Writes the standard synthetic set under `dir` (one folder per synthesized kernel):
/// ttsim_contraction at 4 shapes, ttsim_softmax at 4 (one with LOOP_TRIPCOUNT ranges),
/// ttsim_layernorm at 3, all for `part` at `clock_ns`. Returns the kernels written.
std::vector<SyntheticKernel> write_synthetic_set(const std::string& dir, const std::string& part, double clock_ns,
                                                 const SyntheticTruth& truth = {});

}  // namespace ttsim::testing
