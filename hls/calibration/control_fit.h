#pragma once
// Control LUTs and FFs of a pipelined loop, measured on real csynth reports.
//
// Vitis HLS outlines every pipelined loop into its own RTL module, named
// "<function>_Pipeline_<loop>", and reports its LUTs and FFs (ModuleInformation, 2021.1+).
// What a loop module has beyond its floating-point operator cores — its FSM, trip and
// address counters, integer adders and comparators, its pipeline registers and their
// enables, the multiplexers of its operands — is its control. Per module:
//
//   control LUTs = module LUTs − Σ over its FP operator bindings (BindNode OPTYPE fadd,
//                  fsub, fmul, fdiv, fexp, flog, fsqrt, fcmp) of that core's LUTs
//                  (hw/lut_estimate.h operator_core_luts; fsub is an fadd core)
//   control FFs  = module FFs − Σ of those cores' FFs (hw/ff_estimate.h operator_core_ffs)
//
// Modules with a floating-point or conversion operator the LUT table has no figure for
// (double precision, half, fused, int↔float) are left out, as are modules a design's
// reports list twice (kept once). The fit is robust to designs of very different sizes:
// each design's median over its loop modules, then the median over designs
// (hw/lut_estimate.h kControlLutsPerPipelinedLoop and hw/ff_estimate.h
// kControlFfsPerPipelinedLoop are those figures; the lowest and highest design medians are
// their sensitivity ranges).

#include <string>
#include <vector>

#include "hls/reports/report_set.h"

namespace ttsim::hls {

/// One pipelined loop module of a csynth report.
struct LoopControlSample {
  std::string design;  ///< folder of the report under the scanned root, e.g. "sort_top_64"
  std::string module;  ///< e.g. "sort_top_64_Pipeline_VITIS_LOOP_12_1"
  std::string tool_version, part;
  double luts = 0;           ///< module LUTs (csynth estimate)
  double operator_luts = 0;  ///< Σ LUTs of its FP operator cores
  double ffs = -1;           ///< module FFs (csynth estimate); -1 when the report gives none
  double operator_ffs = 0;   ///< Σ FFs of its FP operator cores
  double control() const { return luts - operator_luts; }
  double control_ffs() const { return ffs - operator_ffs; }
};

/// Which figure a fit is over.
enum class ControlMeasure { kLuts, kFfs };

/// Per-design summary of the samples (control LUTs or FFs).
struct DesignControl {
  std::string design, tool_version, part;
  int modules = 0;
  double median = 0, min = 0, max = 0;
};

/// The fit (see the file comment): per design, and the median of the design medians.
struct LoopControlFit {
  std::vector<DesignControl> designs;  ///< sorted by design name
  int modules = 0;                     ///< samples used
  int modules_left_out = 0;            ///< pipelined modules with an operator the table lacks
  double median = 0;                   ///< median of the design medians, LUTs (FFs) per pipelined loop
  double low = 0, high = 0;            ///< lowest / highest design median
};

/// Every pipelined loop module of the csynth reports in `set` (read from folder `root`:
/// a sample's design is the first path component below it). `left_out` (when given)
/// receives the number of pipelined modules skipped for an operator without a LUT figure.
std::vector<LoopControlSample> loop_control_samples(const ReportSet& set, const std::string& root,
                                                    int* left_out = nullptr);

/// The fit of `measure` over `samples` (for FFs, the samples with an FF figure). Throws
/// InputError when no sample has the figure.
LoopControlFit fit_loop_control(const std::vector<LoopControlSample>& samples, int left_out = 0,
                                ControlMeasure measure = ControlMeasure::kLuts);

}  // namespace ttsim::hls
