#pragma once
// Fitting the simulator's kernel latency parameters (sim/kernel_params.h) from csynth
// report samples, and the leave-one-out check of that fit.
//
// Model fitted, per kernel (TaskOp), cycles (sim/kernel_latency.h):
//   loop l:   L_l = (trip_l − 1) · II + base_depth_l + depth_adjust
//   module:   L   = Σ_l L_l + overhead
// base_depth_l = read latency + Σ operator latencies of the loop's chain + 1, with the
// operator latencies read from the reports' BindNodes where present, else the device
// file's. Every report contributes one row per loop (the loop's reported Latency,
// overhead column 0) and one row for the module latency, stacked in one least-squares
// system (hls/reports/latency_fit.h, invocations 0 / 1). The loop rows are what separates
// depth_adjust from overhead: each kernel has a fixed number of loops, so module
// latencies alone cannot tell them apart.
//
// How this reconciles the simulator with real reports: HLS prints a pipelined loop as
// (trip − 1)·II + max(depth − 1, 1) (hls/reports/latency_rules.h), so depth_adjust comes
// out as (reported depth − model depth) − 1; the FSM states HLS adds for a sequential
// region (one per call of an outlined _Pipeline_ loop module plus one, and each
// _Pipeline_ module's own entry/exit states) land in overhead. The uncalibrated simulator
// keeps the textbook (trip − 1)·II + depth and the arch's overhead.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hls/calibration/kernel_samples.h"
#include "sim/arch_spec.h"
#include "sim/calibration.h"
#include "sim/device_spec.h"
#include "sim/kernel_latency.h"

namespace ttsim::hls {

/// The unit kind that executes `op` (sim/arch_spec.h ops_of_unit).
UnitKind unit_of_op(TaskOp op);

/// Operator latencies (cycles) from the operator BindNodes of `samples`: OPTYPE →
/// LATENCY, "fsub" counted as "fadd" (one core); only operators `device` defines; the
/// largest value when BindNodes disagree (different implementations).
std::map<std::string, int> bindnode_op_latencies(const std::vector<KernelSample>& samples,
                                                 const DeviceSpec& device);

/// Module latency (cycles) the latency model `model` predicts for a sample's trip counts.
std::int64_t predict_sample(const KernelSample& s, const KernelLatencyModel& model);

/// Fits one kernel over `samples` (all of kernel `op`), with base depths from `base`
/// (a model carrying the operator latencies to use). Throws InputError naming the
/// kernel and reports when fewer than 2 reports are given or the parameters are not
/// separable (every report at the same trip counts).
KernelFitRecord fit_kernel(TaskOp op, const std::vector<const KernelSample*>& samples,
                           const ArchSpec& arch, const DeviceSpec& device,
                           const std::map<std::string, int>& op_latency);

/// The calibration of every kernel in `set`, with provenance. Throws InputError when no
/// module maps to a kernel (listing the modules found and the skipped ones), when the
/// samples' part differs from device.part or their target clock from arch.clock_mhz,
/// or from fit_kernel.
Calibration fit_calibration(const KernelSampleSet& set, const ArchSpec& arch, const DeviceSpec& device,
                            const std::string& model_name);

/// One leave-one-out prediction.
struct LooResult {
  std::string source, module, bound;
  TaskOp op = TaskOp::kContraction;
  std::int64_t reported = 0;
  std::optional<std::int64_t> predicted;  ///< empty when the reduced fit failed
  std::string note;                       ///< why, when empty
  double error_pct() const;               ///< (predicted − reported) / reported · 100
};

/// For every kernel with at least 3 reports: for each report, fit on the other reports
/// and predict the left-out one's samples. Kernels with fewer reports give no rows.
std::vector<LooResult> leave_one_out(const KernelSampleSet& set, const ArchSpec& arch, const DeviceSpec& device,
                                     const std::map<std::string, int>& op_latency);

}  // namespace ttsim::hls
