#pragma once
// A calibration fitted from synthesis reports (hw/calibration.h, hls/calibration/
// kernel_fit.h), as `ttsim calibrate` prints it: the provenance line, each kernel's fit
// with its loop classes, which kernels of the model keep the defaults, the operator
// latencies read from BindNodes, the power fit; and the report modules no kernel took
// (also printed by `ttsim compare`). Cycles throughout, watts for power.

#include <map>
#include <string>

#include "hls/calibration/kernel_samples.h"
#include "models/task_graph.h"
#include "hw/calibration.h"

namespace ttsim::hls {

/// "calibration from <dir> (N csynth reports, tool .., part .., target clock .. ns = ..
/// MHz)", a blank line, then per fitted kernel its line (module, lanes, reports, samples,
/// overhead, max |residual|, tasks of the model's step from `tasks`) and its loop classes
/// in specification order (samples, II model / report, depth model / report, depth
/// adjustment, max |residual|; a reported II that differs from the derived one flagged).
std::string calibration_table(const Calibration& c, const std::string& dir, const std::map<TaskOp, int>& tasks);

/// "kernels of <model> without reports (keep the defaults of <arch>): .." listing each
/// kernel of `tasks` (the model's step: tasks per kernel) that `c` does not fit, and
/// "operator latencies from BindNodes: .." (or that the device file's apply).
std::string calibration_coverage(const Calibration& c, const std::map<TaskOp, int>& tasks, const std::string& model,
                                 const std::string& arch);

/// The power line: the fitted coefficients (static W; W per MHz of DSP, BRAM36, URAM;
/// W per kLUT and MHz of logic and clock; "not fitted" where no report gave one), or that
/// no report_power of the design was found (`others_rejected`: some were, and rejected).
std::string power_fit_line(const Calibration& c, bool others_rejected);

/// One "skipped <module> in <source>: <reason>" line per module of `set` that maps to no
/// kernel sample.
std::string skipped_samples(const KernelSampleSet& set);

}  // namespace ttsim::hls
