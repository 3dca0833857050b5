#pragma once
// Fitting the simulator's kernel latency parameters (hw/kernel_params.h) from csynth
// report samples, and the leave-one-out check of that fit.
//
// The II is not fitted: every loop's II is the model's, derived from the kernel
// specification (hls/include/kernel_spec.h) and the operator latencies,
// II = max(RecMII, ResMII) (Rau, MICRO 1994; hw/kernel_latency.h). Fitted, per kernel
// (TaskOp), cycles:
//   per loop class l (kernel_spec.h loop name), over every sample holding the loop:
//     observed depth_l = pipeline_depth_term(PipelineDepth, kHlsStates) = max(depth − 1, 1)
//                        (hls/reports/latency_rules.h: HLS prints a pipelined loop as
//                        (trip − 1)·II + max(depth − 1, 1)); without a PipelineDepth,
//                        Latency − (trip − 1)·II (the reported II, else the model's)
//     depth_adjust_l   = mean(observed depth_l) − model depth_l  (least squares)
//   overhead = mean over samples of (module latency − Σ_l ((trip_l − 1)·II_l + depth_l
//              + depth_adjust_l)), which holds the FSM states HLS adds around the loops
//              (one per call of an outlined _Pipeline_ loop module plus one, and each
//              _Pipeline_ module's own entry/exit states).
// Operator latencies are read from the reports' BindNodes where present, else the device
// file's; the model depth and II use them. A report whose PipelineII differs from the
// derived II is not absorbed into the depth: its loop keeps a residual, and `ttsim
// compare` flags it.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hls/calibration/kernel_samples.h"
#include "hw/arch_spec.h"
#include "hw/calibration.h"
#include "hw/device_spec.h"
#include "hw/kernel_latency.h"

namespace ttsim::hls {


/// Operator latencies (cycles) from the operator BindNodes of `samples`: OPTYPE →
/// LATENCY, "fsub" counted as "fadd" (one core); only operators `device` defines; the
/// largest value when BindNodes disagree (different implementations).
std::map<std::string, int> bindnode_op_latencies(const std::vector<KernelSample>& samples,
                                                 const DeviceSpec& device);

/// The sampling options of `calibrate` / `compare`: the reports kept with --keep, and the
/// part of `device` and the clock of `arch` every other report must be of (a report of
/// another part or clock is refused by name, with both values).
SampleOptions screening_options(const std::vector<std::string>& keep, const ArchSpec& arch,
                                const DeviceSpec& device);

/// Module latency (cycles) the latency model `model` predicts for a sample's trip counts.
std::int64_t predict_sample(const KernelSample& s, const KernelLatencyModel& model);

/// Observed depth (cycles, the simulator's convention) of one reported loop: see the
/// file comment. Throws InputError naming the loop when the observation has neither
/// PipelineDepth nor PipelineII (collect_kernel_samples skips such a kernel; nothing is
/// guessed).
double observed_depth(const LoopObservation& o);

/// Fits one kernel over `samples` (all of kernel `op`): per-loop depth adjustments and
/// the overhead (file comment), with operator latencies `op_latency` over the device's,
/// at the lanes of `arch`'s unit for `op`. With `step` (the training step the design
/// runs), every loop is priced at its module instance's II over the step's calls
/// (KernelLatencyModel::bind_instances: the II the emitted PIPELINE pragma asks for), so a
/// loop whose instance runs above its own call's II does not leak the difference into the
/// overhead; without it, at the II of a call whose arguments sit in distinct memories.
/// Throws InputError naming the kernel when `samples` is empty or holds no loop
/// observation with a trip count >= 1.
KernelFitRecord fit_kernel(TaskOp op, const std::vector<const KernelSample*>& samples,
                           const ArchSpec& arch, const DeviceSpec& device,
                           const std::map<std::string, int>& op_latency, const TaskGraph* step = nullptr);

/// The calibration of every kernel in `set`, with provenance. Throws InputError when no
/// module maps to a kernel (listing the modules found and the skipped ones), when the
/// samples' part differs from device.part or their target clock from arch.clock_mhz,
/// or from fit_kernel. When a sample's estimated clock exceeds its target (timing not
/// met), Calibration::achievable_clock_ns is the largest estimate, with a note.
Calibration fit_calibration(const KernelSampleSet& set, const ArchSpec& arch, const DeviceSpec& device,
                            const std::string& model_name, const TaskGraph* step = nullptr);

/// One leave-one-out prediction.
struct LooResult {
  std::string source, module, bound;
  TaskOp op = TaskOp::kContraction;
  std::int64_t reported = 0;
  std::optional<std::int64_t> predicted;  ///< empty when the reduced fit failed
  std::string note;                       ///< why, when empty
  double error_pct() const;               ///< (predicted − reported) / reported · 100
};

/// For every kernel with at least 2 reports: for each report, fit on the other reports
/// and predict the left-out one's samples. Kernels with fewer reports give no rows.
std::vector<LooResult> leave_one_out(const KernelSampleSet& set, const ArchSpec& arch, const DeviceSpec& device,
                                     const std::map<std::string, int>& op_latency, const TaskGraph* step = nullptr);

}  // namespace ttsim::hls
