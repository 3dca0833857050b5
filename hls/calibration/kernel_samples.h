#pragma once
// Kernel latency samples read from csynth reports, for calibration.
//
// Module → kernel mapping (hls/kernels/modules.h): a module named `ttsim_<op>` is the
// kernel of TaskOp <op> (to_string(TaskOp)); `ttsim_<op>_<suffix>` is a variant of the
// same TaskOp (longest <op> wins: ttsim_softmax_grad → softmax_grad,
// ttsim_add_accumulate → add); failing that, `ttsim_<loop>` where <loop> is a loop of a
// kernel's specification (hls/include/kernel_spec.h) is that kernel's single-variant
// module (ttsim_column_sum → add). Names containing "_Pipeline_" are outlined loops, not
// kernels. Anything else (e.g. ttsim_train_step) is not a kernel.
//
// Gathering a kernel's loops: Vitis HLS 2021.1+ outlines each pipelined loop of module
// M into a callee module "M_Pipeline_<loop>"; the loops are collected from M's own loop
// tree and from those callees, found through RTLDesignHierarchy (or, without it, by
// name in ModuleInformation); before 2021.1 from the report's top-level loop summary
// when M is the report's top. Each loop is matched by label to the kernel's loops in
// the kernel specification hls/include/kernel_spec.h (hw/loop_nest.h all_kernel_loops;
// the HLS sources use those names as loop labels): every pipelined loop found must be one
// of them, the loops that run for every variant must all be present, and a
// variant-specific loop may be absent (a module of one variant).
//
// Bounds: exact values give one sample (the worst case); when trip counts and
// latencies are ranges (LOOP_TRIPCOUNT min/max on runtime extents) the report gives two:
// best-case latency with every loop at its minimum trip count, worst-case with every loop
// at its maximum, which is how HLS computes those two figures.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hls/reports/csynth.h"
#include "hls/reports/impl_reports.h"
#include "models/task_graph.h"

namespace ttsim::hls {

/// The TaskOp of a kernel module name by the convention above, or std::nullopt.
std::optional<TaskOp> task_op_of_module(const std::string& module);

/// One loop of a kernel in one report, at one bound.
struct LoopObservation {
  std::string name;           ///< loop label (= kernel_spec.h loop name, the loop class)
  std::string rtl_module;     ///< module that holds it (the kernel or its _Pipeline_ callee)
  std::int64_t trip = 0;      ///< iterations
  std::int64_t latency = 0;   ///< reported loop latency, cycles
  std::optional<std::int64_t> ii, depth;  ///< reported PipelineII / PipelineDepth
};

/// One kernel invocation as a report describes it.
struct KernelSample {
  std::string source;         ///< report file
  std::string module;         ///< kernel module name
  TaskOp op = TaskOp::kContraction;
  std::string bound;          ///< "worst" or "best"
  std::int64_t latency = 0;   ///< module latency at that bound, cycles
  Count latency_best, latency_worst;  ///< as reported
  /// The loops the module holds, in specification order (a subset of all_kernel_loops()).
  std::vector<LoopObservation> loops;
  Resources resources;        ///< the module's (with its callees) as reported
  std::string tool_version, part;
  std::optional<double> target_clock_ns;
  std::optional<double> estimated_clock_ns;  ///< EstimatedClockPeriod of the module (or top), ns
  /// "csynth", or "cosim" when csynth printed the module latency undef and a
  /// co-simulation report of it (report_checks.h cosim_latency_for) measured it.
  std::string latency_source = "csynth";
  std::string cosim_report;  ///< the *_cosim.rpt file when latency_source is "cosim"
  std::vector<BindNode> op_binds;  ///< operator BindNodes of the module and its callees
  /// One trip count per loop of the kernel's specification (all_kernel_loops(op) order,
  /// every variant): the observed loop's trip, 0 for a loop the module does not hold.
  /// The argument KernelLatencyModel::cycles_for_trips takes.
  std::vector<std::int64_t> trips() const;
};

/// A kernel module that could not be sampled.
struct SampleSkip {
  std::string source, module, reason;
};

/// Everything found in a set of reports.
struct KernelSampleSet {
  std::vector<KernelSample> samples;
  std::vector<SampleSkip> skipped;
  /// Non-kernel module names seen (for the "nothing maps" message).
  std::vector<std::string> unmapped;
};

/// Samples of every kernel module in `reports`. A module reported by several files of
/// one folder (csynth.xml and <m>_csynth.xml) counts once (the first file by path).
/// Modules with unknown latency, no loop of the kernel, a missing loop common to every
/// variant or a foreign loop are listed in `skipped`. A report top whose csynth latency
/// is undef takes the co-simulation latency from `cosim` when there is one (ground truth,
/// KernelSample::latency_source "cosim").
KernelSampleSet collect_kernel_samples(const std::vector<CsynthReport>& reports,
                                       const std::vector<CosimReport>& cosim = {});

}  // namespace ttsim::hls
