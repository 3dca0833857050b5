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

/// The top of ttsim's emitted build (hls/kernels/top.h).
inline constexpr const char* kTtsimDesignTop = "ttsim_train_step";

/// True when `r` holds a ttsim module: its top or one of its ModuleInformation modules is
/// named ttsim_*.
bool holds_ttsim_module(const CsynthReport& r);

/// What report `r` gets wrong about being one of ttsim's (empty when nothing, or when it
/// holds no ttsim module): a top that is not a ttsim module while the report holds ttsim
/// modules ("report of another design"), or a ttsim_* top that names no kernel module
/// (ttsim_<op>, hls/kernels/modules.h), no outlined loop of one and not ttsim_train_step.
std::vector<std::string> ttsim_identity_problems(const CsynthReport& r);

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
  /// True when its report was flagged and kept by --keep (the fit then takes its part and
  /// clock as they are).
  bool kept = false;
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

/// A csynth report holding ttsim modules that is left out of the samples, or used only
/// because the user kept it: of another design, with an identity problem
/// (hls/reports/report_identity.h, ttsim_identity_problems) or contradicting itself
/// (hls/reports/report_consistency.h).
struct ReportRefusal {
  std::string source;
  std::string reason;  ///< every problem, "; "-separated, with the values
};

/// How collect_kernel_samples screens the reports.
struct SampleOptions {
  /// csynth report files to sample although flagged (`calibrate --keep FILE`), compared
  /// with the reports' paths as files.
  std::vector<std::string> keep;
  /// The part and target clock the samples must be of (`--device`, `--arch`), with the
  /// files they come from for the messages; empty = not checked here.
  std::string part, part_from;
  std::optional<double> clock_ns;
  std::string clock_from;
};

/// Everything found in a set of reports.
struct KernelSampleSet {
  std::vector<KernelSample> samples;
  std::vector<SampleSkip> skipped;
  /// Non-kernel module names seen (for the "nothing maps" message).
  std::vector<std::string> unmapped;
  std::vector<ReportRefusal> refused;  ///< reports left out, with why
  std::vector<ReportRefusal> kept;     ///< flagged reports sampled because kept, with what was flagged
};

/// Samples of every kernel module in `reports`. A report holding ttsim modules is first
/// screened: one of another design, with an identity problem, contradicting itself or of
/// another part or target clock than `options.part` / `options.clock_ns` is
/// left out (`refused`) unless `options.keep` names it (`kept`). A module reported by
/// several files of one folder (csynth.xml and <m>_csynth.xml) counts once (the first file
/// by path). A module whose own, a loop's or an outlined callee's PipelineType is not
/// yes / no / none (frp, flp, dataflow, ...: not modelled) is listed in `skipped` naming
/// the module or loop and its style. Modules with unknown latency, a loop whose trip count, latency, PipelineII or
/// printed PipelineDepth is not known (never guessed), no loop of the kernel, a missing loop common to
/// every variant or a foreign loop are listed in `skipped`. A report top whose csynth
/// latency is undef takes the co-simulation latency from `cosim` when there is one (ground
/// truth, KernelSample::latency_source "cosim"). Throws InputError naming a kept file that
/// is none of `reports`.
KernelSampleSet collect_kernel_samples(const std::vector<CsynthReport>& reports,
                                       const std::vector<CosimReport>& cosim = {},
                                       const SampleOptions& options = {});

}  // namespace ttsim::hls
