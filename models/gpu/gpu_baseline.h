#pragma once
// GPU baseline: memory, time and energy of PyTorch-style eager training at batch 1
// for the same task graph the FPGA runs (dense, TT-sequential or BTT).
//
// Memory  = weights + gradients + optimizer state (0 for plain SGD) + saved
//           activations + peak live temporaries + the framework's fixed overhead.
// Time    = Σ over tasks of max(launch overhead, kernel time), kernel time =
//           max(FLOPs / (peak · compute_efficiency), bytes / (bandwidth · bandwidth_efficiency)):
//           an eager framework launches one kernel per operator and the device overlaps
//           a kernel with the next launch, so batch-1 training is launch-bound when kernels
//           are shorter than the launch overhead (roofline per operator otherwise).
// Power   = idle + (board − idle) · (Σ kernel time / step time);  Energy = Power · Time.

#include <cstdint>

#include "models/gpu/gpu_spec.h"
#include "models/task_graph.h"

namespace ttsim {

/// Bytes by term (FP32 words × 4).
struct GpuMemory {
  double weights = 0, gradients = 0, optimizer_state = 0, activations = 0, temporaries = 0,
         framework = 0;
  double total() const {
    return weights + gradients + optimizer_state + activations + temporaries + framework;
  }
};

/// Cost of one training step on the GPU.
struct GpuStep {
  std::int64_t kernels = 0;     ///< kernel launches (one per task)
  double flops = 0;             ///< floating-point operations (2 per MAC)
  double bytes = 0;             ///< DRAM bytes read and written
  double kernel_seconds = 0;    ///< Σ kernel time (device busy)
  double seconds = 0;           ///< step time including launch overhead
  double power_watts = 0;       ///< average board power over the step
  double energy_joules = 0;     ///< power × seconds
};

/// FLOPs the GPU spends per element of a non-contraction task (documented estimates:
/// add 1, SGD update 2 (mul + add), softmax 5 (max, sub, exp, sum, div), loss 6,
/// LayerNorm 8 (mean, var, normalize, scale, shift), GELU 10 (tanh form)).
double gpu_flops_per_element(TaskOp op);

/// Memory of training with this graph on the GPU (plain SGD: no optimizer state).
GpuMemory gpu_memory(const TaskGraph& graph, const GpuSpec& gpu);

/// Time and energy of one step.
GpuStep gpu_step(const TaskGraph& graph, const GpuSpec& gpu);

}  // namespace ttsim
