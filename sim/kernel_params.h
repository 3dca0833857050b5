#pragma once
// Calibrated kernel latency parameters, as the simulator's kernel latency model
// (sim/kernel_latency.h) applies them. They come from a calibration file
// (sim/calibration.h, configs/calibration/*.json) fitted by `ttsim calibrate` from
// csynth reports; this header holds only the values, so the arch can carry them.
//
// Calibrated latency of a task of op `op` (cycles), per loop l of kernel_loops():
//   depth_l = read_latency + Σ latency(op in chain_l) + 1 + depth_adjust
//   II_l    = max(ii, ceil(latency(last op of chain_l) / recurrence_distance_l))
//   cycles  = Σ_l round((trip_l − 1) · II_l + depth_l) + round(overhead)
// with operator latencies from `op_latency` where given, else from the device file.

#include <map>
#include <string>

#include "models/task_graph.h"

namespace ttsim {

/// Fitted parameters of one kernel (one TaskOp), cycles.
struct KernelParams {
  double ii = 1;            ///< initiation interval of the kernel's pipelined loops
  double depth_adjust = 0;  ///< added to the model depth of every loop (may be negative)
  double overhead = 0;      ///< per task (invocation): FSM states, calls, straight-line code
};

/// The calibrated values the latency model uses.
struct KernelCalibration {
  std::string name;  ///< calibration file, for messages and outputs
  std::map<TaskOp, KernelParams> kernels;    ///< kernels without an entry keep the arch defaults
  std::map<std::string, int> op_latency;     ///< operator → cycles (from csynth BindNodes)
};

}  // namespace ttsim
