#include "models/gpu/gpu_baseline.h"

#include <algorithm>
#include <vector>

namespace ttsim {

double gpu_flops_per_element(TaskOp op) {
  switch (op) {
    case TaskOp::kContraction: return 0;  // counted from MACs
    case TaskOp::kAdd: return 1;
    case TaskOp::kSgdUpdate: return 2;
    case TaskOp::kSoftmax:
    case TaskOp::kSoftmaxGrad: return 5;
    case TaskOp::kLoss: return 6;
    case TaskOp::kLayerNorm:
    case TaskOp::kLayerNormGrad: return 8;
    case TaskOp::kGelu:
    case TaskOp::kGeluGrad: return 10;
  }
  return 1;
}

GpuMemory gpu_memory(const TaskGraph& graph, const GpuSpec& gpu) {
  GpuMemory m;
  // Live temporaries over the task order: +words at first use, -words after last use.
  std::vector<double> delta(graph.tasks.size() + 1, 0.0);
  for (const auto& b : graph.buffers) {
    const double bytes = 4.0 * static_cast<double>(b.words);
    switch (b.cls) {
      case BufferClass::kParameter: m.weights += bytes; break;
      case BufferClass::kGradient: m.gradients += bytes; break;
      case BufferClass::kActivation: m.activations += bytes; break;
      case BufferClass::kTemporary:
        if (b.first_task >= 0 && b.last_task >= b.first_task) {
          delta[b.first_task] += bytes;
          delta[b.last_task + 1] -= bytes;
        }
        break;
    }
  }
  double live = 0;
  for (double d : delta) {
    live += d;
    m.temporaries = std::max(m.temporaries, live);
  }
  m.optimizer_state = 0;  // plain SGD keeps no state
  m.framework = gpu.framework_overhead_bytes;
  return m;
}

GpuStep gpu_step(const TaskGraph& graph, const GpuSpec& gpu) {
  GpuStep s;
  const double flop_rate = gpu.fp32_peak_flops * gpu.compute_efficiency;
  const double byte_rate = gpu.bandwidth_bytes_per_s * gpu.bandwidth_efficiency;
  for (const auto& t : graph.tasks) {
    double flops = t.op == TaskOp::kContraction
                       ? 2.0 * static_cast<double>(t.macs)
                       : gpu_flops_per_element(t.op) * static_cast<double>(t.elements);
    double bytes = 0;
    for (int id : t.reads) bytes += 4.0 * static_cast<double>(graph.buffers[id].words);
    for (int id : t.writes) bytes += 4.0 * static_cast<double>(graph.buffers[id].words);
    const double kernel = std::max(flops / flop_rate, bytes / byte_rate);
    s.kernels += 1;
    s.flops += flops;
    s.bytes += bytes;
    s.kernel_seconds += kernel;
    s.seconds += std::max(gpu.launch_overhead_s, kernel);
  }
  const double busy = s.seconds > 0 ? s.kernel_seconds / s.seconds : 0.0;
  s.power_watts = gpu.idle_power_watts + (gpu.board_power_watts - gpu.idle_power_watts) * busy;
  s.energy_joules = s.power_watts * s.seconds;
  return s;
}

}  // namespace ttsim
