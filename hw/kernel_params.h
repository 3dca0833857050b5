#pragma once
// Calibrated kernel latency parameters, as the simulator's kernel latency model
// (hw/kernel_latency.h) applies them. They come from a calibration file
// (hw/calibration.h, configs/calibration/*.json) fitted by `ttsim calibrate` from
// csynth reports; this header holds only the values, so the arch can carry them.
//
// Nothing here sets an initiation interval: every loop's II is derived from the kernel
// specification (hls/include/kernel_spec.h) and the operator latencies,
// II = max(RecMII, ResMII) (Rau, MICRO 1994). A calibration adjusts the depth of each
// loop class and the per-invocation overhead of each kernel (cycles), per loop l of
// kernel_loops():
//   depth_l = max(1, round(Σ latency(op in chain_l) + depth_adjust[name_l]))
//   cycles  = Σ_l ((trip_l − 1) · II_l + depth_l) + max(0, round(overhead))
// with operator latencies from `op_latency` where given, else from the device file.

#include <map>
#include <string>

#include "models/task_graph.h"

namespace ttsim {

/// Fitted parameters of one kernel (one TaskOp), cycles.
struct KernelParams {
  /// Loop class (kernel_spec.h loop name) → cycles added to the model depth of that loop
  /// (may be negative); a loop without an entry keeps its model depth.
  std::map<std::string, double> depth_adjust;
  double overhead = 0;  ///< per task (invocation): FSM states, calls, straight-line code
};

/// The calibrated values the latency model uses.
struct KernelCalibration {
  std::string name;  ///< calibration file, for messages and outputs
  std::map<TaskOp, KernelParams> kernels;    ///< kernels without an entry keep the arch defaults
  std::map<std::string, int> op_latency;     ///< operator → cycles (from csynth BindNodes)
};

}  // namespace ttsim
